"""What drivers may ask of the conductor, and nothing more.

A driver receives a task (``ironic.common.task.Task``) and acts on its
hardware; a few things it needs belong to the conductor: moving the power
state the way every flow does, handing a step's result back to the step
loop, failing a node, the fast-track checks, and taking a node again from
a thread of its own. This module is the one door for them: drivers import
``ironic.conductor.driver_api`` and no other conductor module (the
contract in ``pyproject.toml`` says so), so the conductor can reshape its
flows without touching a driver.
"""

from __future__ import annotations

from ironic.conductor.fast_track import agent_alive, keeps_agent
from ironic.conductor.fast_track import usable as fast_track_usable
from ironic.conductor.inspection_lookup import BMC_KEY, bmc_addresses
from ironic.conductor.power import (
    forget_agent_before_ramdisk,
    node_power_action,
    power_off_or_reboot,
    set_boot_device,
)
from ironic.conductor.steps import KINDS as STEP_KINDS
from ironic.conductor.steps import StepState
from ironic.conductor.steps import automated as automated_steps
from ironic.conductor.steps import fail as fail_steps
from ironic.conductor.steps import replan as replan_steps
from ironic.conductor.steps import resume as resume_steps
from ironic.conductor.task_manager import SHUTDOWN, acquire
from ironic.conductor.utils import fail as fail_node

__all__ = [
    # power, as the flows move it (notifications, fault records)
    "forget_agent_before_ramdisk", "node_power_action",
    "power_off_or_reboot", "set_boot_device",
    # the step loop: what a step's asynchronous end hands back
    "STEP_KINDS", "StepState", "automated_steps", "fail_steps",
    "replan_steps", "resume_steps",
    # a node's failed state with last_error
    "fail_node",
    # fast track
    "agent_alive", "fast_track_usable", "keeps_agent",
    # inspection: the BMC addresses a node is looked up by
    "BMC_KEY", "bmc_addresses",
    # a node taken again from a driver's own thread; set on shutdown
    "acquire", "SHUTDOWN",
]
