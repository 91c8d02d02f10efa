"""The one client of the ramdisk agent's (IPA's) own HTTP API.

The agent listens at the ``callback_url`` it announces in its heartbeats
and serves ``/v1/commands/``:

* ``POST /v1/commands/?wait=true|false&agent_token=T`` with
  ``{"name": "<extension>.<command>", "params": {...}}`` starts a command.
  With ``wait=true`` the answer comes when the command has finished;
  otherwise an asynchronous command answers at once with status
  ``RUNNING``.
* ``GET /v1/commands/?agent_token=T`` lists the results of the commands
  this agent process ran, oldest first.

A result is ``{"id", "command_name", "command_status", "command_error",
"command_result"}``; the status is ``RUNNING``, ``SUCCEEDED``, ``FAILED`` or
``CLEAN_VERSION_MISMATCH``/``VERSION_MISMATCH``, and an error is the
agent's serialized exception ``{"type", "code", "message", "details"}``.
The agent refuses a command while the previous one runs (HTTP 409) and a
wrong token (401).

Failures reach callers as ``AgentConnectionFailed`` (the agent could not be
reached after ``[agent]max_command_attempts``), ``AgentInProgress`` (busy)
or ``AgentCommandError`` (the agent refused or failed the command).
"""

from __future__ import annotations

import datetime
import logging
import ssl
import time
from typing import Any

import requests
from oslo_utils import strutils
from requests import adapters

from ironic.common import agent_token, exception, scrub
from ironic.conf import CONF
from ironic.drivers.modules import agent_state

LOG = logging.getLogger(__name__)

RUNNING = "RUNNING"
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"
VERSION_MISMATCH = ("CLEAN_VERSION_MISMATCH", "VERSION_MISMATCH")

_MASK = "******"


class AgentError(exception.IronicException):
    """Base of the errors talking to the agent."""

    _msg_fmt = "Error talking to the agent of node %(node)s: %(error)s"


class AgentConnectionFailed(AgentError):
    _msg_fmt = ("The agent of node %(node)s could not be reached for "
                "%(command)s: %(error)s")


class AgentInProgress(AgentError):
    _msg_fmt = ("The agent of node %(node)s is busy with another command "
                "and refused %(command)s: %(error)s")


class AgentCommandError(AgentError):
    _msg_fmt = "The agent of node %(node)s failed %(command)s: %(error)s"


class AgentCommandTimeout(AgentError):
    _msg_fmt = ("The agent of node %(node)s did not finish %(command)s "
                "in time.")


def command_error(result: dict) -> str:
    """A readable text for the error of a command result."""
    error = result.get("command_error")
    if error is None:
        return f"no error reported (status {result.get('command_status')})"
    if isinstance(error, dict):
        return str(error.get("details") or error.get("message") or error)
    return str(error)


# ---------------------------------------------------------------------------
# what the agent gets to see of the node

def _json_safe(value: Any) -> Any:
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def node_document(node: Any) -> dict:
    """The node as commands carry it: every field, secrets masked (the
    agent reads properties, instance_info and driver_internal_info)."""
    doc = _json_safe(node.as_dict())
    doc["id"] = node.id
    for field in ("driver_info", "instance_info"):
        doc[field] = strutils.mask_dict_password(doc.get(field) or {}, _MASK)
    info = dict(doc.get("driver_internal_info") or {})
    if info.get(agent_token.KEY):
        info[agent_token.KEY] = _MASK
    doc["driver_internal_info"] = info
    return doc


def port_documents(ports: list) -> list[dict]:
    return [_json_safe(port.as_dict() if hasattr(port, "as_dict")
                       else _row_dict(port)) for port in ports]


def _row_dict(row: Any) -> dict:
    if isinstance(row, dict):
        return dict(row)
    columns = getattr(getattr(row, "__table__", None), "columns", ())
    return {c.name: getattr(row, c.name) for c in columns}


# ---------------------------------------------------------------------------
# transport

class _TLSAdapter(adapters.HTTPAdapter):
    """Applies [agent]tls_minimum_version and tls_ciphers to https://."""

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> Any:
        context = ssl.create_default_context()
        context.minimum_version = (ssl.TLSVersion.TLSv1_3
                                   if CONF.agent.tls_minimum_version == "1.3"
                                   else ssl.TLSVersion.TLSv1_2)
        if CONF.agent.tls_ciphers:
            context.set_ciphers(CONF.agent.tls_ciphers)
        kwargs["ssl_context"] = context
        return super().init_poolmanager(*args, **kwargs)


