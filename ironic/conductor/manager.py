"""The conductor's RPC endpoint: a thin dispatcher into the flow modules.

Every method takes the caller's context (a dict) and plain JSON arguments,
takes the node's lock, checks what must be checked before the caller is
answered, moves the node through the state machine and hands the long work
to a worker (``task.process_event(..., callback=...)``).

RPC API history (bump the minor for additions, keep old calls working):
    1.0 - every method below
    1.1 - update_node, destroy_node
    1.2 - inject_nmi
    1.3 - continue_inspection, issue_agent_token
    1.4 - vif_list, vif_attach, vif_detach
    1.5 - create_allocation, destroy_allocation
    1.6 - get_supported_indicators, get_indicator_state,
          set_indicator_state
    1.7 - get_node_with_token and heartbeat (the ramdisk endpoints)
    1.8 - attach_virtual_media, detach_virtual_media
    1.9 - get_virtual_media
    1.10 - discover_node (auto-discovery)
    1.11 - heartbeat takes node_fields: the node as the API read it, which
           the conductor decides on instead of reading it again (a 1.7
           call, without them, is answered as before)
"""

from __future__ import annotations

import logging
from typing import Any

from ironic import driver_registry
from ironic.common import agent_token, exception
from ironic.common import context as ctx_mod
from ironic.conductor import (
    allocations,
    cleaning,
    deployments,
    discovery,
    inspection,
    limits,
    management,
    node_edits,
    power,
    ramdisk,
    rescue,
    servicing,
    task_manager,
    vendor_passthru,
    vmedia,
    waits,
    workers,
)
from ironic.conductor import utils as cond_utils
from ironic.metrics import rpc_endpoint
from ironic.objects.allocation import Allocation

LOG = logging.getLogger(__name__)

RPC_API_VERSION = "1.11"


def _context(value: Any) -> ctx_mod.RequestContext:
    if isinstance(value, ctx_mod.RequestContext):
        return value
    return ctx_mod.RequestContext.from_dict(value or {})


