"""One log line per API request (ironic.api.middleware.request_log)."""

import logging
import re

import pytest

from ironic.api.middleware import request_log

LINE = re.compile(
    r'^(?P<remote>\S+) "(?P<method>\S+) (?P<target>\S+)" '
    r'status: (?P<status>\d{3}) len: (?P<len>\d+|-) '
    r'microversion: (?P<version>\S+) time: (?P<time>\d+\.\d{6}) '
    r'request_id: (?P<rid>\S+)$')


@pytest.fixture
def lines(caplog):
    caplog.set_level(logging.INFO, logger=request_log.LOG.name)

    def read():
        return [LINE.match(r.getMessage()) for r in caplog.records
                if r.name == request_log.LOG.name]
    return read


def test_one_line_per_request_with_its_id(api, lines):
    ok = api.get("/v1/nodes")
    missing = api.get("/v1/nodes/no-such-node")
    first, second = lines()
    assert first["method"] == "GET" and first["target"] == "/v1/nodes"
    assert first["status"] == "200"
    assert int(first["len"]) == len(ok.body)
    assert first["rid"] == ok.headers["x-openstack-request-id"]
    assert first["version"] == api.version
    assert second["status"] == "404"
    assert int(second["len"]) == len(missing.body)
    assert second["rid"] == missing.headers["x-openstack-request-id"]


def test_errors_before_version_negotiation_are_logged(api, lines):
    resp = api.get("/v1/nodes", headers={
        "X-OpenStack-Ironic-API-Version": "1.9999"})
    assert resp.status_int == 406
    (line,) = lines()
    assert line["status"] == "406" and line["version"] == "-"


def test_secret_query_values_never_reach_the_log(api, lines, caplog):
    api.get("/v1/lookup?addresses=52:54:00:12:34:56&agent_token=t0psecret"
            "&node_uuid=x&Password=hunter2&agent%5Ftoken=enc0ded")
    api.get("/v1/nodes?sort_key=name&limit=3")
    logged, listed = lines()
    assert "t0psecret" not in caplog.text
    assert "hunter2" not in caplog.text and "enc0ded" not in caplog.text
    assert logged["target"] == (
        "/v1/lookup?addresses=52:54:00:12:34:56&agent_token=***"
        "&node_uuid=x&Password=***&agent%5Ftoken=***")
    assert listed["target"] == "/v1/nodes?sort_key=name&limit=3"


@pytest.mark.parametrize("query, expected", [
    ("", ""),
    ("limit=1", "limit=1"),
    ("token", "token"),
    ("x_auth=a&y=b", "x_auth=***&y=b"),
    ("secret_key=a=b", "secret_key=***"),
    ("agent+token=abc", "agent+token=***"),
])
def test_scrub_query(query, expected):
    assert request_log.scrub_query(query) == expected


def test_control_characters_cannot_forge_lines():
    environ = {"PATH_INFO": "/v1/nodes/a\nINFO forged\x00",
               "QUERY_STRING": "fields=name\r\n"}
    target = request_log.logged_target(environ)
    assert target.isprintable() and " " not in target
    assert target == "/v1/nodes/a%0AINFO%20forged%00?fields=name%0D%0A"


def test_script_name_is_part_of_the_path():
    assert request_log.logged_target(
        {"SCRIPT_NAME": "/baremetal", "PATH_INFO": "/v1"}) == "/baremetal/v1"


def _app(body, status="201 Created"):
    def app(environ, start_response):
        start_response(status, [("Content-Type", "text/plain")])
        return body
    return app


def test_streamed_answer_is_counted_and_logged_on_close(lines):
    seen = []
    mw = request_log.RequestLogMiddleware(
        _app(iter([b"abc", b"de"])),
        observers=[lambda env, status, secs: seen.append((status, secs))])
    result = mw({"REQUEST_METHOD": "POST", "PATH_INFO": "/x"},
                lambda *a: None)
    assert lines() == []
    assert b"".join(result) == b"abcde"
    result.close()
    (line,) = lines()
    assert line["len"] == "5" and line["status"] == "201"
    assert seen and seen[0][0] == 201 and seen[0][1] >= 0


def test_an_escaping_exception_is_logged_as_500(lines):
    def broken(environ, start_response):
        raise RuntimeError("boom")
    mw = request_log.RequestLogMiddleware(broken)
    with pytest.raises(RuntimeError):
        mw({"REQUEST_METHOD": "GET", "PATH_INFO": "/"}, lambda *a: None)
    (line,) = lines()
    assert line["status"] == "500" and line["len"] == "-"
