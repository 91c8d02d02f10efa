"""The only client of the conductors' RPC API.

The API (and conductors talking to each other) call these methods; each
picks the conductor that owns the node on the hash ring and sends the call
over the configured transport (``ironic.common.rpc``). Arguments are node
identifiers and plain JSON, never objects.
"""

from __future__ import annotations

import random
from typing import Any

from ironic import hash_ring
from ironic.common import exception, rpc
from ironic.conductor import ramdisk
from ironic.conductor.manager import RPC_API_VERSION
from ironic.conf import CONF


def _ctx(context: Any) -> dict:
    if context is None:
        return {}
    return context.to_dict() if hasattr(context, "to_dict") else dict(context)


class ConductorAPI:
    """Versioned client; methods mirror ``ConductorManager``."""

    RPC_API_VERSION = RPC_API_VERSION

    def __init__(self, transport: rpc.Transport | None = None):
        self._transport = transport

    @property
    def transport(self) -> rpc.Transport:
        return self._transport or rpc.get_transport()

    def host_for(self, node: Any) -> str:
        """The conductor owning ``node`` (object or dict with uuid, driver,
        conductor_group); NoValidHost (503) when none is alive."""
        hosts = hash_ring.manager().hosts_for(node)
        if not hosts:
            raise exception.NoValidHost(
                reason=f"node {getattr(node, 'uuid', node)}")
        return hosts[0]

    def _send(self, host: str, method: str, context: Any, kwargs: dict,
              version: str) -> Any:
        try:
            return self.transport.call(host, method, _ctx(context), kwargs,
                                       version)
        except exception.ConductorUnreachable:
            # The next requests go to the conductor the ring names next.
            hash_ring.manager().suspect(host)
            raise

    def _call(self, context: Any, node: Any, method: str,
              version: str = "1.0", **kwargs: Any) -> Any:
        kwargs["node_id"] = getattr(node, "uuid", None) or node["uuid"]
        return self._send(self.host_for(node), method, context, kwargs,
                          version)

    # -- node records --------------------------------------------------------

    def update_node(self, context, node, changes: dict) -> dict:
        """Save ``changes`` (column values) to ``node`` under its lock;
        ``node`` names the conductor (its new driver and group). Returns
        the saved columns, times as ISO 8601 strings."""
        return self._call(context, node, "update_node", version="1.1",
                          changes=changes)

    def destroy_node(self, context, node) -> None:
        return self._call(context, node, "destroy_node", version="1.1")

    # -- allocations -----------------------------------------------------------

    def any_host(self, conductor_group: str | None = None) -> str:
        """A live conductor (of ``conductor_group`` when given) for work
        that belongs to no node yet; NoValidHost (503) when none."""
        hosts = sorted(h for h, group in hash_ring.manager().members
                       if conductor_group is None
                       or (group or "") == conductor_group)
        if not hosts:
            raise exception.NoValidHost(
                reason=f"conductor group '{conductor_group or ''}'")
        return random.choice(hosts)

    def create_allocation(self, context, values: dict, host: str) -> dict:
        """Record an allocation on conductor ``host`` (the owner of
        ``values['node']`` for a backfill); its columns, times as ISO 8601
        strings."""
        return self._send(host, "create_allocation", context,
                          {"values": values}, "1.5")

    def destroy_allocation(self, context, allocation_id: str,
                           host: str) -> None:
        return self._send(host, "destroy_allocation", context,
                          {"allocation_id": allocation_id}, "1.5")

    # -- power and management ----------------------------------------------

    def change_node_power_state(self, context, node, new_state,
                                timeout=None):
        return self._call(context, node, "change_node_power_state",
                          new_state=new_state, timeout=timeout)

    def set_boot_device(self, context, node, device, persistent=False):
        return self._call(context, node, "set_boot_device", device=device,
                          persistent=persistent)

    def get_boot_device(self, context, node) -> dict:
        return self._call(context, node, "get_boot_device")

    def get_supported_boot_devices(self, context, node) -> list[str]:
        return self._call(context, node, "get_supported_boot_devices")

    def set_boot_mode(self, context, node, mode):
        return self._call(context, node, "set_boot_mode", mode=mode)

    def set_secure_boot_state(self, context, node, state):
        return self._call(context, node, "set_secure_boot_state",
                          state=state)

    def inject_nmi(self, context, node):
        return self._call(context, node, "inject_nmi", version="1.2")

    def get_supported_indicators(self, context, node, component=None
                                 ) -> dict:
        return self._call(context, node, "get_supported_indicators",
                          version="1.6", component=component)

    def get_indicator_state(self, context, node, component, indicator
                            ) -> str:
        return self._call(context, node, "get_indicator_state",
                          version="1.6", component=component,
                          indicator=indicator)

    def set_indicator_state(self, context, node, component, indicator,
                            state):
        return self._call(context, node, "set_indicator_state",
                          version="1.6", component=component,
                          indicator=indicator, state=state)

    def vif_list(self, context, node) -> list[dict]:
        return self._call(context, node, "vif_list", version="1.4")

    def vif_attach(self, context, node, vif_info):
        return self._call(context, node, "vif_attach", version="1.4",
                          vif_info=vif_info)

    def vif_detach(self, context, node, vif_id):
        return self._call(context, node, "vif_detach", version="1.4",
                          vif_id=vif_id)

    def attach_virtual_media(self, context, node, device_type, image_url,
                             image_download_source="local"):
        return self._call(context, node, "attach_virtual_media",
                          version="1.8", device_type=device_type,
                          image_url=image_url,
                          image_download_source=image_download_source)

    def detach_virtual_media(self, context, node, device_types=None):
        return self._call(context, node, "detach_virtual_media",
                          version="1.8", device_types=device_types)

    def get_virtual_media(self, context, node) -> list[dict]:
        return self._call(context, node, "get_virtual_media", version="1.9")

    def set_console_mode(self, context, node, enabled):
        return self._call(context, node, "set_console_mode",
                          enabled=enabled)

    def get_console_information(self, context, node) -> dict:
        return self._call(context, node, "get_console_information")

    def set_target_raid_config(self, context, node, target_raid_config):
        return self._call(context, node, "set_target_raid_config",
                          target_raid_config=target_raid_config)

    def validate_driver_interfaces(self, context, node) -> dict:
        return self._call(context, node, "validate_driver_interfaces")

    # -- provisioning --------------------------------------------------------

    def do_provisioning_action(self, context, node, action):
        return self._call(context, node, "do_provisioning_action",
                          action=action)

    def do_node_deploy(self, context, node, rebuild=False, configdrive=None,
                       deploy_steps=None):
        return self._call(context, node, "do_node_deploy", rebuild=rebuild,
                          configdrive=configdrive, deploy_steps=deploy_steps)

    def do_node_tear_down(self, context, node):
        return self._call(context, node, "do_node_tear_down")

    def do_node_clean(self, context, node, clean_steps,
                      disable_ramdisk=False):
        return self._call(context, node, "do_node_clean",
                          clean_steps=clean_steps,
                          disable_ramdisk=disable_ramdisk)

    def do_node_service(self, context, node, service_steps,
                        disable_ramdisk=False):
        return self._call(context, node, "do_node_service",
                          service_steps=service_steps,
                          disable_ramdisk=disable_ramdisk)

    def do_node_rescue(self, context, node, rescue_password):
        return self._call(context, node, "do_node_rescue",
                          rescue_password=rescue_password)

    def do_node_unrescue(self, context, node):
        return self._call(context, node, "do_node_unrescue")

    def continue_node_steps(self, context, node, skip_current=True):
        return self._call(context, node, "continue_node_steps",
                          skip_current=skip_current)

    # -- ramdisk ------------------------------------------------------------

    def continue_inspection(self, context, node, inventory,
                            plugin_data=None):
        return self._call(context, node, "continue_inspection",
                          version="1.3", inventory=inventory,
                          plugin_data=plugin_data)

    def discover_node(self, context, node_uuid: str, inventory: dict,
                      plugin_data: dict, issue_token: bool) -> dict:
        """Auto-discovery on the conductor the ring names for a new node of
        ``[auto_discovery]driver``: {"node": lookup fields, "agent_token"}.
        """
        target = {"uuid": node_uuid, "driver": CONF.auto_discovery.driver,
                  "conductor_group": ""}
        return self._call(context, target, "discover_node", version="1.10",
                          inventory=inventory,
                          plugin_data=plugin_data, issue_token=issue_token)

    def issue_agent_token(self, context, node) -> str | None:
        return self._call(context, node, "issue_agent_token",
                          version="1.3")

    def get_node_with_token(self, context, node) -> dict:
        """{"node": lookup fields, "agent_token": new token or None}."""
        return self._call(context, node, "get_node_with_token",
                          version="1.7")

    def heartbeat(self, context, node, callback_url, agent_version=None,
                  agent_token=None, agent_verify_ca=None, agent_status=None,
                  agent_status_message=None):
        """Hand an agent's heartbeat to the node's conductor.

        ``node`` is the node as the caller read it; its fields the
        conductor decides an idle heartbeat on go along (1.11,
        ``ramdisk.IDLE_FIELDS``), so that it need not read them again.
        """
        return self._call(context, node, "heartbeat", version="1.11",
                          node_fields=ramdisk.idle_fields(node),
                          callback_url=callback_url,
                          agent_version=agent_version,
                          agent_token=agent_token,
                          agent_verify_ca=agent_verify_ca,
                          agent_status=agent_status,
                          agent_status_message=agent_status_message)

    # -- vendor passthru ----------------------------------------------------

    def vendor_passthru(self, context, node, driver_method, http_method,
                        info):
        return self._call(context, node, "vendor_passthru",
                          driver_method=driver_method,
                          http_method=http_method, info=info)

    def driver_vendor_passthru(self, context, driver_name, driver_method,
                               http_method, info):
        """Runs on a live conductor serving the hardware type."""
        hosts = hash_ring.live_catalog().get(driver_name).hosts
        if not hosts:
            raise exception.NoValidHost(reason=f"driver {driver_name}")
        return self._send(
            sorted(hosts)[0], "driver_vendor_passthru", context,
            {"driver_name": driver_name, "driver_method": driver_method,
             "http_method": http_method, "info": info}, "1.0")


_API: ConductorAPI | None = None


def get_api() -> ConductorAPI:
    global _API
    if _API is None:
        _API = ConductorAPI()
    return _API
