"""An emulated ramdisk agent (IPA) for tests, on loopback only.

It plays the agent's two roles:

* the client of the Bare Metal API: ``GET /v1/lookup`` by MAC until the
  node is in a state expecting a ramdisk, then ``POST /v1/heartbeat/<uuid>``
  with the agent token every ``heartbeat_interval`` seconds (and at once
  after an asynchronous command finished, as the real agent does);
* the server of the agent API at its callback URL: ``GET /v1/commands/``
  and ``POST /v1/commands/?wait=...&agent_token=...`` with the wire shapes
  of ironic-python-agent (command results ``{id, command_name,
  command_status, command_error, command_result}``, 401 for a wrong token,
  409 while a command runs).

It "reboots" when the service forgets it: a heartbeat refused for its
token (the conductor rebooted or powered off the node) or a 404 starts a
new agent process (no command history, a new lookup). ``standby.power_off``
shuts it down the same way. Images given to ``write_image`` or
``standby.prepare_image`` are downloaded (loopback URLs only) and their
checksum verified.

Every request it serves is recorded (``received``) for tests to assert
which commands the service sent, in which order.

As a process it is what an emulated machine "boots" (``ipmi_bmc
--machine-cmd``): ``python -m ironic.tests.emulators.agent --api URL
--mac MAC [--mac MAC]``, until SIGTERM.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import http.server
import io
import ipaddress
import json
import logging
import ssl
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from typing import Any

LOG = logging.getLogger(__name__)

API_VERSION = "1.68"
HW_VERSIONS = {"generic_hardware_manager": "1.2"}
RUNNING, SUCCEEDED, FAILED = "RUNNING", "SUCCEEDED", "FAILED"
VERSION_MISMATCH = "CLEAN_VERSION_MISMATCH"


def _step(name: str, priority: int = 0, interface: str = "deploy",
          **extra: Any) -> dict:
    return {"interface": interface, "step": name, "priority": priority,
            "reboot_requested": False, "abortable": True, **extra}


#: What the real agent's generic hardware manager offers (shapes of
#: sample_agent_commands_*.jsonl): deploy steps at priority 0 (enabled by
#: templates), erase steps enabled for automated cleaning.
DEFAULT_DEPLOY_STEPS = [_step("write_image"), _step("erase_devices_metadata"),
                        _step("inject_files", argsinfo={"files": {
                            "description": "Files to inject.",
                            "required": False}})]
DEFAULT_CLEAN_STEPS = [_step("erase_devices", 10),
                       _step("erase_devices_metadata", 99),
                       _step("burnin_cpu")]
DEFAULT_SERVICE_STEPS = [_step("burnin_cpu")]


def check_loopback(url: str) -> None:
    host = urllib.parse.urlparse(url).hostname or ""
    if host != "localhost" and not ipaddress.ip_address(host).is_loopback:
        raise ValueError(f"the agent emulator talks to loopback only, not "
                         f"{url}")


class CommandFailed(Exception):
    def __init__(self, details: str, kind: str = "CommandExecutionError",
                 status: str = FAILED):
        super().__init__(details)
        self.kind = kind
        self.status = status


class _Command:
    """One command result, as the agent serializes it."""

    def __init__(self, name: str):
        self.id = str(uuid.uuid4())
        self.name = name
        self.status = RUNNING
        self.error: dict | None = None
        self.result: Any = None

    def finish(self, result: Any = None,
               failure: CommandFailed | None = None) -> None:
        if failure is None:
            self.status, self.result = SUCCEEDED, result
        else:
            self.status = failure.status
            self.error = {"type": failure.kind, "code": 500,
                          "message": "Command execution failed",
                          "details": str(failure)}

    def doc(self) -> dict:
        return {"id": self.id, "command_name": self.name,
                "command_status": self.status,
                "command_error": self.error, "command_result": self.result}


class AgentEmulator:
    """One emulated agent for the node with ``macs``; ``start``/``stop``.

    Like the real agent's automatic TLS, it serves its command API over
    https with a self-signed certificate it sends on every heartbeat
    (``agent_verify_ca``), which the service requires by default
    (``[agent]require_tls``); ``tls=False`` gives a plain-http agent.
    """

    def __init__(self, api_url: str, macs: list[str], *,
                 heartbeat_interval: float = 0.2, version: str = "10.0.0",
                 deploy_steps: list[dict] | None = None,
                 clean_steps: list[dict] | None = None,
                 service_steps: list[dict] | None = None,
                 failing_steps: dict[str, str] | None = None,
                 step_seconds: float = 0.0, tls: bool = True,
                 download_images: bool = True) -> None:
        check_loopback(api_url)
        self.api_url = api_url.rstrip("/")
        self.macs = list(macs)
        self.heartbeat_interval = heartbeat_interval
        self.version = version
        self.steps = {
            "deploy": list(DEFAULT_DEPLOY_STEPS if deploy_steps is None
                           else deploy_steps),
            "clean": list(DEFAULT_CLEAN_STEPS if clean_steps is None
                          else clean_steps),
            "service": list(DEFAULT_SERVICE_STEPS if service_steps is None
                            else service_steps)}
        #: step name -> error: the step fails with that message.
        self.failing_steps = dict(failing_steps or {})
        #: How long asynchronous commands run.
        self.step_seconds = step_seconds
        self.download_images = download_images
        self.hw_versions = dict(HW_VERSIONS)
        self.received: list[dict] = []
        self.boots = 0
        self.heartbeats = 0
        self.written: list[dict] = []
        self._lock = threading.RLock()
        self._results: list[_Command] = []
        self._token: str | None = None
        self._node: dict | None = None
        self._partitions: dict | None = None
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.agent = self
        self._cert_pem: str | None = None
        if tls:
            self._enable_tls()
        self._threads: list[threading.Thread] = []

    # -- life ---------------------------------------------------------------

    @property
    def callback_url(self) -> str:
        scheme = "https" if self._cert_pem else "http"
        return f"{scheme}://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> AgentEmulator:
        for target in (self._server.serve_forever, self._run):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._server.shutdown()
        self._server.server_close()
        for thread in self._threads:
            thread.join(10)

    def __enter__(self) -> AgentEmulator:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- what tests look at -------------------------------------------------

    def posted(self) -> list[str]:
        """Names of the commands the service sent, in order."""
        with self._lock:
            return [r["name"] for r in self.received if r["method"] == "POST"]

    def posted_params(self, name: str) -> list[dict]:
        with self._lock:
            return [r["params"] for r in self.received
                    if r["method"] == "POST" and r["name"] == name]

    # -- the API client side --------------------------------------------

    def _request(self, method: str, path: str, body: dict | None = None
                 ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.api_url + path, data=data, method=method,
            headers={"Content-Type": "application/json",
                     "X-OpenStack-Ironic-API-Version": API_VERSION})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw) if raw else None
            except ValueError:
                return e.code, raw.decode(errors="replace")
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            return 0, str(e)

    def _run(self) -> None:
        while not self._stop.is_set():
            if self._token is None:
                self._lookup()
            else:
                self._heartbeat()
            self._wake.wait(self.heartbeat_interval)
            self._wake.clear()

    def _lookup(self) -> None:
        query = urllib.parse.urlencode({"addresses": ",".join(self.macs)})
        status, body = self._request("GET", f"/v1/lookup?{query}")
        if status != 200:
            return
        token = body["config"].get("agent_token")
        if not token or token == "******":
            # Issued to an agent that died before us: wait for a reset.
            return
        with self._lock:
            self._boot(body["node"], token)

    def _boot(self, node: dict, token: str) -> None:
        """A new agent process: no history, a fresh token."""
        self._node = node
        self._token = token
        self._results = []
        self._partitions = None
        self.boots += 1
        LOG.info("emulated agent booted for node %s", node["uuid"])

    def _reset(self, why: str) -> None:
        with self._lock:
            if self._token is not None:
                LOG.info("emulated agent goes down: %s", why)
            self._token = None
            self._node = None
            self._results = []

    def _heartbeat(self) -> None:
        with self._lock:
            node, token = self._node, self._token
        if node is None:
            return
        body = {"callback_url": self.callback_url, "agent_token": token,
                "agent_version": self.version}
        if self._cert_pem:
            body["agent_verify_ca"] = self._cert_pem
        status, answer = self._request("POST",
                                       f"/v1/heartbeat/{node['uuid']}", body)
        if status == 202:
            self.heartbeats += 1
        elif status == 404 or (status == 400 and "token" in str(answer)):
            # The service forgot this agent: the node was rebooted or
            # powered off (its token is gone), or the node is gone. Other
            # errors (no conductor yet, node locked) are tried again.
            self._reset(f"heartbeat answered {status}: {answer}")

    # -- the command side -------------------------------------------------

    def authorized(self, token: str | None) -> bool:
        with self._lock:
            return self._token is not None and token == self._token

    def results(self) -> list[dict]:
        with self._lock:
            return [c.doc() for c in self._results]

    def run_command(self, name: str, params: dict, wait: bool
                    ) -> tuple[int, dict]:
        ext, _, cmd = name.partition(".")
        handler = _COMMANDS.get((ext, cmd))
        with self._lock:
            if self._results and self._results[-1].status == RUNNING:
                return 409, {"faultcode": "Client",
                             "faultstring": "Agent is busy: executing "
                                            f"command {self._results[-1].name}"}
            if handler is None:
                if ext not in {e for e, _c in _COMMANDS}:
                    return 404, {"faultcode": "Client", "faultstring":
                                 f"Not found: Extension with id {ext} not "
                                 f"found."}
                return 400, {"faultcode": "Client", "faultstring":
                             f"Invalid command: Unknown command: {cmd}"}
            command = _Command(cmd)
            self._results.append(command)
        function, asynchronous = handler
        if not asynchronous:
            self._finish(command, function, params)
            return 200, command.doc()
        thread = threading.Thread(target=self._finish_async,
                                  args=(command, function, params),
                                  daemon=True)
        thread.start()
        if wait:
            thread.join()
        return 200, command.doc()

    def _finish(self, command: _Command, function: Any, params: dict
                ) -> None:
        try:
            command.finish(function(self, **params))
        except CommandFailed as e:
            command.finish(failure=e)
        except TypeError as e:
            command.finish(failure=CommandFailed(str(e), "TypeError"))

    def _finish_async(self, command: _Command, function: Any,
                      params: dict) -> None:
        if self.step_seconds:
            self._stop.wait(self.step_seconds)
        self._finish(command, function, params)
        # The real agent heartbeats at once when a command finished.
        self._wake.set()

    # -- TLS ----------------------------------------------------------------

    def _enable_tls(self) -> None:
        cert, key = _self_signed()
        directory = tempfile.mkdtemp(prefix="agent-emulator-")
        cert_file, key_file = f"{directory}/cert.pem", f"{directory}/key.pem"
        with open(cert_file, "w") as f:
            f.write(cert)
        with open(key_file, "w") as f:
            f.write(key)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self._server.socket = context.wrap_socket(self._server.socket,
                                                  server_side=True)
        self._cert_pem = cert


def _self_signed() -> tuple[str, str]:
    """A certificate for 127.0.0.1, as the agent generates for itself."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .sign(key, hashes.SHA256()))
    return (cert.public_bytes(serialization.Encoding.PEM).decode(),
            key.private_bytes(serialization.Encoding.PEM,
                              serialization.PrivateFormat.PKCS8,
                              serialization.NoEncryption()).decode())


