"""What the conductor does for the ramdisk endpoints (lookup, heartbeat).

``node_for_lookup`` issues the agent token on the first lookup of an agent
boot; ``heartbeat`` checks the token, records where and what the agent is
under the public ``driver_internal_info`` keys and hands the heartbeat to the
interface that waits for the agent, which may resume steps.

``record_idle_heartbeat`` comes first: when that interface would do nothing
with the heartbeat, the same checks pass and the record is all there is to
write, it is written with one UPDATE conditional on the node being unlocked
and unchanged, without the lock and the worker; anything else goes the
locked way. It decides on the node as the API read it when the API sends
that along (``IDLE_FIELDS``, RPC 1.11): the conditional UPDATE then
checks that the node is still as the API saw it, and the conductor does
not read it again.
"""

from __future__ import annotations

import datetime
import logging
import os
from typing import Any

from ironic import driver_registry, interfaces
from ironic.common import agent_token, exception, states
from ironic.conductor import utils as cond_utils
from ironic.conf import CONF
from ironic.objects.node import Node
from ironic.task import Task

LOG = logging.getLogger(__name__)

#: The node fields lookup shows to the ramdisk (besides links).
LOOKUP_FIELDS = ("uuid", "properties", "instance_info",
                 "driver_internal_info", "management_interface")

# Which interface a heartbeat belongs to, by the state the node waits in.
_HEARTBEAT_INTERFACE = {
    states.RESCUING: "rescue", states.RESCUEWAIT: "rescue",
    states.INSPECTING: "inspect", states.INSPECTWAIT: "inspect",
}


def node_for_lookup(task: Task) -> dict:
    """The node's lookup fields and, on the first lookup of this agent, its
    new token (None afterwards: the API then shows it masked).

    ``task`` starts shared; it is upgraded only to issue a token.
    """
    token = None
    if not agent_token.has_token(task.node):
        task.upgrade_lock(purpose="issuing an agent token")
        if not agent_token.has_token(task.node):
            token = agent_token.issue(task.node)
            task.node.save()
            LOG.info("Agent token issued for node %s", task.node.uuid)
    node = task.node
    return {"node": {name: getattr(node, name) for name in LOOKUP_FIELDS},
            "agent_token": token}


def heartbeat(task: Task, callback_url: str, agent_version: str | None,
              agent_token_value: str | None, agent_verify_ca: str | None,
              agent_status: str | None,
              agent_status_message: str | None) -> None:
    """Accept one heartbeat on a locked node (errors are 4xx) and hand it
    to a worker, which keeps the lock until it is processed.

    What the agent may be refused for (its token, a changed callback URL
    or certificate) is checked here, so the caller still hears of it; the
    record and what the waiting interface does next (which may resume
    steps and talk to the agent) happen after the answer, as in Ironic.
    """
    node = task.node
    if not agent_token.accept(node, agent_token_value):
        LOG.error("Heartbeat of node %s has an invalid or missing agent "
                  "token", node.uuid)
        raise exception.InvalidParameterValue(
            err="Invalid or missing agent token received.")
    _check_callback_url(node, callback_url)
    verify_ca = store_certificate(node, agent_verify_ca) \
        if agent_verify_ca else None
    task.spawn_after(process_heartbeat, task, callback_url, agent_version,
                     verify_ca, agent_status, agent_status_message)


#: What the idle path's decision rests on: a heartbeat is recorded
#: without the lock only while every one of these is as it was read (the
#: UUID too: the row written is the one that was read, whoever read it).
_IDLE_GUARD = ("uuid", "driver_internal_info", "provision_state",
               "maintenance", "driver",
               *(interfaces.FIELDS[kind]
                 for kind in ("deploy", "inspect", "rescue")))

#: The node fields the idle path reads: the API sends them with a
#: heartbeat as it read them (RPC 1.11). Every interface is there because
#: the driver is built from all of them.
IDLE_FIELDS = ("id", "reservation", *_IDLE_GUARD,
               *(field for field in interfaces.FIELDS.values()
                 if field not in _IDLE_GUARD))


