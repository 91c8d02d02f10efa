"""The API under a maintained WSGI server, as the install guide runs it:
``ironic.wsgi:application`` under Apache mod_wsgi (the sample site
``etc/apache2/ironic.conf`` and script ``etc/apache2/ironic-api.wsgi``)
or under gunicorn, beside an ``ironic-conductor``; both on a scratch
PostgreSQL database and RabbitMQ.

Apache runs as a private instance (its own ServerRoot, PidFile, loopback
port and runtime directory; the system's apache2 is never touched). Run by
root, its daemon processes run as ``www-data`` (mod_wsgi refuses root):
when that user cannot read the checkout or the Python packages (a checkout
under /root), they are linked or copied into the deployment's directory.
Run by anyone else, Apache and the daemon processes keep that user.
The sample's paths, port, user and TLS lines are swapped for the test's;
``python-home`` becomes ``python-path``: mod_wsgi runs Debian's Python,
and the test's packages live in the virtualenv running the tests.

``IRONIC_TEST_API_SERVER=mod_wsgi`` (or ``gunicorn``) makes the functional
suite's shared ``service`` one of these deployments (``split_service``).
Under ``CI=true`` anything missing fails instead of skipping.
"""

from __future__ import annotations

import contextlib
import grp
import importlib.util
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import uuid
from pathlib import Path
from typing import Callable, Iterator

from ironic.tests import dbutils, entry_points
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


def require_apache() -> None:
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


def readable_by_user(path: Path) -> bool:
    if not AS_ROOT:
        return os.access(path, os.R_OK)
    return subprocess.run(["runuser", "-u", USER, "--", "test", "-r",
                           str(path)], capture_output=True).returncode == 0


def make_readable(tree: Path, marker: str, copy: Path) -> Path:
    """``tree``, or a copy at ``copy`` when ``USER`` cannot read
    ``tree/marker`` (a checkout or virtualenv under a private home such as
    /root). Hard links first: instant, and the files keep their own modes;
    when those modes shut the user out too, or the temporary directory is
    on another filesystem, a real copy opened to everyone."""
    if readable_by_user(tree / marker):
        return tree
    ignore = shutil.ignore_patterns("__pycache__", ".git", ".tox")
    try:
        shutil.copytree(tree, copy, symlinks=True, ignore=ignore,
                        copy_function=os.link)
    except (OSError, shutil.Error):
        shutil.rmtree(copy, ignore_errors=True)
    if not copy.exists() or not readable_by_user(copy / marker):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy, symlinks=True, ignore=ignore)
        subprocess.run(["chmod", "-R", "a+rX", str(copy)], check=True)
    if not readable_by_user(copy / marker):
        integration.unavailable(
            "Apache mod_wsgi", f"{USER}, which mod_wsgi's daemon "
            f"processes run as, cannot read {copy / marker}")
    return copy


def python_path(workdir: Path) -> list[str]:
    """The checkout's package, its published entry points and the
    packages of the Python running the tests, where the daemon user can
    read them (copied under ``workdir`` when it cannot read the
    originals)."""
    # Where the test's packages are (pecan stands for them all).
    site = str(Path(importlib.util.find_spec("pecan").origin).parents[1])
    source = make_readable(svc.REPO_ROOT / "ironic", "__init__.py",
                            workdir / "src" / "ironic").parent
    packages = make_readable(Path(site), "pecan/__init__.py",
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

    @property
    def log_path(self) -> Path:
        return self.workdir / "api" / "ironic.log"

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




def apache_deployment(workdir: Path, db_url: str, rabbit: str
                      ) -> Iterator[Apache]:
    port = svc.free_port()
    configs = split_configs(workdir, port, db_url, rabbit)
    if AS_ROOT:
        shutil.chown(workdir / "api", USER, GROUP)
        shutil.chown(workdir / "api" / "state", USER, GROUP)
    script = workdir / "ironic-api.wsgi"
    script.write_text(SAMPLE_SCRIPT.read_text().replace(
        "/etc/ironic/ironic.conf", str(configs["api"])))
    site = apache_site(port, workdir, script, python_path(workdir))
    (workdir / "httpd.conf").write_text(apache_config(port, workdir, site))
    with conductor(workdir, configs["conductor"]) as proc:
        apache = Apache(workdir, port)
        try:
            apache.start()
            wait_answering(apache.endpoint, proc, apache.logs)
            yield apache
        finally:
            apache.stop()


class Gunicorn:
    """gunicorn (gthread workers) serving ``ironic.wsgi:application``."""

    def __init__(self, workdir: Path, port: int):
        self.workdir = workdir
        self.endpoint = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return self.workdir / "api" / "ironic.log"

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in (
            self.workdir / "api" / "stdout.log", self.log_path)
            if p.exists())


