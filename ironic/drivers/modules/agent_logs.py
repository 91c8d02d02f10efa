"""The agent's system logs, collected and kept by the conductor.

``[agent]deploy_logs_collect`` says when: ``on_failure`` (the default) when
a step the agent ran failed, ``always`` also at the end of every
deployment, cleaning and servicing in the agent, ``never``. The conductor
runs the agent's ``log.collect_system_logs`` command (a base64 gzipped
tarball) and writes it to ``[agent]deploy_logs_local_path`` as
``<node uuid>[_<name>][_<instance uuid>][_<label>]_<UTC time>.tar.gz``.
Collecting is best effort: it never fails the operation it follows.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import logging
import os
import threading
from typing import Any

from ironic.common import agent_token, exception
from ironic.conf import CONF
from ironic.drivers.modules import agent_client
from ironic.task import Task

LOG = logging.getLogger(__name__)

#: (node UUID, agent token digest, label) already collected: one agent
#: session is collected once per label (a failure, then its tear down).
_DONE: set[tuple[str, str, str]] = set()
_LOCK = threading.Lock()


def check_config() -> None:
    """Refuse (at start-up) a storage backend this service cannot use."""
    if CONF.agent.deploy_logs_storage_backend != "local":
        raise exception.InvalidParameterValue(
            err=f"[agent]deploy_logs_storage_backend = "
                f"{CONF.agent.deploy_logs_storage_backend} needs object "
                f"storage, which this service does not use; set it to "
                f"local.")


def file_name(node: Any, label: str | None) -> str:
    fields = [node.uuid]
    for value in (getattr(node, "name", None),
                  getattr(node, "instance_uuid", None), label):
        if value:
            fields.append(str(value).replace("/", "-"))
    now = datetime.datetime.now(datetime.timezone.utc)
    fields.append(now.strftime("%Y-%m-%d-%H-%M-%S"))
    return "_".join(fields) + ".tar.gz"


def on_failure(task: Task, label: str | None = None) -> str | None:
    if CONF.agent.deploy_logs_collect in ("on_failure", "always"):
        return collect(task, label)
    return None


def on_success(task: Task, label: str | None = None) -> str | None:
    if CONF.agent.deploy_logs_collect == "always":
        return collect(task, label)
    return None


def collect(task: Task, label: str | None = None) -> str | None:
    """Ask the running agent for its logs and store them; the file's path,
    or None when there was no agent or it failed (logged)."""
    node = task.node
    info = node.driver_internal_info or {}
    digest = info.get(agent_token.KEY)
    if not info.get("agent_url") or not digest:
        LOG.info("Node %s: no running agent to collect logs from",
                 node.uuid)
        return None
    key = (node.uuid, digest, label or "")
    with _LOCK:
        if key in _DONE:
            return None
        _DONE.add(key)
    try:
        result = agent_client.AgentClient(node).collect_system_logs()
        logs = (result.get("command_result") or {}).get("system_logs")
        if result.get("command_status") != agent_client.SUCCEEDED or \
                not isinstance(logs, str):
            raise agent_client.AgentError(
                f"the agent answered {agent_client.command_error(result)}")
        data = base64.b64decode(logs, validate=True)
    except (agent_client.AgentError, binascii.Error, ValueError) as e:
        LOG.error("Node %s: collecting the agent's logs failed: %s",
                  node.uuid, e)
        return None
    path = os.path.join(CONF.agent.deploy_logs_local_path,
                        file_name(node, label))
    try:
        os.makedirs(CONF.agent.deploy_logs_local_path, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as e:
        LOG.error("Node %s: storing the agent's logs in %s failed: %s",
                  node.uuid, path, e)
        return None
    LOG.info("Node %s: agent logs stored in %s (%d bytes)", node.uuid,
             path, len(data))
    return path
