"""``ironic.wsgi:application`` under Apache mod_wsgi, set up from the
sample site (``etc/apache2/ironic.conf``) and WSGI script
(``etc/apache2/ironic-api.wsgi``) the install guide tells operators to
copy, beside an ``ironic-conductor`` on PostgreSQL and RabbitMQ.

Apache runs as a private instance (its own ServerRoot, PidFile, loopback
port and runtime directory; the system's apache2 is never touched). Run by
root, its daemon processes run as ``www-data`` (mod_wsgi refuses root):
when that user cannot read the checkout or the Python packages (a checkout
under /root), they are linked or copied into the test's temporary
directory. Run by anyone else, Apache and the daemon processes keep that
user.
Under ``CI=true`` anything missing fails the tests instead of skipping.

The sample's paths, port, user and TLS lines are swapped for the test's;
``python-home`` becomes ``python-path``: mod_wsgi runs Debian's Python,
and the test's packages live in the virtualenv running the tests.
"""

from __future__ import annotations

import contextlib
import grp
import importlib.util
import json
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest

from ironic.tests import dbutils, entry_points
from ironic.tests.functional import conftest as fconf
from ironic.tests.functional import service as svc
from ironic.tests.integration import conftest as integration

APACHE = Path("/usr/sbin/apache2")
MODULES = Path("/usr/lib/apache2/modules")
# Root's Apache switches its processes to www-data (mod_wsgi refuses to
# run daemon processes as root); anyone else's Apache and daemon
# processes keep the user who started them.
AS_ROOT = os.geteuid() == 0
USER = "www-data" if AS_ROOT else pwd.getpwuid(os.geteuid()).pw_name
GROUP = "www-data" if AS_ROOT else grp.getgrgid(os.getegid()).gr_name
SAMPLE_SITE = svc.REPO_ROOT / "etc" / "apache2" / "ironic.conf"
SAMPLE_SCRIPT = svc.REPO_ROOT / "etc" / "apache2" / "ironic-api.wsgi"
# Bounds against a hang, not tuned waits.
START_DEADLINE = 90.0


def _require_apache() -> None:
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    missing = [str(p) for p in (APACHE, MODULES / "mod_wsgi.so")
               if not p.exists()]
    if missing:
        integration.unavailable(
            "Apache mod_wsgi", f"missing {', '.join(missing)} (installed "
            f"by tools/install-system-deps.sh)")
    # Debian names each build after the Python it embeds.
    built_for = sorted(p.name.rsplit("-", 1)[1]
                       for p in MODULES.glob("mod_wsgi.so-*"))
    if built_for and version not in built_for:
        integration.unavailable(
            "Apache mod_wsgi", f"mod_wsgi embeds Python {built_for}, the "
            f"tests run {version}")


def _readable_by_user(path: Path) -> bool:
    if not AS_ROOT:
        return os.access(path, os.R_OK)
    return subprocess.run(["runuser", "-u", USER, "--", "test", "-r",
                           str(path)], capture_output=True).returncode == 0


def _make_readable(tree: Path, marker: str, copy: Path) -> Path:
    """``tree``, or a copy at ``copy`` when ``USER`` cannot read
    ``tree/marker`` (a checkout or virtualenv under a private home such as
    /root). Hard links first: instant, and the files keep their own modes;
    when those modes shut the user out too, or the temporary directory is
    on another filesystem, a real copy opened to everyone."""
    if _readable_by_user(tree / marker):
        return tree
    ignore = shutil.ignore_patterns("__pycache__", ".git", ".tox")
    try:
        shutil.copytree(tree, copy, symlinks=True, ignore=ignore,
                        copy_function=os.link)
    except (OSError, shutil.Error):
        shutil.rmtree(copy, ignore_errors=True)
    if not copy.exists() or not _readable_by_user(copy / marker):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy, symlinks=True, ignore=ignore)
        subprocess.run(["chmod", "-R", "a+rX", str(copy)], check=True)
    if not _readable_by_user(copy / marker):
        integration.unavailable(
            "Apache mod_wsgi", f"{USER}, which mod_wsgi's daemon "
            f"processes run as, cannot read {copy / marker}")
    return copy