# ---------------------------------------------------------------------------
# the commands

def _get_steps(kind: str):
    def get_steps(agent: AgentEmulator, node: dict, ports: list) -> dict:
        return {f"{kind}_steps": {"GenericHardwareManager":
                                  [dict(s) for s in agent.steps[kind]]},
                "hardware_manager_version": dict(agent.hw_versions)}
    return get_steps


def _execute_step(kind: str):
    def execute(agent: AgentEmulator, step: dict, node: dict, ports: list,
                **kwargs: Any) -> dict:
        version = kwargs.get(f"{kind}_version")
        if version != agent.hw_versions:
            raise CommandFailed(f"Current versions: {agent.hw_versions}, "
                                f"versions used by ironic: {version}",
                                "VersionMismatch", VERSION_MISMATCH)
        name = step.get("step")
        offered = {s["step"] for s in agent.steps[kind]}
        if name not in offered:
            raise CommandFailed(f"No {kind} step {name} is offered")
        if name in agent.failing_steps:
            raise CommandFailed(agent.failing_steps[name])
        args = step.get("args") or {}
        if name == "write_image":
            _write(agent, args.get("image_info") or {},
                   args.get("configdrive"))
        return {f"{kind}_result": _step_result(step, node, args),
                f"{kind}_step": step}
    return execute


