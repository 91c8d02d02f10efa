"""The API over HTTPS and on a unix socket, driven by the real clients.

``[api]enable_ssl_api`` with ``[ssl]cert_file``/``key_file`` (the names
Ironic's operators already use): the ``openstack baremetal`` CLI with
``--os-cacert``, openstacksdk with ``cacert`` and the ramdisk agent's own
client with its ``cafile`` all work; plain HTTP to the port gets no HTTP
answer; ``[ssl]ca_file`` makes client certificates mandatory.
``[api]unix_socket`` serves the same API on a socket file.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import stat
import urllib.request

import pytest
from keystoneauth1 import exceptions as ks_exc

from ironic.tests import tls
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.functional.test_api_workers import ApiService
from ironic.tests.functional.test_ipa_client import ipa
from ironic.tests.hostile.target import Target, simple_get


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return tls.make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def https(tmp_path_factory, pki):
    yield from fconf.run_service(
        tmp_path_factory, "aio-tls", cacert=pki.ca,
        api={"enable_ssl_api": "true", "restrict_lookup": "false"},
        sections={"ssl": {"cert_file": str(pki.cert),
                          "key_file": str(pki.key)}})


def test_cli_and_sdk_work_over_https_with_the_ca(https, pki, unique):
    assert https.endpoint.startswith("https://")
    cli = svc.Cli(https.endpoint, env={"OS_CACERT": str(pki.ca)})
    made = cli.json("node", "create", "--driver", "fake-hardware",
                    "--name", f"tls-{unique}")
    conn = fconf.sdk_connection(https.endpoint, cacert=str(pki.ca))
    assert conn.baremetal.get_node(f"tls-{unique}").id == made["uuid"]
    # Links in answers name the scheme the client used.
    context = ssl.create_default_context(cafile=str(pki.ca))
    with urllib.request.urlopen(https.endpoint + "/v1", context=context,
                                timeout=10) as answer:
        text = answer.read().decode()
    assert f"https://127.0.0.1:{https.port}" in text
    assert "http://" not in text
    conn.close()


def test_a_client_without_the_ca_is_refused_by_itself(https):
    with pytest.raises(ssl.SSLCertVerificationError):
        with socket.create_connection(("127.0.0.1", https.port), 5) as raw:
            ssl.create_default_context().wrap_socket(
                raw, server_hostname="127.0.0.1")


def test_the_agent_client_looks_up_and_heartbeats_over_https(https, pki,
                                                             unique):
    conn = fconf.sdk_connection(https.endpoint, cacert=str(pki.ca))
    node = conn.baremetal.create_node(driver="fake-hardware",
                                      name=f"agent-{unique}")
    mac = "52:54:00:7e:%s:%s" % (unique[:2], unique[2:4])
    conn.baremetal.create_port(node_id=node.id, address=mac)
    looked = ipa(https.endpoint, "--cafile", str(pki.ca), "lookup", mac)
    assert looked["found"]["node"]["uuid"] == node.id
    token = looked["found"]["config"]["agent_token"]
    beat = ipa(https.endpoint, "--cafile", str(pki.ca), "heartbeat",
               node.id, f"--token={token}")
    assert beat["accepted"], beat
    conn.close()


def test_plain_http_to_the_tls_port_gets_no_http_answer(https):
    target = Target(f"http://127.0.0.1:{https.port}")
    status, _seconds = simple_get(target, "/v1/nodes", timeout=5)
    assert status is None


class MutualService(svc.Service):
    """Waited for with the client certificate it demands."""

    client: tls.TestPKI

    def _answers(self) -> bool:
        context = ssl.create_default_context(cafile=str(self.cacert))
        context.load_cert_chain(self.client.client_cert,
                                self.client.client_key)
        try:
            with urllib.request.urlopen(self.endpoint + "/", timeout=2,
                                        context=context) as answer:
                return answer.status == 200
        except OSError:
            return False


@pytest.fixture(scope="module")
def mutual(tmp_path_factory, pki):
    workdir = tmp_path_factory.mktemp("aio-mtls")
    service = MutualService(
        workdir, cacert=pki.ca,
        api={"enable_ssl_api": "true", "cert_file": str(pki.cert),
             "key_file": str(pki.key)},
        sections={"ssl": {"ca_file": str(pki.ca)}})
    service.client = pki
    service.start()
    yield service
    assert service.stop() == 0, service.logs()


def test_ssl_ca_file_requires_a_client_certificate(mutual, pki):
    without = fconf.sdk_connection(mutual.endpoint, cacert=str(pki.ca))
    with pytest.raises((ks_exc.ConnectionError, ks_exc.DiscoveryFailure)):
        list(without.baremetal.nodes())
    without.close()
    with_cert = fconf.sdk_connection(
        mutual.endpoint, cacert=str(pki.ca), cert=str(pki.client_cert),
        key=str(pki.client_key))
    assert list(with_cert.baremetal.nodes()) == []
    with_cert.close()


class UnixService(svc.Service):
    """The all-in-one on [api]unix_socket, waited for over that socket."""

    def _answers(self) -> bool:
        status, _ = simple_get(Target(f"unix://{self.socket_path}"), "/",
                               timeout=2)
        return status == 200

    @property
    def socket_path(self):
        return self.workdir / "ironic.sock"


def test_unix_socket_serves_the_api_with_its_mode(tmp_path):
    (tmp_path / "state").mkdir()
    service = UnixService(tmp_path, api={
        "unix_socket": str(tmp_path / "ironic.sock"),
        "unix_socket_mode": "0660"})
    service.start()
    try:
        mode = stat.S_IMODE(service.socket_path.stat().st_mode)
        assert mode == 0o660
        conn = http.client.HTTPConnection("localhost")
        conn.sock = socket.socket(socket.AF_UNIX)
        conn.sock.connect(str(service.socket_path))
        conn.request("GET", "/v1/nodes")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        code = service.stop()
    assert code == 0, service.logs()
    assert not service.socket_path.exists()


def test_api_workers_serve_https(tmp_path, pki):
    # Spawned workers build their TLS context before they read the
    # configuration: it must come with them.
    (tmp_path / "state").mkdir()
    api = ApiService(tmp_path, cacert=pki.ca, api={
        "api_workers": "2", "enable_ssl_api": "true",
        "cert_file": str(pki.cert), "key_file": str(pki.key)})
    api.start()
    try:
        context = ssl.create_default_context(cafile=str(pki.ca))
        for _ in range(6):
            with urllib.request.urlopen(api.endpoint + "/v1/nodes",
                                        context=context, timeout=10) as r:
                assert r.status == 200
    finally:
        code = api.stop()
    assert code == 0, api.logs()
