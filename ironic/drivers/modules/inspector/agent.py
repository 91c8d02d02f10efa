"""The ``agent`` inspect interface: in-band inspection by the ramdisk.

``inspect_hardware`` records the BMC addresses lookup will match, moves the
node to the inspection network, has the boot interface prepare the
ramdisk (telling it where to post its data) and powers the node on; the
node then waits in ``inspect wait``. When the ramdisk posts its data
(``POST /v1/continue_inspection``) the conductor calls
``continue_inspection``, which runs the configured inspection hooks and
tears the ramdisk environment down. ``abort`` tears it down too.
"""

from __future__ import annotations

import logging
from typing import Any

from ironic.common import exception, inspection_lookup, states, utils
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import agent_base
from ironic.drivers.modules.inspector.hooks import base as hooks

LOG = logging.getLogger(__name__)

CALLBACK_PATH = "/v1/continue_inspection"


def callback_url() -> str:
    """Where the ramdisk posts its data."""
    base_url = (CONF.inspector.callback_endpoint_override
                or utils.ramdisk_api_url()).rstrip("/")
    if base_url.endswith(CALLBACK_PATH):
        return base_url
    return base_url + CALLBACK_PATH


def ramdisk_params(task: Any) -> dict[str, str]:
    """Kernel parameters making the ramdisk inspect and post its data."""
    params = {"ipa-inspection-callback-url": callback_url(),
              "ipa-inspection-collectors": "default"}
    for item in CONF.inspector.extra_kernel_params.split():
        key, _, value = item.partition("=")
        params[key] = value
    return params


def _power(task: Any, target: str) -> None:
    from ironic.conductor import power
    # A successful power action clears last_error; the reason an abort
    # or a failure recorded just before must stay.
    kept = task.node.last_error
    power.node_power_action(task, target)
    if kept and task.node.last_error is None:
        task.node.last_error = kept
        task.node.save()


class AgentInspect(base.InspectInterface):
    """In-band inspection with ironic-python-agent."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Any) -> None:
        try:
            hooks.load()
        except exception.DriverLoadError as e:
            raise exception.InvalidParameterValue(
                err=f"In-band inspection is misconfigured: {e}") from e
        agent_base.check_ramdisk_boot(task, "inspection")

    def inspect_hardware(self, task: Any) -> str:
        node = task.node
        info = dict(node.driver_internal_info or {})
        info[inspection_lookup.BMC_KEY] = inspection_lookup.bmc_addresses(
            node.driver_info or {})
        info.pop("agent_secret_token", None)
        node.driver_internal_info = info
        node.save()
        network = task.driver.network
        if network is not None:
            network.add_inspection_network(task)
        task.driver.boot.prepare_ramdisk(task, ramdisk_params(task))
        if task.driver.power.get_power_state(task) == states.POWER_ON:
            _power(task, states.REBOOT)
        else:
            _power(task, states.POWER_ON)
        LOG.info("Node %s is booting the inspection ramdisk", node.uuid)
        return states.INSPECTWAIT

    def continue_inspection(self, task: Any, inventory: dict,
                            plugin_data: dict) -> str | None:
        hooks.run(task, inventory, plugin_data, hooks.load())
        self._tear_down(task)
        return None

    def abort(self, task: Any) -> None:
        self._tear_down(task)

    def _tear_down(self, task: Any) -> None:
        """Leave the ramdisk: boot and network clean-up, power off."""
        node = task.node
        info = dict(node.driver_internal_info or {})
        for key in ("agent_secret_token", inspection_lookup.BMC_KEY):
            info.pop(key, None)
        node.driver_internal_info = info
        node.save()
        task.driver.boot.clean_up_ramdisk(task)
        network = task.driver.network
        if network is not None:
            network.remove_inspection_network(task)
        if CONF.inspector.power_off and not node.disable_power_off:
            _power(task, states.POWER_OFF)
