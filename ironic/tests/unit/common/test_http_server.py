"""The built-in HTTP/1.1 server, spoken to over real sockets.

Requests are written byte for byte, so that framing (keep-alive, chunked
bodies, pipelining, malformed heads) is tested as a client sends it.
"""

from __future__ import annotations

import http.client
import json
import select
import socket
import threading
import time

import pytest

from ironic.common import http_server


def echo_app(environ, start_response):
    """Answers with what it saw of the request."""
    body = environ["wsgi.input"].read()
    doc = {"method": environ["REQUEST_METHOD"],
           "path": environ["PATH_INFO"],
           "query": environ["QUERY_STRING"],
           "body": body.decode("latin-1"),
           "length": environ.get("CONTENT_LENGTH"),
           "headers": sorted(k for k in environ if k.startswith("HTTP_")),
           "x_thing": environ.get("HTTP_X_THING")}
    data = json.dumps(doc).encode()
    start_response("200 OK", [("Content-Type", "application/json"),
                              ("Content-Length", str(len(data)))])
    return [data]


class _Unclosable:
    """The shared stream, which HTTPResponse must not close after its
    body."""

    def __init__(self, stream):
        self._stream = stream

    def __getattr__(self, name):
        return getattr(self._stream, name)

    def close(self) -> None:
        pass


class Conn:
    """A client socket whose responses are read from one buffered stream,
    so that bytes read ahead belong to the next response."""

    def __init__(self, port: int, host: str = "127.0.0.1"):
        self.sock = socket.create_connection((host, port), timeout=5)
        self._rfile = self.sock.makefile("rb")

    def makefile(self, mode):
        return _Unclosable(self._rfile)

    def sendall(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, size: int) -> bytes:
        return self._rfile.read1(size)

    def settimeout(self, value) -> None:
        self.sock.settimeout(value)

    def close(self) -> None:
        self._rfile.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Running:
    def __init__(self, app, **kwargs):
        self.server = http_server.Server(("127.0.0.1", 0), app, **kwargs)
        self.server.prepare()
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()
        self.port = self.server.bind_addr[1]

    def socket(self) -> Conn:
        return Conn(self.port)

    def stop(self):
        self.server.stop()
        self.thread.join(10)
        assert not self.thread.is_alive()


class _NoEpoll:
    """The select module of a platform without epoll."""

    def __getattr__(self, name):
        if name.startswith(("epoll", "EPOLL")):
            raise AttributeError(name)
        return getattr(select, name)


@pytest.fixture(params=["epoll", "selector"])
def running(request, monkeypatch):
    if request.param == "selector":
        monkeypatch.setattr(http_server, "select", _NoEpoll())
    servers = []

    def start(app=echo_app, **kwargs):
        servers.append(Running(app, **kwargs))
        return servers[-1]
    yield start
    for server in servers:
        server.stop()


def read_response(sock: Conn, method="GET") -> http.client.HTTPResponse:
    response = http.client.HTTPResponse(sock, method=method)
    response.begin()
    return response


def exchange(sock: Conn, raw: bytes, method="GET"
             ) -> tuple[int, dict, bytes]:
    sock.sendall(raw)
    response = read_response(sock, method)
    return (response.status, {k.lower(): v for k, v in response.getheaders()},
            response.read())


def assert_next_request_served(sock: Conn) -> None:
    """The connection reads its next request from the right place."""
    status, _, body = exchange(sock, b"GET /next HTTP/1.1\r\n\r\n")
    assert (status, json.loads(body)["path"]) == (200, "/next")


def test_keep_alive_serves_requests_one_after_another(running):
    server = running()
    with server.socket() as sock:
        for i in range(3):
            status, headers, body = exchange(
                sock, b"GET /v1/nodes/n%d?fields=uuid HTTP/1.1\r\n"
                      b"Host: x\r\n\r\n" % i)
            assert status == 200
            doc = json.loads(body)
            assert (doc["path"], doc["query"]) == (f"/v1/nodes/n{i}",
                                                   "fields=uuid")
            assert "connection" not in headers
            assert "date" in headers


def test_pipelined_requests_are_answered_in_order(running):
    server = running()
    with server.socket() as sock:
        sock.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                     b"POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                     b"\r\nabc"
                     b"GET /c HTTP/1.1\r\nHost: x\r\n\r\n")
        seen = []
        for _ in range(3):
            response = read_response(sock)
            doc = json.loads(response.read())
            seen.append((doc["method"], doc["path"], doc["body"]))
    assert seen == [("GET", "/a", ""), ("POST", "/b", "abc"),
                    ("GET", "/c", "")]


