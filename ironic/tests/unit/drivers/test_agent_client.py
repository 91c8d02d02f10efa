"""The agent command client against a real HTTP server on loopback.

The server answers with scripted responses (the agent's wire shapes) and
records what it received, so the tests see the requests the client really
sends and the errors it makes of real HTTP failures.
"""

from __future__ import annotations

import http.server
import json
import os
import ssl
import threading
import urllib.parse

import pytest

from ironic.common import agent_token
from ironic.drivers.modules import agent_client
from ironic.tests.emulators import agent as agent_emu


class _Script:
    """Answers queued per method; records the requests."""

    def __init__(self):
        self.answers = {"GET": [], "POST": []}
        self.requests: list[dict] = []

    def queue(self, method, status, body=None, drop=False):
        self.answers[method].append((status, body, drop))


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def _serve(self):
        script = self.server.script
        parsed = urllib.parse.urlparse(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        script.requests.append({
            "method": self.command, "path": parsed.path,
            "query": dict(urllib.parse.parse_qsl(parsed.query)),
            "body": json.loads(body) if body else None})
        queue = script.answers[self.command]
        status, answer, drop = queue.pop(0) if queue else (500, None, False)
        if drop:
            # The connection dies without an answer.
            self.close_connection = True
            self.connection.shutdown(2)
            return
        data = answer.encode() if isinstance(answer, str) else \
            json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _serve


@pytest.fixture
def server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.script = _Script()
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,),
                              daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


class _Node:
    """What the client reads of a node."""

    def __init__(self, url, **internal):
        self.id = 7
        self.uuid = "1be26c0b-03f2-4d2e-ae87-c02d7f33c123"
        self.driver_internal_info = dict(internal, agent_url=url)
        self.driver_info = {"ipmi_password": "secret", "ipmi_address": "x"}
        self.instance_info = {"image_source": "http://i/img"}

    def as_dict(self):
        return {"uuid": self.uuid, "driver_info": self.driver_info,
                "instance_info": self.instance_info,
                "driver_internal_info": self.driver_internal_info}


@pytest.fixture
def node(server, config):
    config("agent", max_command_attempts=2, command_wait_interval=0,
           command_timeout=5)
    node = _Node(f"http://127.0.0.1:{server.server_address[1]}")
    token = agent_token.issue(node)
    yield node, token
    agent_token.wipe(node)


def _result(name, status="SUCCEEDED", result=None, error=None):
    return {"id": "c1", "command_name": name, "command_status": status,
            "command_result": result, "command_error": error}


def test_command_sends_name_params_wait_and_token(server, node):
    node, token = node
    server.script.queue("POST", 200, _result("get_partition_uuids",
                                             result={"root uuid": "r"}))
    client = agent_client.AgentClient(node)
    assert client.get_partition_uuids() == {"root uuid": "r"}
    [req] = server.script.requests
    assert req["method"] == "POST" and req["path"] == "/v1/commands/"
    assert req["query"] == {"wait": "true", "agent_token": token}
    assert req["body"] == {"name": "standby.get_partition_uuids",
                           "params": {}}


def test_execute_step_sends_the_node_masked(server, node):
    node, _token = node
    server.script.queue("POST", 200, _result("execute_clean_step",
                                             "RUNNING"))
    step = {"interface": "deploy", "step": "erase_devices", "priority": 10}
    result = agent_client.AgentClient(node).execute_step(
        "clean", step, [], {"generic_hardware_manager": "1.2"})
    assert result["command_status"] == "RUNNING"
    [req] = server.script.requests
    assert req["query"]["wait"] == "false"
    params = req["body"]["params"]
    assert params["step"] == step and params["ports"] == []
    assert params["clean_version"] == {"generic_hardware_manager": "1.2"}
    sent = params["node"]
    assert sent["driver_info"]["ipmi_password"] == "******"
    assert sent["driver_info"]["ipmi_address"] == "x"
    assert sent["driver_internal_info"]["agent_secret_token"] == "******"


def test_busy_agent_is_agent_in_progress(server, node):
    node, _token = node
    server.script.queue("POST", 409, {
        "faultcode": "Client",
        "faultstring": "Agent is busy: executing command prepare_image"})
    with pytest.raises(agent_client.AgentInProgress) as err:
        agent_client.AgentClient(node).power_off()
    assert "prepare_image" in str(err.value)


@pytest.mark.parametrize("status,body,words", [
    (401, {"faultcode": "Client",
           "faultstring": "401 Unauthorized: Token invalid."},
     "Token invalid"),
    (400, {"faultcode": "Client",
           "faultstring": "Invalid command: Unknown command: nope"},
     "Unknown command"),
    (500, "<html>proxy error</html>", "proxy error"),
])
def test_refusals_are_command_errors(server, node, status, body, words):
    node, _token = node
    server.script.queue("POST", status, body)
    with pytest.raises(agent_client.AgentCommandError) as err:
        agent_client.AgentClient(node).sync()
    assert f"HTTP {status}" in str(err.value) and words in str(err.value)