def _python_path(workdir: Path) -> list[str]:
    """The checkout's package, its published entry points and the
    packages of the Python running the tests, where the daemon user can
    read them (copied under ``workdir`` when it cannot read the
    originals)."""
    # Where the test's packages are (pecan stands for them all).
    site = str(Path(importlib.util.find_spec("pecan").origin).parents[1])
    source = _make_readable(svc.REPO_ROOT / "ironic", "__init__.py",
                            workdir / "src" / "ironic").parent
    packages = _make_readable(Path(site), "pecan/__init__.py",
                              workdir / "site-packages")
    paths = []
    for i, published in enumerate(entry_points.child_pythonpath()):
        if Path(published).resolve() == svc.REPO_ROOT:
            continue
        copy = workdir / f"eps{i}"
        shutil.copytree(published, copy)
        paths.append(str(copy))
    return paths + [str(source), str(packages)]


def apache_site(port: int, workdir: Path, script: Path,
                python_path: list[str]) -> str:
    """The sample site with the test's port, paths and user, without TLS."""
    text = SAMPLE_SITE.read_text()
    text = text.replace("Listen 6385", f"Listen 127.0.0.1:{port}")
    text = text.replace("<VirtualHost *:6385>",
                        f"<VirtualHost 127.0.0.1:{port}>")
    text = text.replace("user=ironic group=ironic",
                        f"user={USER} group={GROUP}")
    text = text.replace("python-home=/opt/ironic",
                        "python-path=" + ":".join(python_path))
    text = text.replace("/etc/ironic/ironic-api.wsgi", str(script))
    text = text.replace("<Directory /etc/ironic>",
                        f"<Directory {script.parent}>")
    text = text.replace("<Files ironic-api.wsgi>", f"<Files {script.name}>")
    text = text.replace("${APACHE_LOG_DIR}", str(workdir))
    # One process keeps the test light; it gets the sample's request slots
    # (processes x threads), which the slow-body floods are sized against.
    text = re.sub(r"processes=(\d+) threads=(\d+)",
                  lambda m: f"processes=1 threads="
                            f"{int(m.group(1)) * int(m.group(2))}", text)
    lines = [line for line in text.splitlines()
             if not line.strip().startswith("SSL")]
    return "\n".join(lines) + "\n"


def apache_config(port: int, workdir: Path, site: str) -> str:
    """A whole httpd.conf for a private instance: what Debian's
    apache2.conf and ``a2enmod wsgi reqtimeout rewrite`` would provide."""
    # (log_config is built into Debian's apache2.)
    modules = ["mpm_event", "authz_core", "reqtimeout", "rewrite", "wsgi"]
    head = [f"ServerRoot {workdir}", "ServerName 127.0.0.1",
            f"PidFile {workdir}/httpd.pid",
            f"DefaultRuntimeDir {workdir}",
            f"ErrorLog {workdir}/error.log", "LogLevel info",
            f"User {USER}", f"Group {GROUP}",
            f"WSGISocketPrefix {workdir}/wsgi"]
    head += [f"LoadModule {name}_module {MODULES}/mod_{name}.so"
             for name in modules]
    return "\n".join(head) + "\n" + site


class Apache:
    def __init__(self, workdir: Path, port: int):
        self.workdir = workdir
        self.conf = workdir / "httpd.conf"
        self.endpoint = f"http://127.0.0.1:{port}"

    def start(self) -> None:
        # The daemon processes' Python would read PYTHONPATH (the
        # checkout, maybe unreadable for them): python-path says it all.
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "PYTHONHOME")}
        started = subprocess.run(
            [str(APACHE), "-f", str(self.conf), "-k", "start"],
            capture_output=True, text=True, timeout=30, env=env)
        if started.returncode:
            raise svc.ServiceError(f"apache2 did not start:\n"
                                   f"{started.stdout}{started.stderr}\n"
                                   f"{self.logs()}")

    @property
    def pid(self) -> int | None:
        try:
            return int((self.workdir / "httpd.pid").read_text())
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        pid = self.pid
        subprocess.run([str(APACHE), "-f", str(self.conf), "-k", "stop"],
                       capture_output=True, timeout=30)
        deadline = time.monotonic() + 20
        while pid and Path(f"/proc/{pid}").exists() and \
                time.monotonic() < deadline:
            time.sleep(0.1)

    def logs(self) -> str:
        parts = []
        for name in ("error.log", "api/ironic.log"):
            path = self.workdir / name
            if path.exists():
                parts.append(path.read_text(errors="replace")[-6000:])
        return "\n".join(parts)


