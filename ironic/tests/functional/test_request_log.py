"""The running service writes one line per request to its log file."""

import re
import time
import urllib.error
import urllib.request

# Bound on how long a line may take to reach the file (it is written
# before the answer leaves, so it is normally there at once).
LOG_DEADLINE = 10.0


def _call(url: str, method: str = "GET", data: bytes | None = None):
    req = urllib.request.Request(url, method=method, data=data, headers={
        "Content-Type": "application/json",
        "X-OpenStack-Ironic-API-Version": "1.80"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def _line_for(log_path, rid: str) -> str:
    deadline = time.monotonic() + LOG_DEADLINE
    while True:
        found = [ln for ln in log_path.read_text().splitlines()
                 if "ironic.api.request_log" in ln and rid in ln]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, found
            return found[0]
        time.sleep(0.05)


def test_each_request_is_one_log_line(service, unique):
    status, headers, body = _call(
        f"{service.endpoint}/v1/nodes", "POST",
        f'{{"driver": "fake-hardware", "name": "log-{unique}"}}'.encode())
    assert status == 201
    line = _line_for(service.log_path, headers["X-OpenStack-Request-Id"])
    assert re.search(
        rf'127\.0\.0\.1 "POST /v1/nodes" status: 201 len: {len(body)} '
        r'microversion: 1\.80 time: \d+\.\d{6} request_id: req-', line)

    status, headers, body = _call(
        f"{service.endpoint}/v1/nodes/log-{unique}?fields=name,uuid")
    line = _line_for(service.log_path, headers["X-OpenStack-Request-Id"])
    assert (f'"GET /v1/nodes/log-{unique}?fields=name,uuid" status: 200 '
            f'len: {len(body)} ') in line


def test_agent_token_in_a_query_is_not_logged(service):
    secret = "tok-4f1c2a9e7d"
    status, headers, _ = _call(
        f"{service.endpoint}/v1/lookup?addresses=52:54:00:aa:bb:cc"
        f"&agent_token={secret}")
    line = _line_for(service.log_path, headers["X-OpenStack-Request-Id"])
    assert "agent_token=***" in line and f"status: {status}" in line
    assert secret not in service.log_path.read_text()