def test_kept_alive_connections_share_the_thread_that_answers(running):
    threads = set()

    def app(environ, start_response):
        threads.add(threading.get_ident())
        start_response("200 OK", [("Content-Length", "0")])
        return []
    server = running(app)
    sockets = [server.socket() for _ in range(4)]
    for _ in range(3):
        for sock in sockets:
            assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
    for sock in sockets:
        sock.close()
    # No thread per connection: requests that never stall are all answered
    # by the one leader.
    assert len(threads) == 1


def test_a_stalled_request_does_not_hold_up_other_connections(running):
    release = threading.Event()
    threads = {}

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        threads[path] = threading.get_ident()
        if path == "/slow":
            release.wait(10)
        start_response("200 OK", [("Content-Length", "0")])
        return []
    server = running(app)
    slow, quick = server.socket(), server.socket()
    slow.sendall(b"GET /slow HTTP/1.1\r\n\r\n")
    for _ in range(200):
        if "/slow" in threads:
            break
        time.sleep(0.01)
    assert exchange(quick, b"GET /quick HTTP/1.1\r\n\r\n")[0] == 200
    # Answered by a new leader while the first one still waits inside the
    # application.
    assert not release.is_set()
    assert threads["/quick"] != threads["/slow"]
    release.set()
    assert read_response(slow).status == 200
    # Both connections stay usable.
    for sock in (slow, quick):
        assert exchange(sock, b"GET /again HTTP/1.1\r\n\r\n")[0] == 200
        sock.close()


def test_a_client_slow_to_send_its_head_does_not_hold_up_others(running):
    server = running()
    slow, quick = server.socket(), server.socket()
    slow.sendall(b"GET /slow HTTP/1.1\r\nHost:")
    time.sleep(0.1)
    assert exchange(quick, b"GET /quick HTTP/1.1\r\n\r\n")[0] == 200
    status, _, body = exchange(slow, b" x\r\n\r\n")
    assert (status, json.loads(body)["path"]) == (200, "/slow")
    slow.close()
    quick.close()


def test_a_blank_line_between_requests_keeps_the_connection(running):
    server = running()
    with server.socket() as sock:
        assert exchange(sock, b"GET /a HTTP/1.1\r\n\r\n")[0] == 200
        # Some clients end a body with an extra CRLF; the next request may
        # come much later.
        sock.sendall(b"\r\n")
        time.sleep(0.1)
        status, _, body = exchange(sock, b"GET /b HTTP/1.1\r\n\r\n")
        assert (status, json.loads(body)["path"]) == (200, "/b")


def _fail_first_call(monkeypatch, method: str, error: Exception) -> list:
    """Make ``_Watcher.<method>`` raise ``error`` on its first call only;
    the list returned holds the error once it was raised."""
    real = getattr(http_server._Watcher, method)
    raised = []

    def once(self, *args):
        if not raised:
            raised.append(error)
            raise error
        return real(self, *args)
    monkeypatch.setattr(http_server._Watcher, method, once)
    return raised