def _step_result(step: dict, node: dict, args: dict) -> Any:
    """What the generic hardware manager returns: the RAID steps give the
    configuration they built (the target they were handed)."""
    if step.get("interface") != "raid":
        return None
    if step.get("step") == "create_configuration":
        return node.get("target_raid_config") or {}
    if step.get("step") == "apply_configuration":
        return args.get("raid_config")
    return None


def _checksum_ok(data: bytes, info: dict) -> bool:
    if info.get("os_hash_algo") and info.get("os_hash_value"):
        wanted = info["os_hash_value"]
        return hashlib.new(info["os_hash_algo"], data).hexdigest() == wanted
    checksum = info.get("checksum")
    if not checksum:
        return True
    algo = {32: "md5", 64: "sha256", 128: "sha512"}.get(len(checksum))
    return algo is not None and \
        hashlib.new(algo, data).hexdigest() == checksum


def _write(agent: AgentEmulator, image_info: dict,
           configdrive: str | None) -> None:
    for field in ("id", "urls"):
        if field not in image_info:
            raise CommandFailed(f"Image is missing '{field}' field.",
                                "InvalidCommandParamsError")
    if "write_image" in agent.failing_steps:
        raise CommandFailed(agent.failing_steps["write_image"])
    url = image_info["urls"][0]
    if agent.download_images:
        try:
            check_loopback(url)
            with urllib.request.urlopen(url, timeout=30) as resp:
                data = resp.read()
        except (ValueError, OSError) as e:
            raise CommandFailed(f"Download of image {image_info['id']} "
                                f"failed: {e}", "ImageDownloadError") from e
        if not _checksum_ok(data, image_info):
            raise CommandFailed(f"Image failed to verify against checksum. "
                                f"location: {image_info['id']}",
                                "ImageChecksumError")
    partition = image_info.get("image_type") == "partition"
    with agent._lock:
        agent.written.append({"image_info": image_info,
                              "configdrive": configdrive})
        agent._partitions = {
            "root uuid": str(uuid.uuid4()),
            "efi system partition uuid": str(uuid.uuid4()),
            "partitions": {"root": "/dev/vda2", "efi": "/dev/vda1"},
        } if partition else {"root uuid": "0x5a7e1d0c"}


