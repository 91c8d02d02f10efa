"""A Redfish SessionService for the emulator (sushy-tools has none).

With an htpasswd file configured, sushy-tools accepts HTTP basic auth only.
Real BMCs also hand out session tokens: ``POST
/redfish/v1/SessionService/Sessions`` with ``UserName`` and ``Password``
answers 201 with an ``X-Auth-Token`` header and the session's URI in
``Location``; later requests carry the token instead of credentials, and
``DELETE`` on the session's URI logs out. This module adds that, so a test
can prove that a client logs in once per BMC and then reuses its session.

Every login attempt is recorded in ``<state dir>/sessions.json``
(``{"created": [user, ...], "refused": [user, ...], "deleted": n}``), the
emulator's own account of what clients did.
"""

from __future__ import annotations

import json
import os
import secrets
import threading

from sushy_tools import error
from sushy_tools.emulator import auth_basic

SERVICE = "/redfish/v1/SessionService"
SESSIONS = f"{SERVICE}/Sessions"


class SessionStore:
    """Live sessions (token -> (id, user)) and the login journal."""

    def __init__(self, journal_path: str | None):
        self.journal_path = journal_path
        self._lock = threading.Lock()
        self._by_token: dict[str, tuple[str, str]] = {}
        self._journal = {"created": [], "refused": [], "deleted": 0}
        self._save()

    def create(self, user: str) -> tuple[str, str]:
        token = secrets.token_hex(16)
        session_id = secrets.token_hex(4)
        with self._lock:
            self._by_token[token] = (session_id, user)
            self._journal["created"].append(user)
            self._save()
        return token, session_id

    def refused(self, user: str) -> None:
        with self._lock:
            self._journal["refused"].append(user)
            self._save()

    def valid(self, token: str | None) -> bool:
        with self._lock:
            return token in self._by_token

    def ids(self) -> list[str]:
        with self._lock:
            return [sid for sid, _user in self._by_token.values()]

    def user_of(self, session_id: str) -> str | None:
        with self._lock:
            return next((u for sid, u in self._by_token.values()
                         if sid == session_id), None)

    def delete(self, session_id: str) -> bool:
        with self._lock:
            for token, (sid, _user) in list(self._by_token.items()):
                if sid == session_id:
                    del self._by_token[token]
                    self._journal["deleted"] += 1
                    self._save()
                    return True
        return False

    def _save(self) -> None:
        if not self.journal_path:
            return
        tmp = self.journal_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(self._journal, f)
        os.replace(tmp, self.journal_path)


def auth_middleware(store: SessionStore, base_class: type) -> type:
    """sushy-tools' basic auth middleware, also letting through requests
    that carry a live session token and the (anonymous) login itself."""

    class SessionOrBasicAuth(base_class):
        def __call__(self, env, start_response):
            path = env.get("PATH_INFO", "").rstrip("/")
            if path == SESSIONS and env.get("REQUEST_METHOD") == "POST":
                return self.app(env, start_response)
            if store.valid(env.get("HTTP_X_AUTH_TOKEN")):
                return self.app(env, start_response)
            return super().__call__(env, start_response)

    return SessionOrBasicAuth


def _session_doc(session_id: str, user: str) -> dict:
    return {"@odata.type": "#Session.v1_0_0.Session",
            "@odata.id": f"{SESSIONS}/{session_id}", "Id": session_id,
            "Name": "User Session", "UserName": user}


def install(app, store: SessionStore) -> None:
    """Routes of the SessionService, and its links in the service root."""
    from flask import jsonify, request

    def service():
        return jsonify({"@odata.type": "#SessionService.v1_0_0."
                                       "SessionService",
                        "@odata.id": SERVICE, "Id": "SessionService",
                        "Name": "Session Service", "ServiceEnabled": True,
                        "SessionTimeout": 1800,
                        "Sessions": {"@odata.id": SESSIONS}})

    def collection():
        if request.method == "POST":
            return login()
        return jsonify({"@odata.id": SESSIONS, "Name": "Sessions",
                        "Members": [{"@odata.id": f"{SESSIONS}/{sid}"}
                                    for sid in store.ids()],
                        "Members@odata.count": len(store.ids())})

    def login():
        body = request.get_json(force=True, silent=True) or {}
        user = str(body.get("UserName") or "")
        password = str(body.get("Password") or "").encode()
        auth_file = app.config.get("SUSHY_EMULATOR_AUTH_FILE")
        try:
            if auth_file:
                auth_basic.authenticate(auth_file, user, password)
        except error.FishyError:
            store.refused(user)
            return jsonify({"error": {"message": "Invalid credentials"}}), \
                401
        token, session_id = store.create(user)
        response = jsonify(_session_doc(session_id, user))
        response.status_code = 201
        response.headers["X-Auth-Token"] = token
        response.headers["Location"] = f"{SESSIONS}/{session_id}"
        return response

    def one(session_id):
        user = store.user_of(session_id)
        if user is None:
            return "", 404
        if request.method == "DELETE":
            store.delete(session_id)
            return "", 204
        return jsonify(_session_doc(session_id, user))

    app.add_url_rule(SERVICE, "ironic_session_service", service)
    app.add_url_rule(SESSIONS, "ironic_sessions", collection,
                     methods=["GET", "POST"])
    app.add_url_rule(f"{SESSIONS}/<session_id>", "ironic_session", one,
                     methods=["GET", "DELETE"])

    @app.after_request
    def _root_links(response):
        if request.path.rstrip("/") == "/redfish/v1" and \
                request.method == "GET" and response.status_code == 200:
            body = response.get_json()
            body["SessionService"] = {"@odata.id": SERVICE}
            body.setdefault("Links", {})["Sessions"] = {"@odata.id": SESSIONS}
            response.set_data(json.dumps(body))
        return response