def test_a_connection_the_watcher_refuses_is_closed_alone(running,
                                                        monkeypatch, caplog):
    server = running()
    _fail_first_call(monkeypatch, "park", OSError("no room"))
    with server.socket() as first:
        first.sendall(b"GET / HTTP/1.1\r\n\r\n")
        try:
            # Closed with the request unread: a reset, or an end.
            assert first.recv(1) == b""
        except ConnectionResetError:
            pass
    with server.socket() as second:
        assert exchange(second, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
    assert "could not watch a connection: no room" in caplog.text


def test_a_failed_leader_is_replaced(running, monkeypatch, caplog):
    server = running()
    with server.socket() as sock:
        assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
        failed = _fail_first_call(monkeypatch, "wait",
                                  RuntimeError("broken"))
        # The leader's next wait fails, whether a request or its timeout
        # ends the one in progress; its successor answers what follows.
        for _ in range(2):
            assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
    assert failed
    assert "leader thread failed" in caplog.text


@pytest.mark.parametrize("head", [
    # Bare line feeds, alone or mixed with CRLFs, are read line by line.
    b"GET /lf HTTP/1.1\nHost: x\nX-Thing: a\n\n",
    b"GET /lf HTTP/1.1\r\nHost: x\nX-Thing: a\r\n\r\n",
    # No header at all.
    b"GET /lf HTTP/1.1\r\n\r\n",
    # The most header lines allowed.
    b"GET /lf HTTP/1.1\r\n"
    + b"X-Thing: a\r\n" * http_server.MAX_HEADERS + b"\r\n",
])
def test_heads_whole_or_line_by_line_read_the_same(running, head):
    server = running()
    with server.socket() as sock:
        status, _, body = exchange(sock, head)
        doc = json.loads(body)
        assert (status, doc["path"]) == (200, "/lf")
        if b"X-Thing" in head:
            assert doc["x_thing"].split(", ")[0] == "a"
        assert_next_request_served(sock)


def test_a_bare_carriage_return_is_not_a_line_end(running):
    server = running()
    with server.socket() as sock:
        status, _, body = exchange(
            sock, b"GET /cr HTTP/1.1\r\nX-Thing: a\rb\r\n\r\n")
        assert (status, json.loads(body)["x_thing"]) == (200, "a\rb")


def test_a_head_in_pieces_is_read_whole(running):
    server = running()
    with server.socket() as sock:
        for piece in (b"GET /p HTTP/1.1\r\nX-Th", b"ing: a\r\n", b"\r\n"):
            sock.sendall(piece)
            time.sleep(0.05)
        response = read_response(sock)
        assert json.loads(response.read())["x_thing"] == "a"


def test_a_large_body_sent_in_pieces_is_read_whole(running):
    server = running()
    body = bytes(range(256)) * 12288  # 3 MiB
    with server.socket() as sock:
        sock.sendall(b"PUT /big HTTP/1.1\r\nContent-Length: %d\r\n\r\n"
                     % len(body) + body[:1000])
        for start in range(1000, len(body), 100000):
            sock.sendall(body[start:start + 100000])
        response = read_response(sock)
        doc = json.loads(response.read())
        assert doc["body"].encode("latin-1") == body
        assert_next_request_served(sock)


def test_chunked_request_body_is_decoded(running):
    server = running()
    with server.socket() as sock:
        status, _, body = exchange(
            sock, b"POST /x HTTP/1.1\r\nHost: x\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n"
                  b"4\r\n{\"a\"\r\n5;ext=1\r\n: 1}\n\r\n0\r\nTrailer: y\r\n\r\n"
                  b"GET /after HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status == 200
        assert json.loads(body)["body"] == '{"a": 1}\n'
        # The connection is still in step for the next request.
        response = read_response(sock)
        assert json.loads(response.read())["path"] == "/after"


def test_malformed_chunk_gives_a_short_body_and_closes(running):
    server = running()
    with server.socket() as sock:
        status, headers, body = exchange(
            sock, b"POST /x HTTP/1.1\r\nHost: x\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n"
                  b"3\r\nabc\r\nzz\r\n")
        assert status == 200
        assert json.loads(body)["body"] == "abc"
        # The rest of the stream cannot be framed: the connection ends.
        assert sock.recv(1) == b""


def test_percent_encoded_path_is_decoded_and_query_is_not(running):
    server = running()
    with server.socket() as sock:
        _, _, body = exchange(sock, b"GET /v1/nodes/a%20b?x=%20 HTTP/1.1\r\n"
                                    b"Host: x\r\n\r\n")
    doc = json.loads(body)
    assert (doc["path"], doc["query"]) == ("/v1/nodes/a b", "x=%20")


def test_an_encoded_slash_stays_encoded(running):
    server = running()
    with server.socket() as sock:
        _, _, body = exchange(sock, b"GET /v1/nodes/a%2fports%41 HTTP/1.1"
                                    b"\r\nHost: x\r\n\r\n")
    assert json.loads(body)["path"] == "/v1/nodes/a%2FportsA"


def test_repeated_headers_are_joined_and_underscored_ones_dropped(running):
    server = running()
    with server.socket() as sock:
        _, _, body = exchange(sock, b"GET / HTTP/1.1\r\nHost: x\r\n"
                                    b"X-Thing: a\r\nX-Thing: b\r\n"
                                    b"X_Thing: spoof\r\n\r\n")
    assert json.loads(body)["x_thing"] == "a, b"


@pytest.mark.parametrize("raw, code", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET /\r\n\r\n", 400),
    (b"GET / HTTP/2.0\r\n\r\n", 505),
    (b"GET / HTTX/1.1\r\n\r\n", 400),
    (b"GET nowhere HTTP/1.1\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nBad name: x\r\n\r\n", 400),
    (b"GET / HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
    (b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
     400),
    (b"POST / HTTP/1.1\r\nContent-Length: 3\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nabc", 400),
    (b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
    (b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
    (b"GET /" + b"a" * (http_server.MAX_LINE + 10) + b" HTTP/1.1\r\n\r\n",
     414),
    (b"GET / HTTP/1.1\r\nX-Big: " + b"a" * (http_server.MAX_LINE + 10)
     + b"\r\n\r\n", 431),
    (b"GET / HTTP/1.1\r\n" + b"X-A: 1\r\n" * (http_server.MAX_HEADERS + 1)
     + b"\r\n", 431),
])
def test_malformed_requests_get_a_4xx_or_5xx_and_a_closed_connection(
        running, raw, code):
    server = running()
    with server.socket() as sock:
        status, headers, _ = exchange(sock, raw)
        assert status == code
        assert headers["connection"] == "close"
        assert sock.recv(1) == b""


def test_a_client_gone_mid_request_line_is_not_an_error(running, caplog):
    server = running()
    with server.socket() as sock:
        sock.sendall(b"GET /half")
        sock.sock.shutdown(socket.SHUT_WR)
        assert read_response(sock).status == 408
    assert "Unexpected error" not in caplog.text
    # The server still answers others.
    with server.socket() as sock:
        assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200


def test_http10_closes_unless_keep_alive_is_asked(running):
    server = running()
    with server.socket() as sock:
        status, headers, _ = exchange(sock, b"GET / HTTP/1.0\r\n\r\n")
        assert (status, headers["connection"]) == (200, "close")
        assert sock.recv(1) == b""
    with server.socket() as sock:
        status, headers, _ = exchange(
            sock, b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assert headers["connection"] == "keep-alive"
        status, _, _ = exchange(
            sock, b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        assert status == 200


def test_connection_close_from_the_client_is_honoured(running):
    server = running()
    with server.socket() as sock:
        _, headers, _ = exchange(sock, b"GET / HTTP/1.1\r\n"
                                       b"Connection: close\r\n\r\n")
        assert headers["connection"] == "close"
        assert sock.recv(1) == b""


def test_expect_continue_gets_an_interim_response(running):
    server = running()
    with server.socket() as sock:
        sock.sendall(b"PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                     b"Expect: 100-continue\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        status, _, body = exchange(sock, b"ok")
        assert (status, json.loads(body)["body"]) == (200, "ok")


def test_head_sends_the_length_but_no_body(running):
    server = running()
    with server.socket() as sock:
        status, headers, body = exchange(
            sock, b"HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n", method="HEAD")
        assert status == 200 and int(headers["content-length"]) > 0
        assert body == b""
        # Nothing stray was sent: the next response starts at once.
        status, _, _ = exchange(sock, b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status == 200


def test_body_without_length_is_chunked_and_write_works(running):
    def app(environ, start_response):
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"first ")

        def rest():
            yield b"second "
            yield b""
            yield b"third"
        return rest()
    server = running(app)
    with server.socket() as sock:
        status, headers, body = exchange(sock, b"GET / HTTP/1.1\r\n\r\n")
        assert headers["transfer-encoding"] == "chunked"
        assert body == b"first second third"
        status, _, body = exchange(sock, b"GET / HTTP/1.1\r\n\r\n")
        assert body == b"first second third"


def test_no_content_statuses_send_no_body(running):
    def app(environ, start_response):
        start_response("204 No Content", [])
        return [b""]
    server = running(app)
    with server.socket() as sock:
        status, headers, _ = exchange(sock, b"DELETE /x HTTP/1.1\r\n\r\n")
        assert status == 204
        assert "content-length" not in headers
        assert "transfer-encoding" not in headers
        status, _, _ = exchange(sock, b"DELETE /x HTTP/1.1\r\n\r\n")
        assert status == 204


def refusing_app(environ, start_response):
    """Answers before reading the body, as a 413 for a declared length."""
    start_response("413 Payload Too Large", [("Content-Length", "0")])
    return []


def test_unread_body_is_drained_to_keep_the_connection(running):
    server = running(refusing_app)
    with server.socket() as sock:
        status, headers, _ = exchange(sock, b"POST / HTTP/1.1\r\n"
                                            b"Content-Length: 5\r\n\r\nabcde")
        assert status == 413 and "connection" not in headers
        status, _, _ = exchange(sock, b"POST / HTTP/1.1\r\n"
                                      b"Content-Length: 0\r\n\r\n")
        assert status == 413


def test_a_large_unread_body_closes_the_connection(running):
    server = running(refusing_app)
    size = http_server.DRAIN_LIMIT * 4
    with server.socket() as sock:
        status, headers, _ = exchange(
            sock, b"POST / HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % size)
        assert status == 413
        assert sock.recv(1) == b""


def test_application_errors_are_a_500_and_a_close(running, caplog):
    def app(environ, start_response):
        raise RuntimeError("boom")
    server = running(app)
    with server.socket() as sock:
        status, headers, _ = exchange(sock, b"GET / HTTP/1.1\r\n\r\n")
        assert (status, headers["connection"]) == (500, "close")
    assert "boom" in caplog.text


def test_error_after_the_head_was_sent_cuts_the_connection(running):
    def app(environ, start_response):
        start_response("200 OK", [("Content-Length", "10")])

        def body():
            yield b"12345"
            raise RuntimeError("mid-body")
        return body()
    server = running(app)
    with server.socket() as sock:
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n")
        response = read_response(sock)
        with pytest.raises(http.client.IncompleteRead):
            response.read()


def test_close_of_the_result_is_called(running):
    closed = threading.Event()

    class Result(list):
        def close(self):
            closed.set()

    def app(environ, start_response):
        start_response("200 OK", [])
        return Result([b"a", b"b"])
    server = running(app)
    with server.socket() as sock:
        assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[2] == b"ab"
    assert closed.wait(5)


def test_slots_bound_the_requests_in_the_application(running):
    inside = []
    peak = []
    release = threading.Event()
    lock = threading.Lock()

    def app(environ, start_response):
        with lock:
            inside.append(1)
            peak.append(len(inside))
        release.wait(5)
        with lock:
            inside.pop()
        start_response("200 OK", [("Content-Length", "0")])
        return []
    server = running(app, threads=2)
    sockets = [server.socket() for _ in range(5)]
    for sock in sockets:
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n")
    time.sleep(0.3)
    with lock:
        waiting_inside = len(inside)
    release.set()
    for sock in sockets:
        assert read_response(sock).status == 200
        sock.close()
    assert waiting_inside == 2
    assert max(peak) == 2


def test_idle_connections_time_out(running):
    server = running(timeout=0.3)
    with server.socket() as sock:
        assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
        sock.settimeout(5)
        assert sock.recv(1) == b""


def test_stop_lets_a_request_in_progress_finish_and_closes_idle_ones(
        running):
    started = threading.Event()

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/slow":
            started.set()
            time.sleep(0.5)
        start_response("200 OK", [("Content-Length", "4")])
        return [b"done"]
    server = running(app)
    idle = server.socket()
    assert exchange(idle, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
    busy = server.socket()
    busy.sendall(b"GET /slow HTTP/1.1\r\n\r\n")
    assert started.wait(5)
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    response = read_response(busy)
    assert (response.status, response.read(),
            response.getheader("Connection")) == (200, b"done", "close")
    assert idle.recv(1) == b""
    stopper.join(10)
    assert not stopper.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1)
    busy.close()
    idle.close()
    # A second stop() is harmless.
    server.server.stop()


def test_ipv6_loopback(running):
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    try:
        server = http_server.Server(("::1", 0), echo_app)
        server.prepare()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        with Conn(server.bind_addr[1], host="::1") as sock:
            assert exchange(sock, b"GET / HTTP/1.1\r\n\r\n")[0] == 200
    finally:
        server.stop()
        thread.join(10)


def test_the_watcher_takes_a_number_left_by_a_socket_closed_unannounced():
    watcher = http_server._Watcher()
    if watcher._epoll is None:
        pytest.skip("epoll only")
    first_a, first_b = socket.socketpair()
    first = http_server._Connection(first_a, None)
    watcher.park(first)
    number = first_a.fileno()
    # Closed without forget(): epoll dropped it, the watcher did not.
    first_a.close()
    second_a, second_b = socket.socketpair()
    try:
        if second_a.fileno() != number:
            pytest.skip("the number was not reused")
        second = http_server._Connection(second_a, None)
        watcher.park(second)
        second_b.sendall(b"x")
        assert watcher.wait(1) == [second]
        watcher.forget(second, parked=False)
        watcher.forget(second, parked=False)
    finally:
        for sock in (first_b, second_a, second_b):
            sock.close()