def _prepare_image(agent: AgentEmulator, image_info: dict,
                   configdrive: str | None = None) -> str:
    _write(agent, image_info, configdrive or image_info.get("configdrive"))
    return f"image ({image_info['id']}) written to device /dev/vda"


def _partition_uuids(agent: AgentEmulator) -> dict:
    return dict(agent._partitions or {})


def _install_bootloader(agent: AgentEmulator, root_uuid: str | None,
                        efi_system_part_uuid: str | None = None,
                        prep_boot_part_uuid: str | None = None,
                        target_boot_mode: str = "bios",
                        ignore_bootloader_failure: bool | None = None
                        ) -> None:
    if agent._partitions is None:
        raise CommandFailed("No image was written; nothing to boot")
    if "install_bootloader" in agent.failing_steps:
        raise CommandFailed(agent.failing_steps["install_bootloader"])
    return None


def _power_off(agent: AgentEmulator) -> None:
    # Answered first, then the machine goes down.
    threading.Timer(0.05, agent._reset, ("standby.power_off",)).start()


def _nothing(agent: AgentEmulator, **kwargs: Any) -> None:
    return None


def _system_logs(agent: AgentEmulator) -> dict:
    """Like the real agent: a base64 gzipped tarball of log files (here
    one, listing the commands received)."""
    with agent._lock:
        text = "\n".join(r["name"] for r in agent.received
                         if r["method"] == "POST") + "\n"
    data = text.encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        member = tarfile.TarInfo("journal")
        member.size = len(data)
        tar.addfile(member, io.BytesIO(data))
    return {"system_logs": base64.b64encode(buf.getvalue()).decode()}


