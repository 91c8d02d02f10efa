"""Fast track: reuse a ramdisk agent that is already running.

With ``[deploy]fast_track`` (or the node's ``driver_info/fast_track``), an
agent that booted for inspection, cleaning or discovery is left running
when that ends (the node is not powered off, the agent keeps its token
and may look the node up in any state, even ``manageable`` or
``available``). The next cleaning or deployment that needs the agent uses
it as it is, without a reboot, when the agent heartbeated within
``[deploy]fast_track_timeout`` seconds and the node is powered on.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from oslo_utils import strutils

from ironic.common import agent_token, exception, states
from ironic.conf import CONF
from ironic.task import Task

LOG = logging.getLogger(__name__)

#: Where an agent may look its node up when fast track is on: the usual
#: waiting states and the stable states the agent waits in.
LOOKUP_ALLOWED_STATES = states.LOOKUP_ALLOWED_STATES | frozenset(
    {states.ENROLL, states.MANAGEABLE, states.AVAILABLE})


def enabled(node: Any) -> bool:
    """Whether fast track is on for the node (driver_info wins)."""
    value = (getattr(node, "driver_info", None) or {}).get("fast_track")
    if value is None:
        return CONF.deploy.fast_track
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as e:
        raise exception.InvalidParameterValue(
            err=f"Invalid value of driver_info/fast_track of node "
                f"{node.uuid}: {e}") from e


def keeps_agent(node: Any) -> bool:
    """Whether the running agent is kept when an operation ends: fast
    track on and no failure to recover from."""
    try:
        return enabled(node) and not node.last_error
    except exception.InvalidParameterValue:
        return False


def agent_alive(node: Any) -> bool:
    """A token was issued and the agent heartbeated recently enough."""
    info = node.driver_internal_info or {}
    if not agent_token.has_token(node) or not info.get("agent_url"):
        return False
    last = info.get("agent_last_heartbeat")
    if not last:
        return False
    try:
        when = datetime.datetime.fromisoformat(last)
    except (TypeError, ValueError):
        return False
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return (now - when).total_seconds() <= CONF.deploy.fast_track_timeout


def usable(task: Task) -> bool:
    """Whether the operation starting now can use the running agent
    instead of booting the ramdisk."""
    node = task.node
    if not keeps_agent(node) or not agent_alive(node):
        return False
    if node.provision_state in (states.SERVICING, states.SERVICEWAIT):
        # Servicing starts from a deployed instance: never its agent.
        return False
    try:
        powered = task.driver.power.get_power_state(task)
    except Exception as e:  # noqa: BLE001 - then the ramdisk is booted
        LOG.warning("Node %s: cannot read the power state for fast "
                    "track: %s", node.uuid, e)
        return False
    if powered != states.POWER_ON:
        return False
    LOG.info("Node %s: fast track, the running agent (last heartbeat %s) "
             "is used without a reboot", node.uuid,
             node.driver_internal_info.get("agent_last_heartbeat"))
    return True
