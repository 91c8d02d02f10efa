"""Authentication strategies: noauth, http_basic and keystone.

The middleware leaves a ``RequestContext`` in ``environ['ironic.context']``.
The ramdisk endpoints, the version documents and the OpenAPI document are
public and pass through unauthenticated, marked ``is_public_api``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import os
import re
import threading

import bcrypt

from ironic.api.middleware.errors import error_app_response
from ironic.common import exception
from ironic.common.context import RequestContext

LOG = logging.getLogger(__name__)
ENV_KEY = "ironic.context"

_PUBLIC_RE = re.compile(
    r"^/(v1/?)?$|^/v1/(lookup|continue_inspection|openapi\.json)/?$|^/v1/heartbeat/[^/]+/?$")


def is_public_path(path: str) -> bool:
    return bool(_PUBLIC_RE.fullmatch(path))


def _context_from_headers(environ) -> RequestContext:
    """The caller as keystonemiddleware describes it in the X-* headers."""
    roles = [r.strip() for r in environ.get("HTTP_X_ROLES", "").split(",")
             if r.strip()]
    return RequestContext(
        user_id=environ.get("HTTP_X_USER_ID"),
        project_id=environ.get("HTTP_X_PROJECT_ID"),
        project_name=environ.get("HTTP_X_PROJECT_NAME"),
        roles=roles,
        system_scope=environ.get("HTTP_OPENSTACK_SYSTEM_SCOPE"),
        request_id=environ.get("openstack.request_id"),
        auth_token=environ.get("HTTP_X_AUTH_TOKEN"))


def _public_context(environ) -> RequestContext:
    # Nobody authenticated a caller of a public endpoint, so identity
    # headers it sends are its own invention and are ignored.
    return RequestContext(is_public_api=True,
                          request_id=environ.get("openstack.request_id"))


class _ContextMiddleware:
    """Puts the request context into the environment: the public one on
    public endpoints, the one ``_context`` builds everywhere else."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if is_public_path(environ.get("PATH_INFO", "")):
            environ[ENV_KEY] = _public_context(environ)
        else:
            environ[ENV_KEY] = self._context(environ)
        return self.app(environ, start_response)

    @staticmethod
    def _context(environ) -> RequestContext:
        raise NotImplementedError


class NoAuthMiddleware(_ContextMiddleware):
    """Every caller is a system administrator (single-user labs)."""

    @staticmethod
    def _context(environ) -> RequestContext:
        return RequestContext(
            user_id=environ.get("HTTP_X_USER_ID"),
            project_id=environ.get("HTTP_X_PROJECT_ID"),
            roles=["admin", "member", "reader"], system_scope="all",
            request_id=environ.get("openstack.request_id"))


_BCRYPT_PREFIXES = (b"$2y$", b"$2b$", b"$2a$")
# bcrypt only ever looks at the first 72 bytes; htpasswd truncates longer
# passwords silently and bcrypt>=5 refuses them, so truncate like htpasswd.
_BCRYPT_MAX = 72


def _parse_htpasswd(text: str, path: str, strict: bool) -> dict[str, bytes]:
    users = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        user, sep, hashed = line.partition(":")
        if sep and user and hashed.encode().startswith(_BCRYPT_PREFIXES):
            users[user] = hashed.encode()
            continue
        problem = (f"{path} line {number} is not 'user:bcrypt-hash' "
                   f"(only bcrypt hashes, htpasswd -B, are accepted)")
        if strict:
            raise exception.ConfigInvalid(error_msg=problem)
        LOG.warning("%s; the line is ignored", problem)
    return users


#: Password checks (bcrypt, ~0.2 s of CPU each) run at once per process:
#: a flood of wrong passwords gets one core, not every core.
CONCURRENT_CHECKS = 1
#: Seconds a request waits for its turn to check a password before it is
#: answered 503 (an application thread is held meanwhile).
CHECK_WAIT = 1.0


class TooManyChecks(Exception):
    """No password check could start in time."""


def _dummy_hash(users: dict[str, bytes]) -> bytes:
    """A hash as costly as the file's own, checked for unknown users so
    that they are refused in the same time as known ones."""
    cost = 12
    for hashed in users.values():
        try:
            cost = int(hashed.split(b"$")[2])
            break
        except (IndexError, ValueError):
            continue
    return bcrypt.hashpw(b"not a password", bcrypt.gensalt(cost))