def wait_answering(endpoint: str, proc: subprocess.Popen,
                   logs: Callable[[], str]) -> None:
    """Until the API at ``endpoint`` lists a registered conductor."""
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise svc.ServiceError(f"the conductor exited with "
                                   f"{proc.returncode}")
        try:
            # A conductor must be registered for a node to be created.
            if svc.get_json(endpoint + "/v1/conductors", {
                    "X-OpenStack-Ironic-API-Version": "latest"}
                    )["conductors"]:
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError,
                KeyError):
            pass
        time.sleep(0.2)
    raise svc.ServiceError(f"the API did not answer within "
                           f"{START_DEADLINE}s:\n{logs()}")


def split_configs(workdir: Path, port: int, db_url: str, rabbit: str
                  ) -> dict[str, Path]:
    """ironic.conf of the API (``workdir/api``) and of the conductor
    (``workdir/conductor``), on ``db_url`` and ``rabbit``."""
    tag = uuid.uuid4().hex[:8]
    default = {"rpc_transport": "oslo", "transport_url": rabbit,
               # Our own exchange: other tests' conductors never hear us.
               "control_exchange": f"ironic-wsgi-{tag}",
               # A stopping conductor answers RPC this long after leaving
               # the ring (15 s by default); nothing here needs it.
               "hash_ring_reset_interval": "2"}
    configs = {}
    for role in ("api", "conductor"):
        (workdir / role / "state").mkdir(parents=True)
        configs[role] = svc.write_config(
            workdir / role, port, sections={
                "DEFAULT": {**default, "host": f"{role}-{tag}"},
                "database": {"connection": db_url}})
    return configs


@contextlib.contextmanager
def conductor(workdir: Path, config: Path) -> Iterator[subprocess.Popen]:
    """The schema at head, then ``ironic-conductor`` until the block ends."""
    env = svc._child_env()
    subprocess.run([sys.executable, "-m", "ironic.command.dbsync",
                    "--config-file", str(config), "upgrade"],
                   env=env, check=True, capture_output=True, timeout=120)
    with open(workdir / "conductor" / "stdout.log", "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ironic.command.conductor",
             "--config-file", str(config)],
            env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def deployment():
    """Apache mod_wsgi serving the API and one conductor."""
    _require_apache()
    rabbit = integration.require_service("rabbitmq").replace(
        "amqp://", "rabbit://", 1)
    db_server = integration.require_db("postgresql")
    # Not under pytest's tmp_path: its parents are private to root.
    workdir = Path(tempfile.mkdtemp(prefix="ironic-mod-wsgi-"))
    workdir.chmod(0o755)
    try:
        with dbutils.scratch_database(db_server) as db_url:
            yield from _deploy(workdir, db_url, rabbit)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _deploy(workdir: Path, db_url: str, rabbit: str):
    port = svc.free_port()
    configs = split_configs(workdir, port, db_url, rabbit)
    if AS_ROOT:
        shutil.chown(workdir / "api", USER, GROUP)
        shutil.chown(workdir / "api" / "state", USER, GROUP)
    script = workdir / "ironic-api.wsgi"
    script.write_text(SAMPLE_SCRIPT.read_text().replace(
        "/etc/ironic/ironic.conf", str(configs["api"])))
    site = apache_site(port, workdir, script, _python_path(workdir))
    (workdir / "httpd.conf").write_text(apache_config(port, workdir, site))
    with conductor(workdir, configs["conductor"]) as proc:
        apache = Apache(workdir, port)
        try:
            apache.start()
            wait_answering(apache.endpoint, proc, apache.logs)
            yield apache
        finally:
            apache.stop()


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
    if not AS_ROOT:
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
        assert not _readable_by_user(package / "__init__.py")
        copy = _make_readable(package, "__init__.py", shared / "pkg")
        assert copy == shared / "pkg"
        assert _readable_by_user(copy / "__init__.py")
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