def gunicorn_executable() -> Path:
    gunicorn = Path(sys.executable).parent / "gunicorn"
    if not gunicorn.exists():
        integration.unavailable("gunicorn", f"no {gunicorn} (it is in "
                                f"test-requirements.txt)")
    return gunicorn


def gunicorn_deployment(workdir: Path, db_url: str, rabbit: str
                        ) -> Iterator[Gunicorn]:
    """As the install guide's gunicorn section runs it (two workers of
    four threads, the request header limits it recommends)."""
    gunicorn = gunicorn_executable()
    port = svc.free_port()
    configs = split_configs(workdir, port, db_url, rabbit)
    server = Gunicorn(workdir, port)
    with conductor(workdir, configs["conductor"]) as cond:
        env = svc._child_env()
        env["IRONIC_CONFIG_FILE"] = str(configs["api"])
        with open(workdir / "api" / "stdout.log", "wb") as out:
            server.proc = subprocess.Popen(
                [str(gunicorn), "--worker-class", "gthread",
                 "--workers", "2", "--threads", "4", "--timeout", "60",
                 "--limit-request-fields", "50",
                 "--limit-request-field_size", "4094",
                 "--bind", f"127.0.0.1:{port}",
                 "ironic.wsgi:application"],
                cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_answering(server.endpoint, cond, server.logs)
            yield server
        finally:
            server.proc.send_signal(signal.SIGTERM)
            try:
                server.proc.wait(30)
            except subprocess.TimeoutExpired:
                server.proc.kill()
                server.proc.wait()


def apache_workdir() -> Path:
    """Not under pytest's tmp_path: its parents are private to root, and
    the daemon user must reach the deployment's files."""
    workdir = Path(tempfile.mkdtemp(prefix="ironic-mod-wsgi-"))
    workdir.chmod(0o755)
    return workdir


@contextlib.contextmanager
def split_service(kind: str, tmp_factory) -> Iterator[Apache | Gunicorn]:
    """The API under ``kind`` ("mod_wsgi" or "gunicorn") and a conductor,
    on a scratch PostgreSQL database and RabbitMQ, until the block ends."""
    if kind not in ("mod_wsgi", "gunicorn"):
        raise ValueError(f"IRONIC_TEST_API_SERVER={kind!r}: expected "
                         f"mod_wsgi or gunicorn")
    if kind == "mod_wsgi":
        require_apache()
    else:
        gunicorn_executable()
    rabbit = integration.require_service("rabbitmq").replace(
        "amqp://", "rabbit://", 1)
    db_server = integration.require_db("postgresql")
    workdir = (apache_workdir() if kind == "mod_wsgi"
               else tmp_factory.mktemp("gunicorn"))
    deploy = apache_deployment if kind == "mod_wsgi" else gunicorn_deployment
    try:
        with dbutils.scratch_database(db_server) as db_url:
            deployment = deploy(workdir, db_url, rabbit)
            server = next(deployment)
            try:
                yield server
            finally:
                # Runs the deployment's own clean-up (server, conductor).
                deployment.close()
    finally:
        if kind == "mod_wsgi":
            shutil.rmtree(workdir, ignore_errors=True)