def idle_fields(node: Any) -> dict[str, Any] | None:
    """``IDLE_FIELDS`` of a node object as plain JSON; None when ``node``
    does not have them all (the conductor then reads the node)."""
    try:
        return {name: getattr(node, name) for name in IDLE_FIELDS}
    except AttributeError:
        return None


def _idle_node(node_id: str, seen: dict[str, Any] | None) -> Node | None:
    """The node the idle path decides on: as the caller read it when it
    sent that, else as read now; None when there is no such node."""
    if seen is not None and seen.get("uuid") == node_id and \
            set(seen) >= set(IDLE_FIELDS):
        # Only these: a newer caller may send more than this conductor
        # knows of.
        return Node.as_read_elsewhere({name: seen[name]
                                       for name in IDLE_FIELDS})
    try:
        return Node.get(node_id)
    except exception.NotFound:
        return None


def record_idle_heartbeat(node_id: str, callback_url: str,
                          agent_version: str | None,
                          agent_token_value: str | None,
                          agent_verify_ca: str | None,
                          seen: dict[str, Any] | None = None) -> bool:
    """Record a heartbeat that nothing waits for, without the node's lock.

    When the interface the heartbeat belongs to would do nothing with it
    (a fake or no-op interface, or a node in no state where a step waits
    for the agent, or in maintenance), the record is all a heartbeat
    changes: it is written in one UPDATE that applies only while nobody
    holds the node's lock and the node is still as read (no lock taken, no
    worker). True when it was recorded that way; False when anything is
    otherwise - the node locked, changed meanwhile, a check that fails, a
    new certificate to store, an interface that acts - and the caller then
    takes the locked path (``heartbeat``), which gives today's answer,
    errors included.

    ``seen``: the node's ``IDLE_FIELDS`` as the caller (the API) read
    them; the decision is taken on them and the UPDATE applies only while
    the node is still so, which spares reading it here. Data the node no
    longer matches only sends the heartbeat down the locked path, which
    reads the node anew.
    """
    node = _idle_node(node_id, seen)
    if node is None:
        return False
    info = node.driver_internal_info or {}
    if node.reservation is not None or \
            not agent_token.matches(node, agent_token_value):
        return False
    try:
        _check_callback_url(node, callback_url)
    except exception.InvalidParameterValue:
        return False
    verify_ca = None
    if agent_verify_ca:
        verify_ca = _known_certificate(info, agent_verify_ca)
        if verify_ca is None:
            return False
    if not node.maintenance and not _ignored_by_interface(node):
        return False
    values = dict(info, **_record_values(callback_url, agent_version,
                                          verify_ca))
    if not node.update_if_unreserved({"driver_internal_info": values},
                                     _IDLE_GUARD):
        LOG.debug("Heartbeat of node %s: the node changed or was locked "
                  "meanwhile; taking the lock", node.uuid)
        return False
    # Remembered for commands, as the locked path does (it matched).
    agent_token.accept(node, agent_token_value)
    LOG.debug("Heartbeat of node %s recorded (nothing waits for it)",
              node.uuid)
    return True


def _known_certificate(info: dict, certificate: str) -> str | None:
    """The path of the stored certificate when it is ``certificate``
    (nothing to write); None otherwise."""
    known = info.get("agent_verify_ca")
    if not known:
        return None
    try:
        with open(known, encoding="utf-8") as f:
            return known if f.read() == certificate else None
    except OSError:
        return None


def _ignored_by_interface(node: Any) -> bool:
    """Whether the interface a heartbeat of ``node`` goes to would do
    nothing with it; False when in doubt (a driver that cannot be built
    here fails on the locked path, as before)."""
    try:
        driver = driver_registry.build_driver(node)
    except Exception:  # noqa: BLE001 - the locked path reports it
        return False
    kind = _HEARTBEAT_INTERFACE.get(node.provision_state, "deploy")
    iface = getattr(driver, kind, None)
    if iface is None:
        return True
    ignores = getattr(iface, "ignores_heartbeat", None)
    return bool(ignores is not None and ignores(node))


