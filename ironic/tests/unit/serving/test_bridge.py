"""The ASGI-to-WSGI bridge: head rules, body limits and deadline, and the
WSGI environ it builds."""

from __future__ import annotations

import asyncio
import json

import pytest

from ironic.serving import bridge


def _scope(headers=None, version="1.1", path=b"/v1/nodes", method="POST"):
    return {"type": "http", "http_version": version, "method": method,
            "path": path.decode(), "raw_path": path, "query_string": b"",
            "root_path": "", "scheme": "http",
            "server": ("127.0.0.1", 6385), "client": ("127.0.0.1", 5000),
            "headers": [(b"host", b"localhost:6385")] if headers is None
            else headers}


@pytest.mark.parametrize("headers,version,status", [
    ([], "1.1", 400),
    ([(b"host", b"a"), (b"host", b"b")], "1.1", 400),
    ([(b"host", b"evil.example/<x>")], "1.1", 400),
    ([(b"host", b"a"), (b"content-length", b"2"),
      (b"transfer-encoding", b"chunked")], "1.1", 400),
    ([(b"host", b"a")], "2.0", 505),
    ([(b"host", b"a")] + [(b"x-%d" % i, b"v") for i in range(101)], "1.1",
     431),
    ([(b"host", b"a"), (b"x-big", b"v" * 70000)], "1.1", 431),
])
def test_heads_refused(headers, version, status):
    with pytest.raises(bridge.Refusal) as caught:
        bridge.check_head(_scope(headers, version), 65536)
    assert caught.value.status == status


def test_head_accepted_gives_the_declared_length():
    scope = _scope([(b"host", b"[::1]:6385"), (b"content-length", b"12")])
    assert bridge.check_head(scope, 65536) == 12
    assert bridge.check_head(_scope([], "1.0"), 65536) is None


def test_environ_keeps_encoded_slash_and_drops_underscore_names():
    scope = _scope([(b"host", b"h"), (b"x-auth_token", b"sneaky"),
                    (b"accept", b"a"), (b"accept", b"b"),
                    (b"content-type", b"application/json")],
                   path=b"/v1/nodes/a%2Fports/%41")
    environ = bridge.environ_for(scope, b"{}")
    assert environ["PATH_INFO"] == "/v1/nodes/a%2Fports/A"
    assert "HTTP_X_AUTH_TOKEN" not in environ
    assert environ["HTTP_ACCEPT"] == "a,b"
    assert environ["CONTENT_TYPE"] == "application/json"
    assert environ["CONTENT_LENGTH"] == "2"
    assert environ["wsgi.input"].read() == b"{}"


class _Exchange:
    """Feeds ``messages`` to the bridge and records what it sends."""

    def __init__(self, messages, hang=False):
        self.messages = list(messages)
        self.hang = hang
        self.received = 0
        self.sent = []

    async def receive(self):
        self.received += 1
        if not self.messages:
            await asyncio.sleep(3600 if self.hang else 0)
            return {"type": "http.disconnect"}
        return self.messages.pop(0)

    async def send(self, message):
        self.sent.append(message)

    @property
    def status(self):
        return self.sent[0]["status"]


def _echo_app(seen):
    def app(environ, start_response):
        seen.append(environ["wsgi.input"].read())
        start_response("201 Created", [("Content-Type", "text/plain")])
        return [b"made"]
    return app


def _run(app, scope, exchange, timeout=5.0):
    the_bridge = bridge.WSGIBridge(app, 2, timeout)
    asyncio.run(the_bridge(scope, exchange.receive, exchange.send))
    the_bridge.pool.shutdown()


def test_declared_length_over_the_limit_is_refused_unread(config):
    config("api", max_json_body_size=4)
    seen = []
    exchange = _Exchange([])
    scope = _scope([(b"host", b"h"), (b"content-length", b"5000")])
    _run(_echo_app(seen), scope, exchange)
    # receive() was never awaited, so no "100 Continue" went out.
    assert (exchange.status, exchange.received, seen) == (413, 0, [])
    assert (b"connection", b"close") in exchange.sent[0]["headers"]
    assert "faultstring" in json.loads(exchange.sent[1]["body"])[
        "error_message"]


def test_chunked_body_over_the_limit_stops_being_read(config):
    config("api", max_json_body_size=4)
    chunk = {"type": "http.request", "body": b"x" * 1024, "more_body": True}
    exchange = _Exchange([chunk] * 10)
    _run(_echo_app([]), _scope([(b"host", b"h"),
                                (b"transfer-encoding", b"chunked")]),
         exchange)
    assert exchange.status == 413
    assert exchange.received == 5


def test_body_is_read_whole_before_the_application_runs():
    seen = []
    exchange = _Exchange([
        {"type": "http.request", "body": b'{"a"', "more_body": True},
        {"type": "http.request", "body": b': 1}', "more_body": False}])
    _run(_echo_app(seen), _scope([(b"host", b"h"),
                                  (b"content-length", b"8")]), exchange)
    assert seen == [b'{"a": 1}']
    assert exchange.status == 201
    assert exchange.sent[1]["body"] == b"made"


def test_a_body_that_does_not_arrive_in_time_gets_408():
    seen = []
    exchange = _Exchange([{"type": "http.request", "body": b"{",
                           "more_body": True}], hang=True)
    _run(_echo_app(seen), _scope([(b"host", b"h"),
                                  (b"content-length", b"1000")]),
         exchange, timeout=0.2)
    assert exchange.status == 408
    assert seen == []


def test_a_client_gone_mid_body_runs_nothing():
    seen = []
    exchange = _Exchange([{"type": "http.request", "body": b"{",
                           "more_body": True}])
    _run(_echo_app(seen), _scope([(b"host", b"h"),
                                  (b"content-length", b"10")]), exchange)
    assert seen == [] and exchange.sent == []