def test_failed_sync_command_raises_with_the_agent_error(server, node):
    node, _token = node
    server.script.queue("POST", 200, _result(
        "get_clean_steps", "FAILED",
        error={"type": "CommandExecutionError", "code": 500,
               "message": "Command execution failed",
               "details": "no disks found"}))
    with pytest.raises(agent_client.AgentCommandError) as err:
        agent_client.AgentClient(node).get_steps("clean", [])
    assert "no disks found" in str(err.value)


def test_unreachable_agent_after_max_attempts(node, config):
    node, _token = node
    with socket_closed() as port:
        node.driver_internal_info["agent_url"] = f"http://127.0.0.1:{port}"
        with pytest.raises(agent_client.AgentConnectionFailed) as err:
            agent_client.AgentClient(node).power_off()
    assert "standby.power_off" in str(err.value)


class socket_closed:
    """A loopback port nothing listens on."""

    def __enter__(self):
        import socket
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.sock = sock
        return sock.getsockname()[1]

    def __exit__(self, *exc):
        self.sock.close()


def test_lost_answer_is_not_sent_twice(server, node):
    """The agent got the command but the answer was lost: the client asks
    for the status instead of starting the command again."""
    node, _token = node
    server.script.queue("POST", 200, None, drop=True)
    server.script.queue("GET", 200, {"commands": [
        _result("prepare_image", "RUNNING")]})
    result = agent_client.AgentClient(node).prepare_image({"id": "x"})
    assert result["command_status"] == "RUNNING"
    assert [r["method"] for r in server.script.requests] == ["POST", "GET"]


def test_connection_failure_is_retried(server, node):
    node, _token = node
    server.script.queue("POST", 200, None, drop=True)
    server.script.queue("GET", 200, {"commands": []})
    server.script.queue("POST", 200, _result("sync"))
    assert agent_client.AgentClient(node).sync()["command_status"] == \
        "SUCCEEDED"
    assert [r["method"] for r in server.script.requests] == \
        ["POST", "GET", "POST"]


def test_install_bootloader_polls_until_done(server, node):
    node, _token = node
    server.script.queue("POST", 200, _result("install_bootloader",
                                             "RUNNING"))
    server.script.queue("GET", 200, {"commands": [
        _result("install_bootloader", "RUNNING")]})
    server.script.queue("GET", 200, {"commands": [
        _result("install_bootloader")]})
    result = agent_client.AgentClient(node).install_bootloader(
        "0x1234", "uefi")
    assert result["command_status"] == "SUCCEEDED"
    post = server.script.requests[0]["body"]
    assert post == {"name": "image.install_bootloader",
                    "params": {"root_uuid": "0x1234",
                               "efi_system_part_uuid": None,
                               "prep_boot_part_uuid": None,
                               "target_boot_mode": "uefi"}}
    assert len(server.script.requests) == 3


def test_last_command_and_its_failure(server, node):
    node, _token = node
    server.script.queue("GET", 200, {"commands": [
        _result("get_deploy_steps"),
        _result("execute_deploy_step", "FAILED",
                error={"details": "disk on fire"})]})
    last = agent_client.AgentClient(node).last_command(
        "deploy.execute_deploy_step")
    assert agent_client.command_error(last) == "disk on fire"
    assert server.script.requests[0]["query"]["agent_token"]


def test_no_agent_url(node):
    node, _token = node
    node.driver_internal_info.pop("agent_url")
    with pytest.raises(agent_client.AgentConnectionFailed):
        agent_client.AgentClient(node).commands()


# ---------------------------------------------------------------------------
# TLS with the certificate the agent sent

@pytest.fixture
def tls_server(server, tmp_path):
    cert, key = agent_emu._self_signed()
    (tmp_path / "cert.pem").write_text(cert)
    (tmp_path / "key.pem").write_text(key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    return server, str(tmp_path / "cert.pem")


def test_tls_verified_with_the_agents_certificate(tls_server, node):
    server, cert_path = tls_server
    node, _token = node
    node.driver_internal_info.update(
        agent_url=f"https://127.0.0.1:{server.server_address[1]}",
        agent_verify_ca=cert_path)
    server.script.queue("GET", 200, {"commands": []})
    assert agent_client.AgentClient(node).commands() == []


def test_tls_refused_without_the_certificate(tls_server, node, config):
    server, _cert = tls_server
    node, _token = node
    config("agent", verify_ca="True")
    node.driver_internal_info["agent_url"] = \
        f"https://127.0.0.1:{server.server_address[1]}"
    # The system store does not know the agent's self-signed certificate.
    os.environ.pop("REQUESTS_CA_BUNDLE", None)
    with pytest.raises(agent_client.AgentConnectionFailed):
        agent_client.AgentClient(node).commands(retry=False)
