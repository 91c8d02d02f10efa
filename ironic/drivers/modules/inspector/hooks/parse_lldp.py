"""``parse-lldp``: readable LLDP data in the plugin data.

For every interface with LLDP frames, ``plugin_data["parsed_lldp"]`` gets
an entry keyed by interface name with the basic LLDP values the switch
announced (chassis ID, port ID and description, system name and
description).
"""

from __future__ import annotations

from ironic.drivers.modules.inspector.hooks import base
from ironic.drivers.modules.inspector.hooks import local_link_connection as llc
from ironic.task import Task

NAMES = {1: "switch_chassis_id", 2: "switch_port_id",
         4: "switch_port_description", 5: "switch_system_name",
         6: "switch_system_description"}


class ParseLLDPHook(base.InspectionHook):

    def __call__(self, task: Task, inventory: dict,
                 plugin_data: dict) -> None:
        parsed = {}
        for iface in inventory.get("interfaces") or ():
            values = llc.parse_lldp(iface.get("lldp"), NAMES)
            if iface.get("name") and values:
                parsed[iface["name"]] = values
        if parsed:
            plugin_data["parsed_lldp"] = parsed
