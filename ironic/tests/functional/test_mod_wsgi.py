"""``ironic.wsgi:application`` under Apache mod_wsgi, set up from the
sample site (``etc/apache2/ironic.conf``) and WSGI script
(``etc/apache2/ironic-api.wsgi``) the install guide tells operators to
copy, beside an ``ironic-conductor`` on PostgreSQL and RabbitMQ (the
deployment is ``wsgi_servers``'s). Under ``CI=true`` anything missing
fails the tests instead of skipping.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional import wsgi_servers
from ironic.tests.integration import conftest as integration


@pytest.fixture(scope="module")
def deployment(tmp_path_factory):
    """Apache mod_wsgi serving the API and one conductor."""
    with wsgi_servers.split_service("mod_wsgi", tmp_path_factory) as apache:
        yield apache


def check_crud(endpoint: str, workdir: Path) -> None:
    """Nodes and ports created, changed and deleted through the API at
    ``endpoint``; its log in ``workdir/api``, the conductor's output in
    ``workdir/conductor`` (and ``workdir/error.log`` if there is one)."""
    root = svc.get_json(endpoint + "/")
    assert root["default_version"]["version"].startswith("1.")
    conn = fconf.sdk_connection(endpoint)
    bm = conn.baremetal
    node = bm.create_node(driver="fake-hardware", name="wsgi-node",
                          properties={"cpus": 4})
    assert node.name == "wsgi-node"
    port = bm.create_port(address="52:54:00:aa:bb:01", node_id=node.id)
    bm.patch_node(node, [{"op": "add", "path": "/extra/rack",
                          "value": "r1"}])
    shown = bm.get_node("wsgi-node")
    assert shown.extra == {"rack": "r1"}
    assert shown.properties["cpus"] == 4
    assert [p.address for p in bm.ports()] == ["52:54:00:aa:bb:01"]
    # The conductor answers through RabbitMQ: a state change and back.
    bm.set_node_provision_state(node, "manage", wait=True, timeout=60)
    assert bm.get_node(node.id).provision_state == "manageable"
    # And the CLI, once, as an operator would.
    cli = svc.Cli(endpoint, api_version="latest")
    assert cli.json("node", "show", "wsgi-node")["provision_state"] == \
        "manageable"
    # Bad input is the API's 4xx with its error body, not Apache's page.
    request = urllib.request.Request(
        endpoint + "/v1/nodes", data=b'{"driver": 5}',
        headers={"Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as bad:
        urllib.request.urlopen(request, timeout=30)
    assert bad.value.code == 400
    assert "error_message" in json.loads(bad.value.read())
    bm.delete_port(port)
    bm.delete_node(node)
    assert list(bm.nodes()) == []
    conn.close()
    log = (workdir / "api" / "ironic.log").read_text()
    # The service's own request log, written by the daemon process.
    assert '"POST /v1/nodes" status: 201' in log, log[-3000:]
    assert "WSGI application ready" in log
    # Neither the daemon processes (stderr into Apache's error log) nor
    # the conductor print eventlet's banner: it is installed, not used.
    for printed in ("error.log", "conductor/stdout.log"):
        if (workdir / printed).exists():
            text = (workdir / printed).read_text(errors="replace")
            assert "Eventlet is deprecated" not in text, printed


def test_crud_through_mod_wsgi(deployment):
    check_crud(deployment.endpoint, deployment.workdir)


def test_basic_protocol_probes_answered_by_apache(deployment):
    # Apache parses HTTP, not us: the quick parsing probes of the hostile
    # suite, run as an operator would run them.
    result = subprocess.run(
        [sys.executable, "-m", "ironic.tests.hostile", deployment.endpoint,
         "--protocol", "--pid", str(deployment.pid)],
        env=svc._child_env(), capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("file_mode", [0o644, 0o600])
def test_private_tree_made_readable_for_the_daemon_user(file_mode):
    # A checkout or virtualenv under a private home (/root is 0700): the
    # daemon user gets a linked copy, or a real one opened to everyone when
    # the files' own modes shut it out (a link would share those modes).
    if not wsgi_servers.AS_ROOT:
        pytest.skip("without root the daemon processes run as the tests' "
                    "own user, who reads what the tests read")
    if not shutil.which("runuser"):
        integration.unavailable("runuser", "not installed (util-linux)")
    private = Path(tempfile.mkdtemp(prefix="ironic-private-"))
    shared = Path(tempfile.mkdtemp(prefix="ironic-shared-"))
    try:
        private.chmod(0o700)
        shared.chmod(0o755)
        package = private / "pkg"
        package.mkdir()
        (package / "__init__.py").write_text("x = 1\n")
        (package / "__init__.py").chmod(file_mode)
        assert not wsgi_servers.readable_by_user(package / "__init__.py")
        copy = wsgi_servers.make_readable(package, "__init__.py",
                                          shared / "pkg")
        assert copy == shared / "pkg"
        assert wsgi_servers.readable_by_user(copy / "__init__.py")
        # The original keeps its mode either way.
        assert (package / "__init__.py").stat().st_mode & 0o777 == file_mode
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(shared, ignore_errors=True)


def test_apache_refuses_big_inspection_bodies_unread(deployment):
    # The sample's LimitRequestBody: 413 from the declared length, before a
    # daemon thread is taken or a byte of the body is sent.
    host, port = deployment.endpoint.rsplit("/", 1)[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"POST /v1/continue_inspection HTTP/1.1\r\n"
                     f"Host: {host}:{port}\r\n"
                     f"Content-Type: application/json\r\n"
                     f"Content-Length: {3 * 1024 * 1024}\r\n\r\n".encode())
        answer = b""
        while b"</html>" not in answer.lower():
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 "), answer
    # Apache's page, not the service's JSON: mod_wsgi never saw it.
    assert b"Request Entity Too Large" in answer, answer
    assert "POST /v1/continue_inspection" not in (
        deployment.workdir / "api" / "ironic.log").read_text()
    # Within the limit, the service answers (no node to find: 404).
    request = urllib.request.Request(
        deployment.endpoint + "/v1/continue_inspection",
        data=b'{"inventory": {"interfaces": []}}',
        headers={"Content-Type": "application/json",
                 "X-OpenStack-Ironic-API-Version": "latest"},
        method="POST")
    with pytest.raises(urllib.error.HTTPError) as answer:
        urllib.request.urlopen(request, timeout=30)
    assert answer.value.code < 500
    assert "error_message" in json.loads(answer.value.read())