def process_heartbeat(task: Task, callback_url: str,
                      agent_version: str | None, verify_ca: str | None,
                      agent_status: str | None,
                      agent_status_message: str | None) -> None:
    """Record an accepted heartbeat and pass it to the waiting interface
    (in a worker, under the node lock ``heartbeat`` took)."""
    node = task.node
    _record(node, callback_url, agent_version, verify_ca)
    iface = None if node.maintenance else _interface_for(task)
    if iface is None:
        if node.maintenance:
            LOG.debug("Heartbeat of node %s recorded; the node is in "
                      "maintenance, nothing else is done", node.uuid)
        task.finish()
        return
    # The record is written with the interface's own changes, or with the
    # release when it has none (one write instead of two for a heartbeat
    # that only says the agent is alive); the interface reads it from the
    # node it is given.
    try:
        iface.heartbeat(task, callback_url, agent_version,
                        agent_verify_ca=verify_ca, agent_status=agent_status,
                        agent_status_message=agent_status_message)
    except Exception:
        if node.what_changed():
            node.save()
        raise
    task.finish()


def _check_callback_url(node: Any, callback_url: str) -> None:
    if CONF.agent.require_tls and callback_url and \
            not callback_url.lower().startswith("https://"):
        raise exception.InvalidParameterValue(
            err=f"TLS is required by the configuration; the callback URL "
                f"{callback_url} of node {node.uuid} is refused.")
    known = (node.driver_internal_info or {}).get("agent_url")
    if known and known != callback_url:
        LOG.error("Heartbeat of node %s announces callback URL %s, but its "
                  "agent is at %s", node.uuid, callback_url, known)
        raise exception.InvalidParameterValue(
            err='Detected change in ramdisk provided "callback_url".')


def _record(node: Any, callback_url: str, agent_version: str | None,
            verify_ca: str | None) -> None:
    cond_utils.set_internal(node, **_record_values(callback_url,
                                                   agent_version, verify_ca))


def _record_values(callback_url: str, agent_version: str | None,
                   verify_ca: str | None) -> dict[str, str]:
    """The driver_internal_info keys a heartbeat records."""
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    values = {"agent_url": callback_url,
              "agent_last_heartbeat": now.isoformat()}
    if agent_version is not None:
        values["agent_version"] = agent_version
    if verify_ca is not None:
        values["agent_verify_ca"] = verify_ca
    return values


def store_certificate(node: Any, certificate: str) -> str:
    """Keep the agent's TLS certificate in a file; the path is recorded.

    An agent keeps one certificate for its life: a different one for the
    same agent is refused.
    """
    path = os.path.join(CONF.agent.certificates_path, f"{node.uuid}.crt")
    known = (node.driver_internal_info or {}).get("agent_verify_ca")
    if known and os.path.exists(known):
        with open(known, encoding="utf-8") as f:
            if f.read() == certificate:
                return known
        raise exception.InvalidParameterValue(
            err='Detected change in ramdisk provided "agent_verify_ca".')
    try:
        os.makedirs(CONF.agent.certificates_path, mode=0o700, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(certificate)
    except OSError as e:
        LOG.error("Cannot store the agent certificate of node %s in %s: %s",
                  node.uuid, path, e)
        raise exception.IronicException(
            "Cannot store the agent's certificate.") from e
    return path


def _interface_for(task: Task) -> Any:
    kind = _HEARTBEAT_INTERFACE.get(task.node.provision_state, "deploy")
    iface = getattr(task.driver, kind, None)
    if iface is None:
        LOG.debug("Heartbeat of node %s: no %s interface to pass it to",
                  task.node.uuid, kind)
    return iface