class Htpasswd:
    """An htpasswd file of bcrypt hashes, re-read when it changes."""

    def __init__(self, path: str):
        self.path = path
        self._stamp: tuple | None = None
        self._users: dict[str, bytes] = {}
        self._dummy = b""
        self._verified: set[bytes] = set()
        self._lock = threading.Lock()
        self._checks = threading.BoundedSemaphore(CONCURRENT_CHECKS)
        try:
            self._reload(strict=True)
        except OSError as e:
            raise exception.ConfigInvalid(
                error_msg=f"cannot read http_basic_auth_user_file "
                          f"{path}: {e}") from e

    def _reload(self, strict: bool = False) -> None:
        st = os.stat(self.path)
        # mtime alone misses a rewrite within the clock's granularity.
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        if stamp == self._stamp:
            return
        with open(self.path, encoding="utf-8") as f:
            users = _parse_htpasswd(f.read(), self.path, strict)
        self._users, self._stamp = users, stamp
        self._dummy = _dummy_hash(users)
        self._verified = set()

    def check(self, user: str, password: str) -> bool:
        """Whether the password is the user's; TooManyChecks when others
        are being checked for longer than ``CHECK_WAIT``."""
        with self._lock:
            self._reload()
            known = self._users.get(user)
        hashed = known or self._dummy
        secret = password.encode()[:_BCRYPT_MAX]
        # bcrypt is deliberately slow; remember successful checks so that
        # every request does not pay for it again.
        key = hashlib.sha256(hashed + b"\0" + secret).digest()
        if known and key in self._verified:
            return True
        if not self._checks.acquire(timeout=CHECK_WAIT):
            raise TooManyChecks()
        try:
            ok = bcrypt.checkpw(secret, hashed)
        except ValueError:  # a corrupt hash
            ok = False
        finally:
            self._checks.release()
        if ok and known:
            with self._lock:
                self._verified.add(key)
        return bool(ok and known)


class HttpBasicMiddleware:
    def __init__(self, app, user_file: str):
        self.app = app
        self.htpasswd = Htpasswd(user_file)

    def _unauthorized(self, start_response, message: str):
        return error_app_response(
            start_response, 401, message,
            [("WWW-Authenticate", 'Basic realm="Baremetal API"')])

    def __call__(self, environ, start_response):
        if is_public_path(environ.get("PATH_INFO", "")):
            environ[ENV_KEY] = _public_context(environ)
            return self.app(environ, start_response)
        header = environ.get("HTTP_AUTHORIZATION", "")
        scheme, _, encoded = header.partition(" ")
        if scheme.lower() != "basic" or not encoded:
            return self._unauthorized(start_response,
                                      "Authorization required")
        try:
            user, sep, password = base64.b64decode(
                encoded.strip(), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return self._unauthorized(start_response,
                                      "Invalid authentication credentials")
        try:
            ok = sep and self.htpasswd.check(user, password)
        except TooManyChecks:
            return error_app_response(
                start_response, 503,
                "Too many authentication attempts at once; try again.",
                [("Retry-After", "1")])
        except OSError as e:
            LOG.error("Cannot read the htpasswd file %s: %s",
                      self.htpasswd.path, e)
            ok = False
        if not ok:
            return self._unauthorized(start_response,
                                      "Invalid authentication credentials")
        environ[ENV_KEY] = RequestContext(
            user_id=user, roles=["admin", "member", "reader"],
            system_scope="all",
            request_id=environ.get("openstack.request_id"))
        return self.app(environ, start_response)


class KeystoneContextMiddleware(_ContextMiddleware):
    """Builds the context from the headers keystonemiddleware sets."""

    _context = staticmethod(_context_from_headers)


def _keystone_rejections_as_api_errors(authed):
    """keystonemiddleware answers a missing or bad token itself, in its own
    body; give clients the API's error body instead, keeping its status
    and WWW-Authenticate header."""
    def middleware(environ, start_response):
        answered: dict = {}

        def _start(status, headers, exc_info=None):
            if ENV_KEY in environ:  # our application answered: pass on
                return start_response(status, headers, exc_info)
            answered["status"] = int(status.split(" ", 1)[0])
            answered["headers"] = [(k, v) for k, v in headers
                                   if k.lower() == "www-authenticate"]
            return lambda _data: None

        body = authed(environ, _start)
        if not answered:
            return body
        if hasattr(body, "close"):
            body.close()
        message = ("The request you have made requires authentication."
                   if answered["status"] == 401 else
                   "The identity service could not check the request's "
                   "token.")
        return error_app_response(start_response, answered["status"],
                                  message, answered["headers"])
    return middleware


def wrap(app, conf):
    strategy = conf.auth_strategy
    if strategy == "noauth":
        return NoAuthMiddleware(app)
    if strategy == "http_basic":
        return HttpBasicMiddleware(app, conf.http_basic_auth_user_file)
    from keystonemiddleware import auth_token  # only needed for keystone
    inner = KeystoneContextMiddleware(app)
    authed = _keystone_rejections_as_api_errors(
        auth_token.AuthProtocol(inner, {"oslo_config_config": conf}))

    def _route(environ, start_response):
        if is_public_path(environ.get("PATH_INFO", "")):
            return inner(environ, start_response)
        return authed(environ, start_response)
    return _route
