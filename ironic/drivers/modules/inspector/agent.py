"""The ``agent`` inspect interface: in-band inspection by the ramdisk.

``inspect_hardware`` records the BMC addresses lookup will match, moves the
node to the inspection network, has the boot interface prepare the
ramdisk (telling it where to post its data) and powers the node on; the
node then waits in ``inspect wait``. When the ramdisk posts its data
(``POST /v1/continue_inspection``) the conductor calls
``continue_inspection``, which runs the configured inspection hooks and
tears the ramdisk environment down. ``abort`` tears it down too.

With ``[inspector]require_managed_boot = false`` a node whose boot
interface cannot boot the ramdisk (no ports, no deploy images...) is
inspected *unmanaged*: the conductor only sets a one-time network boot and
powers the node on, and a separate (i)PXE environment - dnsmasq beside
``ironic-pxe-filter`` - boots it into the ramdisk. Managed inspection stays
the default, and is used whenever the boot interface can do it.
"""

from __future__ import annotations

import logging

from ironic.common import boot_devices, exception, states, utils
from ironic.conf import CONF
from ironic.drivers import base
from ironic.drivers.modules import agent_base
from ironic.drivers.modules.inspector.hooks import base as hooks
from ironic.task import Task

LOG = logging.getLogger(__name__)

CALLBACK_PATH = "/v1/continue_inspection"
#: driver_internal_info: whether this inspection's boot is the service's.
MANAGED_KEY = "inspector_manage_boot"


def callback_url() -> str:
    """Where the ramdisk posts its data."""
    base_url = (CONF.inspector.callback_endpoint_override
                or utils.ramdisk_api_url()).rstrip("/")
    if base_url.endswith(CALLBACK_PATH):
        return base_url
    return base_url + CALLBACK_PATH


def ramdisk_params(task: Task) -> dict[str, str]:
    """Kernel parameters making the ramdisk inspect and post its data."""
    params = {"ipa-inspection-callback-url": callback_url(),
              "ipa-inspection-collectors": "default"}
    for item in CONF.inspector.extra_kernel_params.split():
        key, _, value = item.partition("=")
        params[key] = value
    return params


def _power(task: Task, target: str) -> None:
    # A successful power action clears last_error; the reason an abort
    # or a failure recorded just before must stay.
    kept = task.node.last_error
    task.conductor.power_action(target)
    if kept and task.node.last_error is None:
        task.node.last_error = kept
        task.node.save()


def manages_boot(task: Task) -> bool:
    """Whether the boot interface boots the ramdisk (managed inspection);
    raises when it cannot and ``[inspector]require_managed_boot`` holds."""
    try:
        agent_base.check_ramdisk_boot(task, "inspection")
        return True
    except exception.Invalid as e:
        if CONF.inspector.require_managed_boot:
            raise
        LOG.info("Node %s: unmanaged inspection, a separate network boot "
                 "environment must boot the ramdisk (%s)", task.node.uuid, e)
        return False


def _start_unmanaged(task: Task) -> None:
    """Boot from the network once; the separate PXE environment serves."""
    if not task.node.disable_power_off:
        _power(task, states.POWER_OFF)
    task.conductor.set_boot_device(boot_devices.PXE, persistent=False)
    _power(task, states.REBOOT if task.node.disable_power_off
           else states.POWER_ON)


class AgentInspect(base.InspectInterface):
    """In-band inspection with ironic-python-agent."""

    def get_properties(self) -> dict[str, str]:
        return {}

    def validate(self, task: Task) -> None:
        try:
            hooks.load()
        except exception.DriverLoadError as e:
            raise exception.InvalidParameterValue(
                err=f"In-band inspection is misconfigured: {e}") from e
        manages_boot(task)

    def inspect_hardware(self, task: Task) -> str:
        node = task.node
        managed = manages_boot(task)
        task.conductor.remember_bmc_addresses()
        info = dict(node.driver_internal_info or {})
        info.pop("agent_secret_token", None)
        info[MANAGED_KEY] = managed
        node.driver_internal_info = info
        node.save()
        if not managed:
            _start_unmanaged(task)
            LOG.info("Node %s is booting from the network for unmanaged "
                     "inspection", node.uuid)
            return states.INSPECTWAIT
        network = task.driver.network
        if network is not None:
            network.add_inspection_network(task)
        task.conductor.forget_agent_before_ramdisk()
        task.driver.boot.prepare_ramdisk(task, ramdisk_params(task))
        if task.driver.power.get_power_state(task) == states.POWER_ON:
            _power(task, states.REBOOT)
        else:
            _power(task, states.POWER_ON)
        LOG.info("Node %s is booting the inspection ramdisk", node.uuid)
        return states.INSPECTWAIT

    def continue_inspection(self, task: Task, inventory: dict,
                            plugin_data: dict) -> str | None:
        hooks.run(task, inventory, plugin_data, hooks.load())
        self._tear_down(task)
        return None

    def abort(self, task: Task) -> None:
        self._tear_down(task)

    def _tear_down(self, task: Task) -> None:
        """Leave the ramdisk: boot and network clean-up, power off."""
        node = task.node
        keep = task.conductor.keeps_agent()
        task.conductor.forget_bmc_addresses()
        info = dict(node.driver_internal_info or {})
        if not keep:
            info.pop("agent_secret_token", None)
        managed = info.pop(MANAGED_KEY, True)
        node.driver_internal_info = info
        node.save()
        if managed:
            task.driver.boot.clean_up_ramdisk(task)
            network = task.driver.network
            if network is not None:
                network.remove_inspection_network(task)
        if keep:
            LOG.info("Node %s: fast track, the agent is left running after "
                     "inspection", node.uuid)
        elif CONF.inspector.power_off and not node.disable_power_off:
            _power(task, states.POWER_OFF)
