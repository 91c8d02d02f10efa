"""A real Identity service for the RBAC tests.

The PyPI ``keystone`` package with a sqlite database and fernet tokens in a
directory of the test's own, served on a free loopback port by the
standard library's WSGI server in a child process. ``keystone-manage
bootstrap`` makes the ``admin`` user (a system administrator) and the
default roles; the tests make their projects, users and role assignments
through the Identity API, as an operator would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ironic.tests.functional import service as svc

ADMIN_PASSWORD = "bootstrap-secret"
START_DEADLINE = 90.0

# Serves keystone's WSGI application with one thread per request (token
# validation by the Bare Metal service arrives while a client waits).
_SERVER = """
import os, socketserver, sys
from wsgiref import simple_server
from keystone.server import wsgi

class Server(socketserver.ThreadingMixIn, simple_server.WSGIServer):
    daemon_threads = True

class Quiet(simple_server.WSGIRequestHandler):
    def log_message(self, *args):
        pass

# keystone parses the command line as its own options.
port = int(sys.argv.pop(1))
app = wsgi.initialize_public_application()
httpd = simple_server.make_server("127.0.0.1", port, app,
                                  server_class=Server, handler_class=Quiet)
httpd.serve_forever()
"""


def available() -> bool:
    try:
        import keystone  # noqa: F401
    except ImportError:
        return False
    return True


class Keystone:
    """One keystone process with its own database and keys."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.port = svc.free_port()
        self.url = f"http://127.0.0.1:{self.port}/v3"
        self.proc: subprocess.Popen | None = None
        self._log = None

    def _manage(self, *args: str) -> None:
        subprocess.run([self._manage_cmd(), "--config-dir",
                        str(self.workdir), *args], check=True,
                       capture_output=True, timeout=300)

    @staticmethod
    def _manage_cmd() -> str:
        return str(Path(sys.executable).with_name("keystone-manage"))

    def _configure(self) -> None:
        keys = self.workdir / "fernet-keys"
        creds = self.workdir / "credential-keys"
        keys.mkdir()
        creds.mkdir()
        (self.workdir / "keystone.conf").write_text("\n".join([
            "[DEFAULT]", f"log_file = {self.workdir / 'keystone.log'}",
            "[database]",
            f"connection = sqlite:///{self.workdir / 'keystone.sqlite'}",
            "[token]", "provider = fernet", "expiration = 7200",
            # Tests need no strength, and every token checks a password.
            "[identity]", "password_hash_rounds = 4",
            "[fernet_tokens]", f"key_repository = {keys}",
            "[credential]", f"key_repository = {creds}",
            "[fernet_receipts]", f"key_repository = {keys}", ""]))

    def start(self) -> Keystone:
        self._configure()
        user = str(os.getuid())
        group = str(os.getgid())
        self._manage("db_sync")
        self._manage("fernet_setup", "--keystone-user", user,
                     "--keystone-group", group)
        self._manage("credential_setup", "--keystone-user", user,
                     "--keystone-group", group)
        self._manage("bootstrap", "--bootstrap-password", ADMIN_PASSWORD,
                     "--bootstrap-admin-url", self.url,
                     "--bootstrap-public-url", self.url,
                     "--bootstrap-internal-url", self.url,
                     "--bootstrap-region-id", "RegionOne")
        env = dict(os.environ, OS_KEYSTONE_CONFIG_DIR=str(self.workdir))
        self._log = open(self.workdir / "stdout.log", "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER, str(self.port)], env=env,
            stdout=self._log, stderr=subprocess.STDOUT)
        self._wait()
        return self

    def _wait(self) -> None:
        deadline = time.monotonic() + START_DEADLINE
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise svc.ServiceError(f"keystone exited:\n{self.logs()}")
            try:
                with urllib.request.urlopen(self.url, timeout=2):
                    return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.1)
        raise svc.ServiceError(f"keystone did not answer:\n{self.logs()}")

    def logs(self) -> str:
        parts = []
        for name in ("stdout.log", "keystone.log"):
            path = self.workdir / name
            if path.exists():
                parts.append(path.read_text(errors="replace")[-6000:])
        return "\n".join(parts)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