@rpc_endpoint
class ConductorManager:
    RPC_API_VERSION = RPC_API_VERSION

    @property
    def target(self):
        # Read by oslo.messaging's dispatcher, the only user: importing it
        # waits until a message server exists (see ironic.common.rpc).
        import oslo_messaging
        return oslo_messaging.Target(version=RPC_API_VERSION)

    def __init__(self, host: str, pool: workers.WorkerPool | None = None):
        self.host = host
        self.pool = pool or task_manager.default_pool()

    def _task(self, context: Any, node_id: Any, purpose: str,
              shared: bool = False,
              retry: bool = True) -> task_manager.TaskManager:
        return task_manager.acquire(_context(context), node_id,
                                    purpose=purpose, shared=shared,
                                    host=self.host, pool=self.pool,
                                    retry=retry)

    # ------------------------------------------------------------------
    # node records

    def update_node(self, context, node_id, changes):
        """Write validated column values (the API's PATCH) under the lock."""
        with self._task(context, node_id, "node update") as task:
            return node_edits.update_node(task, changes)

    def destroy_node(self, context, node_id):
        with self._task(context, node_id, "node deletion") as task:
            node_edits.destroy_node(task)

    # ------------------------------------------------------------------
    # allocations

    def create_allocation(self, context, values):
        """Record an allocation; with ``node`` (a UUID) backfill it for
        that deployed node, else search for a node in a worker."""
        values = dict(values)
        node_id = values.pop("node", None)
        if node_id is None:
            return allocations.create_allocation(
                _context(context), self.host, self.pool, values)
        with self._task(context, node_id, "allocation backfill") as task:
            return allocations.backfill(task, values)

    def destroy_allocation(self, context, allocation_id):
        alloc = Allocation.get(allocation_id)
        if alloc.node_id is None:
            alloc.destroy()
            return
        with self._task(context, alloc.node_id, "allocation deletion") \
                as task:
            allocations.destroy_allocation(task, alloc)

    # ------------------------------------------------------------------
    # power and management

    def change_node_power_state(self, context, node_id, new_state,
                                timeout=None):
        with self._task(context, node_id, "changing power state") as task:
            power.start_power_change(task, new_state, timeout)

    def set_boot_device(self, context, node_id, device, persistent=False):
        with self._task(context, node_id, "setting boot device") as task:
            power.set_boot_device(task, device, persistent)

    def get_boot_device(self, context, node_id):
        with self._task(context, node_id, "getting boot device",
                        shared=True) as task:
            return power.get_boot_device(task)

    def get_supported_boot_devices(self, context, node_id):
        with self._task(context, node_id, "listing boot devices",
                        shared=True) as task:
            return power.supported_boot_devices(task)

    def set_boot_mode(self, context, node_id, mode):
        with self._task(context, node_id, "changing boot mode") as task:
            management.validate_boot_mode(task, mode)
            task.spawn_after(management.change_boot_mode, task, mode)

    def set_secure_boot_state(self, context, node_id, state):
        with self._task(context, node_id, "changing secure boot") as task:
            management.validate_secure_boot(task)
            task.spawn_after(management.change_secure_boot, task,
                             bool(state))

    def inject_nmi(self, context, node_id):
        with self._task(context, node_id, "injecting NMI") as task:
            management.inject_nmi(task)

    def get_supported_indicators(self, context, node_id, component=None):
        with self._task(context, node_id, "listing indicators",
                        shared=True) as task:
            return management.supported_indicators(task, component)

    def get_indicator_state(self, context, node_id, component, indicator):
        with self._task(context, node_id, "reading an indicator",
                        shared=True) as task:
            return management.get_indicator_state(task, component,
                                                  indicator)

    def set_indicator_state(self, context, node_id, component, indicator,
                            state):
        with self._task(context, node_id, "setting an indicator") as task:
            management.set_indicator_state(task, component, indicator,
                                           state)

    # ------------------------------------------------------------------
    # VIFs

    def vif_list(self, context, node_id):
        with self._task(context, node_id, "listing VIFs",
                        shared=True) as task:
            return cond_utils.interface(task, "network").vif_list(task)

    def vif_attach(self, context, node_id, vif_info):
        with self._task(context, node_id, "attaching a VIF") as task:
            network = cond_utils.interface(task, "network")
            network.validate(task)
            network.vif_attach(task, vif_info)

    def vif_detach(self, context, node_id, vif_id):
        with self._task(context, node_id, "detaching a VIF") as task:
            network = cond_utils.interface(task, "network")
            network.validate(task)
            network.vif_detach(task, vif_id)

    def attach_virtual_media(self, context, node_id, device_type,
                             image_url, image_download_source="local"):
        with self._task(context, node_id, "attaching virtual media") \
                as task:
            vmedia.validate(task, "attach_virtual_media")
            task.spawn_after(vmedia.attach, task, device_type, image_url)

    def detach_virtual_media(self, context, node_id, device_types=None):
        with self._task(context, node_id, "detaching virtual media") \
                as task:
            vmedia.validate(task, "detach_virtual_media")
            task.spawn_after(vmedia.detach, task, device_types)

    def get_virtual_media(self, context, node_id):
        with self._task(context, node_id, "reading virtual media",
                        shared=True) as task:
            return vmedia.get(task)

    def set_console_mode(self, context, node_id, enabled):
        with self._task(context, node_id, "changing console mode") as task:
            if power.console_change_needed(task, enabled):
                task.spawn_after(power.set_console_mode, task, enabled)

    def get_console_information(self, context, node_id):
        with self._task(context, node_id, "getting console",
                        shared=True) as task:
            return power.get_console_information(task)

    def set_target_raid_config(self, context, node_id, target_raid_config):
        with self._task(context, node_id, "setting target RAID config") \
                as task:
            power.set_target_raid_config(task, target_raid_config)

    def validate_driver_interfaces(self, context, node_id):
        with self._task(context, node_id, "validating interfaces",
                        shared=True) as task:
            return driver_registry.validate_driver_interfaces(task)

    def vendor_passthru(self, context, node_id, driver_method, http_method,
                        info):
        return vendor_passthru.node_call(self, _context(context), node_id,
                                         driver_method, http_method, info)

    def driver_vendor_passthru(self, context, driver_name, driver_method,
                               http_method, info):
        return vendor_passthru.driver_call(self, _context(context),
                                           driver_name, driver_method,
                                           http_method, info)

    # ------------------------------------------------------------------
    # the ramdisk (lookup and heartbeat)

    def get_node_with_token(self, context, node_id):
        """Lookup fields of the node; a new agent token the first time."""
        with self._task(context, node_id, "agent lookup",
                        shared=True) as task:
            return ramdisk.node_for_lookup(task)

    def heartbeat(self, context, node_id, callback_url, agent_version=None,
                  agent_token=None, agent_verify_ca=None, agent_status=None,
                  agent_status_message=None, node_fields=None):
        # Most heartbeats only say the agent is alive: recorded with one
        # conditional UPDATE, no lock, when nothing else would happen.
        # ``node_fields`` (1.11): the node as the API read it, so that it
        # is not read again here.
        if ramdisk.record_idle_heartbeat(node_id, callback_url,
                                         agent_version, agent_token,
                                         agent_verify_ca, node_fields):
            return
        # Heartbeats repeat: a locked node answers 409 at once and the
        # agent tries again, rather than holding an RPC thread waiting.
        with self._task(context, node_id, "agent heartbeat",
                        retry=False) as task:
            ramdisk.heartbeat(task, callback_url, agent_version,
                              agent_token, agent_verify_ca, agent_status,
                              agent_status_message)

    # ------------------------------------------------------------------
    # provisioning

    def do_provisioning_action(self, context, node_id, action):
        """manage, provide, inspect, adopt, abort, unhold."""
        handler = _ACTIONS.get(action)
        if handler is None:
            raise exception.InvalidParameterValue(
                err=f"Unknown provisioning action {action!r}.")
        if action == "provide":
            limits.check("cleaning")
        with self._task(context, node_id, f"provision action {action}") \
                as task:
            task.check_event(action)
            handler(task)

    def continue_inspection(self, context, node_id, inventory,
                            plugin_data=None):
        """Inspection data from the ramdisk (node in inspect wait)."""
        with self._task(context, node_id, "continuing inspection") as task:
            inspection.start_continue(task, inventory, plugin_data or {})

    def discover_node(self, context, node_id, inventory, plugin_data,
                      issue_token=False):
        """Enroll an unknown machine as the node of UUID ``node_id`` and
        process its inspection data; NotFound when it cannot (or was
        already)."""
        return discovery.enroll(_context(context), self.host, self.pool,
                                node_id, inventory, plugin_data or {},
                                issue_token)

    def issue_agent_token(self, context, node_id):
        """A new agent token for the node's ramdisk, or None when one was
        issued already (the ramdisk got it then)."""
        with self._task(context, node_id, "issuing agent token") as task:
            token = agent_token.issue(task.node)
            if token is not None:
                task.node.save()
            return token

    def continue_node_steps(self, context, node_id, skip_current=True):
        """Resume a node waiting on an asynchronous step."""
        with self._task(context, node_id, "continuing steps") as task:
            waits.continue_steps(task, skip_current)

    def do_node_deploy(self, context, node_id, rebuild=False,
                       configdrive=None, deploy_steps=None):
        limits.check("provisioning")
        with self._task(context, node_id, "node deployment") as task:
            deployments.start_deploy(task, rebuild, configdrive,
                                     deploy_steps)

    def do_node_tear_down(self, context, node_id):
        limits.check("unprovisioning")
        with self._task(context, node_id, "node tear down") as task:
            deployments.start_tear_down(task)

    def do_node_clean(self, context, node_id, clean_steps,
                      disable_ramdisk=False):
        limits.check("cleaning")
        with self._task(context, node_id, "manual cleaning") as task:
            cleaning.start_manual(task, clean_steps, disable_ramdisk)

    def do_node_service(self, context, node_id, service_steps,
                        disable_ramdisk=False):
        with self._task(context, node_id, "servicing") as task:
            servicing.start(task, service_steps, disable_ramdisk)

    def do_node_rescue(self, context, node_id, rescue_password):
        with self._task(context, node_id, "node rescue") as task:
            rescue.start_rescue(task, rescue_password)

    def do_node_unrescue(self, context, node_id):
        with self._task(context, node_id, "node unrescue") as task:
            rescue.start_unrescue(task)


# The verbs of do_provisioning_action, each started by its flow module.
_ACTIONS = {
    "manage": inspection.start_manage,
    "provide": cleaning.start_provide,
    "inspect": inspection.start_inspect,
    "adopt": deployments.start_adopt,
    "abort": waits.abort,
    "unhold": waits.unhold,
}