def _session() -> requests.Session:
    session = requests.Session()
    session.headers["Content-Type"] = "application/json"
    session.mount("https://", _TLSAdapter())
    return session


def _verify(node: Any) -> bool | str:
    """The CA the agent sent (1.68) or else [agent]verify_ca."""
    sent = agent_state.AgentInfo(node).verify_ca
    if sent:
        return sent
    value = CONF.agent.verify_ca
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        return value


class AgentClient:
    """Commands to the agent of one node (its URL, token and CA)."""

    def __init__(self, node: Any, session: requests.Session | None = None):
        self.node = node
        self.session = session or _session()

    # -- plumbing -----------------------------------------------------------

    def _url(self, command: str) -> str:
        base = agent_state.AgentInfo(self.node).url
        if not base:
            raise AgentConnectionFailed(
                node=self.node.uuid, command=command,
                error="no agent has announced its URL (no heartbeat yet)")
        return (f"{base.rstrip('/')}/{CONF.agent.agent_api_version}"
                f"/commands/")

    def _token(self) -> dict:
        token = agent_token.for_agent(self.node)
        return {"agent_token": token} if token else {}

    def _send(self, method: str, command: str, **kwargs: Any
              ) -> requests.Response:
        try:
            return self.session.request(
                method, self._url(command), verify=_verify(self.node),
                timeout=CONF.agent.command_timeout, **kwargs)
        except (requests.ConnectionError, requests.Timeout,
                ssl.SSLError) as e:
            # The library's text names the URL, agent token included: only
            # the scrubbed text goes on, and not the exception itself.
            raise AgentConnectionFailed(node=self.node.uuid,
                                        command=command,
                                        error=scrub.text(e)) from None
        except requests.RequestException as e:
            raise AgentCommandError(node=self.node.uuid, command=command,
                                    error=scrub.text(e)) from None

    def _decode(self, response: requests.Response, command: str) -> Any:
        try:
            body = response.json()
        except ValueError:
            body = None
        if response.status_code >= 400:
            fault = (body or {}).get("faultstring") if isinstance(
                body, dict) else None
            error = f"HTTP {response.status_code}: " \
                    f"{fault or response.text[:200]}"
            if response.status_code == 409 or \
                    "agent is busy" in (fault or "").lower():
                raise AgentInProgress(node=self.node.uuid, command=command,
                                      error=error)
            raise AgentCommandError(node=self.node.uuid, command=command,
                                    error=error)
        if not isinstance(body, dict):
            raise AgentCommandError(
                node=self.node.uuid, command=command,
                error=f"the answer is not a JSON object: "
                      f"{response.text[:200]!r}")
        return body

    def command(self, name: str, params: dict | None = None,
                wait: bool = False) -> dict:
        """Run ``<extension>.<command>``; its result document.

        A connection failure is retried; before a retry the agent is asked
        whether the command arrived anyway (its answer may be what got
        lost), so a command is not started twice.
        """
        query = {"wait": str(bool(wait)).lower(), **self._token()}
        body = {"name": name, "params": params or {}}
        LOG.debug("Node %s: agent command %s (wait=%s)", self.node.uuid,
                  name, wait)
        attempts = CONF.agent.max_command_attempts
        for attempt in range(1, attempts + 1):
            try:
                response = self._send("POST", name, params=query, json=body)
            except AgentConnectionFailed:
                running = self._running(name)
                if running is not None:
                    return running
                if attempt >= attempts:
                    raise
                LOG.warning("Node %s: agent unreachable for %s, attempt "
                            "%d of %d", self.node.uuid, name, attempt,
                            attempts)
                continue
            return self._decode(response, name)
        raise AssertionError("unreachable")

    def _running(self, name: str) -> dict | None:
        try:
            last = (self.commands(retry=False) or [{}])[-1]
        except AgentError:
            return None
        if last and last.get("command_name") == name.split(".", 1)[-1] \
                and last.get("command_status") == RUNNING:
            return last
        return None

    def commands(self, retry: bool = True) -> list[dict]:
        """Results of every command this agent process ran, oldest first."""
        attempts = CONF.agent.max_command_attempts if retry else 1
        for attempt in range(1, attempts + 1):
            try:
                response = self._send("GET", "the command status",
                                      params=self._token())
                break
            except AgentConnectionFailed:
                if attempt >= attempts:
                    raise
        results = self._decode(response, "the command status").get(
            "commands")
        if not isinstance(results, list):
            raise AgentCommandError(node=self.node.uuid,
                                    command="the command status",
                                    error="no list of commands in the answer")
        return results

    def last_command(self, name: str) -> dict | None:
        """The latest result of ``name`` (with or without extension)."""
        short = name.split(".", 1)[-1]
        for result in reversed(self.commands()):
            if result.get("command_name") == short:
                return result
        return None

    def wait_for(self, name: str) -> dict:
        """Poll until the latest ``name`` finished ([agent]command_wait_*)."""
        for _attempt in range(CONF.agent.command_wait_attempts):
            result = self.last_command(name)
            if result is not None and result.get("command_status") \
                    != RUNNING:
                return result
            time.sleep(CONF.agent.command_wait_interval)
        raise AgentCommandTimeout(node=self.node.uuid, command=name)

    def _succeeded(self, result: dict, name: str) -> dict:
        if result.get("command_status") != SUCCEEDED:
            raise AgentCommandError(node=self.node.uuid, command=name,
                                    error=command_error(result))
        return result

    # -- the commands the conductor uses ---------------------------------

    def _node_params(self, ports: list) -> dict:
        return {"node": node_document(self.node),
                "ports": port_documents(ports)}

    def get_steps(self, kind: str, ports: list) -> dict:
        """``<kind>.get_<kind>_steps``: {"<kind>_steps": {manager: [step]},
        "hardware_manager_version": {...}}."""
        name = f"{kind}.get_{kind}_steps"
        result = self._succeeded(
            self.command(name, self._node_params(ports), wait=True), name)
        return result.get("command_result") or {}

    def execute_step(self, kind: str, step: dict, ports: list,
                     version: dict | None) -> dict:
        """``<kind>.execute_<kind>_step``, asynchronous: its first result."""
        params = dict(self._node_params(ports), step=step)
        params[f"{kind}_version"] = version
        return self.command(f"{kind}.execute_{kind}_step", params)

    def prepare_image(self, image_info: dict,
                      configdrive: str | None = None) -> dict:
        """``standby.prepare_image`` (asynchronous): write the image."""
        return self.command("standby.prepare_image",
                            {"image_info": image_info,
                             "configdrive": configdrive})

    def get_partition_uuids(self) -> dict:
        name = "standby.get_partition_uuids"
        result = self._succeeded(self.command(name, {}, wait=True), name)
        return result.get("command_result") or {}

    def install_bootloader(self, root_uuid: str | None,
                           target_boot_mode: str,
                           efi_system_part_uuid: str | None = None,
                           prep_boot_part_uuid: str | None = None) -> dict:
        """``image.install_bootloader``, waited for by polling (it can take
        longer than one HTTP request should)."""
        name = "image.install_bootloader"
        started = self.command(name, {
            "root_uuid": root_uuid,
            "efi_system_part_uuid": efi_system_part_uuid,
            "prep_boot_part_uuid": prep_boot_part_uuid,
            "target_boot_mode": target_boot_mode})
        result = started if started.get("command_status") != RUNNING \
            else self.wait_for(name)
        return self._succeeded(result, name)

    def power_off(self) -> dict:
        """``standby.power_off``: the agent shuts its machine down."""
        return self.command("standby.power_off", {})

    def sync(self) -> dict:
        """``standby.sync``: flush the file systems before a hard reset."""
        return self.command("standby.sync", {}, wait=True)

    def finalize_rescue(self, rescue_password: str | None,
                        hashed: bool = True) -> dict:
        """``rescue.finalize_rescue`` (for a rescue interface)."""
        return self.command("rescue.finalize_rescue",
                            {"rescue_password": rescue_password,
                             "hashed": hashed}, wait=True)

    def collect_system_logs(self) -> dict:
        return self.command("log.collect_system_logs", {}, wait=True)