_COMMANDS = {
    ("deploy", "get_deploy_steps"): (_get_steps("deploy"), False),
    ("deploy", "execute_deploy_step"): (_execute_step("deploy"), True),
    ("clean", "get_clean_steps"): (_get_steps("clean"), False),
    ("clean", "execute_clean_step"): (_execute_step("clean"), True),
    ("service", "get_service_steps"): (_get_steps("service"), False),
    ("service", "execute_service_step"): (_execute_step("service"), True),
    ("standby", "prepare_image"): (_prepare_image, True),
    ("standby", "get_partition_uuids"): (_partition_uuids, False),
    ("standby", "power_off"): (_power_off, True),
    ("standby", "sync"): (_nothing, False),
    ("image", "install_bootloader"): (_install_bootloader, True),
    ("log", "collect_system_logs"): (_system_logs, False),
    ("rescue", "finalize_rescue"): (_nothing, False),
    ("system", "lockdown"): (_nothing, False),
}


# ---------------------------------------------------------------------------
# HTTP

class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    agent: AgentEmulator


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, fmt: str, *args: Any) -> None:
        LOG.debug("agent emulator: " + fmt, *args)

    def _reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _parse(self) -> tuple[str, dict]:
        parsed = urllib.parse.urlparse(self.path)
        return parsed.path, urllib.parse.parse_qs(parsed.query)

    def _record(self, path: str, query: dict, body: Any, status: int
                ) -> None:
        body = body if isinstance(body, dict) else {}
        agent = self.server.agent
        with agent._lock:
            agent.received.append({
                "method": self.command, "path": path,
                "query": {k: v[0] for k, v in query.items()},
                "name": body.get("name"), "params": body.get("params"),
                "status": status, "ts": time.time()})

    def _authorized(self, query: dict) -> bool:
        return self.server.agent.authorized(
            (query.get("agent_token") or [None])[0])

    def do_GET(self) -> None:
        path, query = self._parse()
        if path.rstrip("/") != "/v1/commands":
            self._reply(404, {"faultcode": "Client",
                              "faultstring": "Not found"})
            return
        if not self._authorized(query):
            self._record(path, query, None, 401)
            self._reply(401, {"faultcode": "Client",
                              "faultstring": "401 Unauthorized: Token "
                                             "invalid."})
            return
        self._record(path, query, None, 200)
        self._reply(200, {"commands": self.server.agent.results()})

    def do_POST(self) -> None:
        path, query = self._parse()
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = None
        status, answer = self._post(path, query, body)
        self._record(path, query, body, status)
        self._reply(status, answer)

    def _post(self, path: str, query: dict, body: Any) -> tuple[int, Any]:
        if path.rstrip("/") != "/v1/commands":
            return 404, {"faultcode": "Client", "faultstring": "Not found"}
        if not self._authorized(query):
            return 401, {"faultcode": "Client",
                         "faultstring": "401 Unauthorized: Token invalid."}
        if not isinstance(body, dict) or "name" not in body or \
                not isinstance(body.get("params"), dict):
            return 400, {"faultcode": "Client", "faultstring":
                         "400 Bad Request: Missing or invalid name or "
                         "params"}
        wait = (query.get("wait") or ["false"])[0].lower() == "true"
        return self.server.agent.run_command(body["name"], body["params"],
                                             wait)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import signal
    import sys
    parser = argparse.ArgumentParser(description="An emulated ramdisk "
                                                 "agent (loopback only).")
    parser.add_argument("--api", required=True)
    parser.add_argument("--mac", action="append", required=True)
    parser.add_argument("--no-tls", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    agent = AgentEmulator(args.api, args.mac, tls=not args.no_tls).start()
    print(f"agent for {', '.join(args.mac)} at {agent.callback_url}",
          flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    agent.stop()
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
