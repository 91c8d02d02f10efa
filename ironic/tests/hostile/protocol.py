"""Probes of request parsing: smuggling, framing, header rules (RFC 9112).

Each probe sends one crafted exchange on a fresh connection and judges
what came back. A request hidden inside another one asks for
``HIDDEN_PATH``; seeing a second response means the server executed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ironic.tests.hostile.target import Exchange, Target, exchange

HIDDEN_PATH = "/hostile-smuggled"


@dataclass
class Result:
    name: str
    passed: bool
    detail: str


def _hidden(target: Target) -> bytes:
    return (f"GET {HIDDEN_PATH} HTTP/1.1\r\nHost: {target.host_header}"
            "\r\n\r\n").encode()


def _req(target: Target, headers: list[str], body: bytes = b"",
         method: str = "POST", path: str = "/v1/nodes",
         host: bool = True, version: str = "HTTP/1.1") -> bytes:
    lines = [f"{method} {path} {version}"]
    if host:
        lines.append(f"Host: {target.host_header}")
    lines += headers
    return "\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + body


def _te_smuggle(te_value: str) -> Callable[[Target], list[bytes]]:
    """A Transfer-Encoding the server must not take as chunked, with a
    Content-Length covering the whole body: a front end that honours the
    length forwards it whole; a server that takes it as chunked would
    answer the request hidden after the empty chunk."""
    def build(target: Target) -> list[bytes]:
        body = b"0\r\n\r\n" + _hidden(target)
        return [_req(target, [f"Content-Length: {len(body)}",
                              f"Transfer-Encoding: {te_value}"], body)]
    return build


def _te_lines(lines: list[str]) -> Callable[[Target], list[bytes]]:
    """Like ``_te_smuggle`` with the Transfer-Encoding field malformed."""
    def build(target: Target) -> list[bytes]:
        body = b"0\r\n\r\n" + _hidden(target)
        return [_req(target, [f"Content-Length: {len(body)}", *lines], body)]
    return build


def _cl_te(target: Target) -> list[bytes]:
    body = b"0\r\n\r\n" + _hidden(target)
    return [_req(target, [f"Content-Length: {len(body)}",
                          "Transfer-Encoding: chunked"], body)]


def _te_cl(target: Target) -> list[bytes]:
    body = b"0\r\n\r\n" + _hidden(target)
    return [_req(target, ["Transfer-Encoding: chunked",
                          f"Content-Length: {len(body)}"], body)]


def _cl_te_then_next(target: Target) -> list[bytes]:
    """CL and TE together, framed consistently, then an ordinary request:
    RFC 9112 6.1 says the connection must be closed after the answer."""
    body = b"2\r\n{}\r\n0\r\n\r\n"
    return [_req(target, [f"Content-Length: {len(body)}",
                          "Transfer-Encoding: chunked",
                          "Content-Type: application/json"], body),
            _hidden(target)]


def _dup_cl(target: Target) -> list[bytes]:
    return [_req(target, ["Content-Length: 2", "Content-Length: 40"],
                 b"{}" + _hidden(target))]


def _cl_value(value: str) -> Callable[[Target], list[bytes]]:
    def build(target: Target) -> list[bytes]:
        return [_req(target, [f"Content-Length: {value}",
                              "Content-Type: application/json"],
                     b"{}" + _hidden(target))]
    return build


def _chunked(chunks: bytes) -> Callable[[Target], list[bytes]]:
    """A chunked body the API reads (to refuse it: no driver), followed by
    a request a server that lost the framing would answer."""
    def build(target: Target) -> list[bytes]:
        return [_req(target, ["Transfer-Encoding: chunked",
                              "Content-Type: application/json"],
                     chunks + _hidden(target))]
    return build


def _header(line: str, method: str = "GET", path: str = "/v1"
            ) -> Callable[[Target], list[bytes]]:
    def build(target: Target) -> list[bytes]:
        return [_req(target, [line], method=method, path=path)]
    return build


def _raw(builder: Callable[[Target], bytes]
         ) -> Callable[[Target], list[bytes]]:
    return lambda target: [builder(target)]


def _no_host(target: Target) -> list[bytes]:
    return [_req(target, [], method="GET", path="/v1", host=False)]


def _two_hosts(target: Target) -> list[bytes]:
    return [_req(target, ["Host: other.example"], method="GET", path="/v1")]


def _bad_host(target: Target) -> list[bytes]:
    return [b"GET /v1 HTTP/1.1\r\nHost: evil.example/<x>\"\r\n\r\n"]


def _many_headers(count: int, size: int) -> Callable[[Target], list[bytes]]:
    def build(target: Target) -> list[bytes]:
        return [_req(target, [f"X-Flood-{i}: {'a' * size}"
                              for i in range(count)],
                     method="GET", path="/v1")]
    return build


def _expect_continue_huge(target: Target) -> list[bytes]:
    return [_req(target, ["Content-Length: 2147483648",
                          "Content-Type: application/json",
                          "Expect: 100-continue"])]


def _pipelined(target: Target) -> list[bytes]:
    one = _req(target, [], method="GET", path="/v1")
    return [one + one]


# Judgements -------------------------------------------------------------

#: What a server may answer a malformed or oversized request with.
REFUSALS = (400, 413, 414, 431, 501, 505)


def rejected(ex: Exchange) -> tuple[bool, str]:
    """Refused as malformed, and nothing hidden executed."""
    statuses = ex.statuses
    ok = statuses[:1] and statuses[0] in REFUSALS and len(statuses) == 1
    return ok, f"statuses {statuses}, closed={ex.closed}"


def not_smuggled(ex: Exchange) -> tuple[bool, str]:
    """At most one answer (never a 500): the hidden request never ran."""
    statuses = ex.statuses
    ok = len(statuses) <= 1 and 500 not in statuses
    return ok, f"statuses {statuses}, closed={ex.closed}"


def closed_after_answer(ex: Exchange) -> tuple[bool, str]:
    """One answer, and no answer to the next request on the connection."""
    statuses = ex.statuses
    ok = len(statuses) == 1 and statuses[0] != 500
    return ok, f"statuses {statuses}, closed={ex.closed}"


def framing_safe(ex: Exchange) -> tuple[bool, str]:
    """Refused, or answered and the connection closed: nothing after the
    broken framing was taken as a request."""
    statuses = ex.statuses
    ok = (len(statuses) <= 1 and 500 not in statuses and
          (ex.closed or statuses[:1] == [400] or not statuses))
    return ok, f"statuses {statuses}, closed={ex.closed}"


def accepted(ex: Exchange) -> tuple[bool, str]:
    """Parsed as a valid request: answered by the API itself (its JSON
    error for the empty node is fine), never 500."""
    statuses = ex.statuses
    ok = (bool(statuses) and statuses[0] < 500 and
          (statuses[0] != 400 or b"error_message" in ex.data))
    return ok, f"statuses {statuses}"


def answered_all(count: int) -> Callable[[Exchange], tuple[bool, str]]:
    def judge(ex: Exchange) -> tuple[bool, str]:
        statuses = ex.statuses
        return (len(statuses) == count and all(s < 400 for s in statuses),
                f"statuses {statuses}")
    return judge


def no_continue_then_413(ex: Exchange) -> tuple[bool, str]:
    statuses = ex.statuses
    return statuses[:1] == [413], f"statuses {statuses}"


def not_reflected(ex: Exchange) -> tuple[bool, str]:
    statuses = ex.statuses
    ok = (bool(statuses) and statuses[0] != 500
          and b"evil.example" not in ex.data)
    return ok, f"statuses {statuses}, reflected={b'evil.example' in ex.data}"


@dataclass
class Probe:
    name: str
    build: Callable[[Target], list[bytes]]
    judge: Callable[[Exchange], tuple[bool, str]]
    pause: float = 0.0

    def run(self, target: Target) -> Result:
        try:
            ex = exchange(target, self.build(target), pause=self.pause)
        except OSError as e:
            return Result(self.name, False, f"connection failed: {e}")
        passed, detail = self.judge(ex)
        return Result(self.name, passed, detail)


PROBES = [
    # Transfer-Encoding values that are not the token "chunked".
    Probe("te-vt-chunked", _te_smuggle("\x0bchunked"), not_smuggled),
    Probe("te-chunked-vt", _te_smuggle("chunked\x0b"), not_smuggled),
    Probe("te-nbsp-chunked", _te_smuggle("\xa0chunked"), not_smuggled),
    Probe("te-nel-chunked", _te_smuggle("\x85chunked"), not_smuggled),
    Probe("te-ff-chunked", _te_smuggle("\x0cchunked"), not_smuggled),
    Probe("te-xchunked", _te_smuggle("xchunked"), not_smuggled),
    Probe("te-chunked-quoted", _te_smuggle('"chunked"'), not_smuggled),
    Probe("te-identity-chunked", _te_smuggle("identity, chunked"),
          not_smuggled),
    Probe("te-space-before-colon", _te_lines(["Transfer-Encoding : chunked"]),
          not_smuggled),
    Probe("te-obs-fold", _te_lines(["Transfer-Encoding:", " chunked"]),
          not_smuggled),
    # Content-Length and Transfer-Encoding together (RFC 9112 6.1).
    Probe("cl-then-te", _cl_te, not_smuggled),
    Probe("te-then-cl", _te_cl, not_smuggled),
    Probe("cl-te-connection-closed", _cl_te_then_next, closed_after_answer,
          pause=0.3),
    Probe("duplicate-cl-differing", _dup_cl, rejected),
    Probe("cl-negative", _cl_value("-1"), rejected),
    Probe("cl-plus-sign", _cl_value("+2"), rejected),
    Probe("cl-hex", _cl_value("0x2"), rejected),
    Probe("cl-list-differing", _cl_value("2, 40"), rejected),
    Probe("cl-huge", _cl_value("99999999999999999999999"), rejected),
    # Chunk sizes and framing.
    Probe("chunk-size-huge", _chunked(
        b"fffffffffffffffffffffff\r\n{}\r\n0\r\n\r\n"), framing_safe),
    Probe("chunk-size-negative", _chunked(b"-2\r\n{}\r\n0\r\n\r\n"),
          framing_safe),
    Probe("chunk-size-junk", _chunked(b"2zz\r\n{}\r\n0\r\n\r\n"), framing_safe),
    Probe("chunk-size-0x", _chunked(b"0x2\r\n{}\r\n0\r\n\r\n"), framing_safe),
    Probe("chunk-size-empty", _chunked(b"\r\n{}\r\n0\r\n\r\n"), framing_safe),
    Probe("chunk-data-overrun", _chunked(
        b"2\r\n{}xx\r\n0\r\n\r\n"), not_smuggled),
    Probe("chunk-extension-valid", _chunked(
        b"2;name=value\r\n{}\r\n0\r\n\r\n"), accepted),
    Probe("chunk-extension-ctl", _chunked(
        b"2;na\x00me\r\n{}\r\n0\r\n\r\n"), framing_safe),
    Probe("chunk-truncated", _chunked(b"a\r\n{}"), not_smuggled),
    # Header names and values (RFC 9110 5.1, 5.5; RFC 9112 5).
    Probe("header-value-cr", _header("X-Probe: a\rb"), rejected),
    Probe("header-value-nul", _header("X-Probe: a\x00b"), rejected),
    Probe("header-name-space", _header("X Probe: a"), rejected),
    Probe("header-name-nul", _header("X-Pr\x00be: a"), rejected),
    Probe("header-name-empty", _header(": a"), rejected),
    # RFC 9112 5.2: refused, or unfolded into one value.
    Probe("header-obs-fold", _header("X-Probe: a\r\n b"), not_smuggled),
    Probe("header-no-colon", _header("X-Probe"), rejected),
    Probe("host-missing-http11", _no_host, rejected),
    Probe("host-duplicate", _two_hosts, rejected),
    Probe("host-invalid-not-reflected", _bad_host, not_reflected),
    Probe("headers-500x100B", _many_headers(500, 100), rejected),
    Probe("header-one-100KiB", _many_headers(1, 100 * 1024), rejected),
    Probe("headers-total-256KiB", _many_headers(64, 4000), rejected),
    Probe("request-line-64KiB", _raw(
        lambda t: f"GET /{'a' * 65536} HTTP/1.1\r\nHost: "
                  f"{t.host_header}\r\n\r\n".encode()), rejected),
    Probe("request-line-bare-cr", _raw(
        lambda t: f"GET /v1\rX HTTP/1.1\r\nHost: {t.host_header}\r\n\r\n"
        .encode()), rejected),
    Probe("http-version-2", _raw(lambda t: _req(
        t, [], method="GET", path="/v1", version="HTTP/2.0")), rejected),
    Probe("expect-continue-413", _expect_continue_huge,
          no_continue_then_413),
    # Sanity: two pipelined requests are both answered, in order.
    Probe("pipelined-two", _pipelined, answered_all(2)),
]


def run_all(target: Target, only: str | None = None) -> list[Result]:
    return [p.run(target) for p in PROBES
            if only is None or only in p.name]
