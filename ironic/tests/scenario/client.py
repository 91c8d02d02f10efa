"""What a Bare Metal API user does, over HTTP only.

Requests follow the public API (``/v1/nodes``, ``/v1/nodes/{id}/states/
provision``). A temporary failure (503: no conductor answered, or its
workers are busy; 409: the node is locked) is retried until a deadline, as
Nova and the SDK do, and counted so that tests can report it.
"""

from __future__ import annotations

import collections
import json
import re
import threading
import time
from concurrent import futures
from typing import Any, Callable, Iterable

import requests

from ironic.tests.scenario.cluster import API_VERSION

RETRY_STATUSES = (409, 503)
CONNECT_RETRIES = 3


class Client:
    def __init__(self, endpoint: str, retry_deadline: float = 120.0):
        self.endpoint = endpoint + "/v1"
        self.retry_deadline = retry_deadline
        self.retried: collections.Counter = collections.Counter()
        self.errors: list[str] = []
        self._local = threading.local()
        self._lock = threading.Lock()

    @property
    def session(self) -> requests.Session:
        # One session per thread: a Session is not safe to share.
        if not hasattr(self._local, "session"):
            session = requests.Session()
            session.headers["X-OpenStack-Ironic-API-Version"] = API_VERSION
            self._local.session = session
        return self._local.session

    def request(self, method: str, path: str, **kwargs: Any
                ) -> requests.Response:
        """One request; a connection the server closed under us is tried
        again (counted), as keystoneauth's connect retries do."""
        kwargs.setdefault("timeout", 120)
        for attempt in range(CONNECT_RETRIES + 1):
            try:
                return self.session.request(method, self.endpoint + path,
                                            **kwargs)
            except requests.ConnectionError as e:
                if attempt == CONNECT_RETRIES:
                    raise
                with self._lock:
                    self.retried[("connection", f"{method} "
                                  f"{_short(path.split('?')[0])}: "
                                  f"{_short(str(e))}")] += 1
                time.sleep(0.5)
        raise AssertionError("unreachable")

    def _count(self, resp: requests.Response) -> None:
        try:
            fault = resp.json()["error_message"]
        except ValueError:
            fault = resp.text
        with self._lock:
            self.retried[(resp.status_code, _short(fault))] += 1

    # -- nodes ----------------------------------------------------------------

    def create_node(self, name: str) -> dict:
        resp = self.request("POST", "/nodes", json={
            "name": name, "driver": "fake-hardware"})
        if resp.status_code == 409 and self.retried:
            # A retried POST whose first attempt was created after all.
            return self.get_node(name)
        assert resp.status_code == 201, resp.text
        return resp.json()

    def get_node(self, ident: str) -> dict:
        resp = self.request("GET", f"/nodes/{ident}")
        assert resp.status_code == 200, resp.text
        return resp.json()

    def list_nodes(self, fields: Iterable[str] = ("uuid", "name",
                                                   "provision_state",
                                                   "target_provision_state",
                                                   "reservation",
                                                   "last_error")
                   ) -> list[dict]:
        nodes: list[dict] = []
        url = f"/nodes?fields={','.join(fields)}&limit=1000"
        while url:
            resp = self.request("GET", url)
            assert resp.status_code == 200, resp.text
            body = resp.json()
            nodes += body["nodes"]
            url = body.get("next")
            if url:
                url = url.split("/v1", 1)[1]
        return nodes

    def provision(self, node: dict, target: str,
                  accepted: Callable[[dict], bool]) -> None:
        """Ask for ``target``; retry temporary failures.

        A request that timed out on the API side may still have reached a
        conductor, so after a refusal the node itself says whether the
        earlier attempt was accepted (``accepted(node)``).
        """
        deadline = time.monotonic() + self.retry_deadline
        path = f"/nodes/{node['uuid']}/states/provision"
        while True:
            resp = self.request("PUT", path, json={"target": target})
            if resp.status_code == 202:
                return
            if resp.status_code not in RETRY_STATUSES and \
                    resp.status_code != 400:
                raise AssertionError(f"{target} of {node['uuid']}: "
                                     f"{resp.status_code} {resp.text}")
            self._count(resp)
            current = self.get_node(node["uuid"])
            if accepted(current):
                return
            if resp.status_code == 400:
                raise AssertionError(f"{target} of {node['uuid']} refused "
                                     f"in {current['provision_state']}: "
                                     f"{resp.text}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{target} of {node['uuid']} still "
                                     f"failing after {self.retry_deadline}"
                                     f" s: {resp.status_code} {resp.text}")
            time.sleep(0.5)


def _short(fault: str) -> str:
    """The message of an API error body, without the node's UUID."""
    try:
        fault = json.loads(fault)["faultstring"]
    except (ValueError, KeyError, TypeError):
        pass
    return re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<node>", str(fault))[:160]


def run_parallel(func: Callable[[Any], Any], items: list, threads: int
                 ) -> list:
    """``func`` over ``items`` on ``threads`` threads; re-raises the first
    failure after every item ran."""
    with futures.ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(_capture(func), items))
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise AssertionError(f"{len(failures)} of {len(items)} failed; "
                             f"first: {failures[0]}") from failures[0]
    return results


def _capture(func: Callable) -> Callable:
    def wrapper(item):
        try:
            return func(item)
        except Exception as e:  # noqa: BLE001 - reported by run_parallel
            return e
    return wrapper
