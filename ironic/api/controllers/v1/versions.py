"""Bare Metal API microversions: what each one changed, in our own words.

Every minor version 1.1 .. 1.115 of the public API is recorded in
``HISTORY`` with the parts of the service it needs and whether it works
here today. The advertised maximum is *computed* from that record, never
typed in: ``MAX_VERSION`` is the highest version such that it and every
version below it are implemented, all components counted (API, conductor,
drivers, agent endpoints). ``BLOCKERS`` lists, per version, what is still
missing.
"""

from __future__ import annotations

import dataclasses

from ironic.api import features

# Who builds a version's missing parts.
NODE = "node"            # node fields/filters/endpoints in v1/node*.py
PORT = "port"            # ports, portgroups, chassis (the `ports` work)
API = "api"              # API- or database-only resources and behaviour
CONDUCTOR = "conductor"  # state machine, RPC, locks, periodic work (issue 3)
DRIVERS = "drivers"      # hardware types and interfaces (issue 4)
AGENT = "agent"          # ramdisk endpoints: lookup, heartbeat, inspection
INFO = "info"            # a signifier only; nothing to build

@dataclasses.dataclass(frozen=True)
class Change:
    """What one microversion changed and whether we serve it."""

    summary: str
    #: Areas whose work the version needs (the first is the main one).
    areas: tuple[str, ...]
    #: True when every part of the change works here today.
    implemented: bool
    #: What is still missing, per area (empty when implemented).
    needs: dict[str, str] = dataclasses.field(default_factory=dict)
    #: The named features (``ironic.api.features``) it brought.
    introduces: tuple[features.Since, ...] = ()
    #: The named features it withdrew (their last version is the one
    #: before).
    removes: tuple[features.Since, ...] = ()


def _done(summary: str, *areas: str,
          introduces: tuple[features.Since, ...] = (),
          removes: tuple[features.Since, ...] = ()) -> Change:
    return Change(summary, areas or (NODE,), True,
                  introduces=introduces, removes=removes)


def _todo(summary: str, **needs: str) -> Change:
    return Change(summary, tuple(needs), False, dict(needs))


HISTORY: dict[int, Change] = {
    1: _done("Versioning starts: node maintenance_reason and the "
             "maintenance endpoint; vendor passthru (sync/async, any HTTP "
             "verb, discoverable); a config drive kept for deployment.",
             NODE, CONDUCTOR, DRIVERS,
             introduces=(features.ALWAYS, features.BASE_VERSION)),
    2: _done("The former null provision state is shown as 'available'.",
             introduces=(features.AVAILABLE_STATE,),
             removes=(features.BASE_VERSION,)),
    3: _done("Nodes expose driver_internal_info (read-only)."),
    4: _done("'manageable' state and the 'manage' verb.", CONDUCTOR,
             introduces=(features.MANAGE,)),
    5: _done("Logical node names (hostname syntax) usable as identifiers.",
             introduces=(features.NODE_NAMES,)),
    6: _done("Inspection: 'inspect' verb, inspecting/inspect failed "
             "states, inspection_started_at/finished_at.", CONDUCTOR,
             introduces=(features.INSPECT,)),
    7: _done("Nodes expose clean_step."),
    8: _done("'fields' selects the returned fields of resources.", PORT,
             introduces=(features.FIELDS_SELECTION,)),
    9: _done("Node lists filter by provision_state.",
             introduces=(features.PROVISION_STATE_FILTER,)),
    10: _done("Node names may use every RFC 3986 unreserved character.",
              introduces=(features.RFC3986_NAMES,)),
    11: _done("New nodes start in 'enroll' instead of 'available'.",
              introduces=(features.ENROLL_ON_CREATE,)),
    12: _done("RAID: raid_config/target_raid_config on nodes, PUT "
              "states/raid checked by the raid interface against the "
              "public schema, driver logical-disk properties.",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.RAID,)),
    13: _done("'abort' verb for nodes in clean wait.", CONDUCTOR,
              introduces=(features.ABORT,)),
    14: _done("The states sub-resource and driver properties are linked.",
              NODE, DRIVERS,
              introduces=(features.SUBRESOURCE_LINKS,)),
    15: _done("Manual cleaning from manageable with explicit clean_steps.",
              CONDUCTOR,
              introduces=(features.MANUAL_CLEANING,)),
    16: _done("Node lists filter by driver.",
              introduces=(features.DRIVER_FILTER,)),
    17: _done("'adopt' verb: manageable to active without deploying.",
              CONDUCTOR,
              introduces=(features.ADOPT,)),
    18: _done("Ports expose internal_info (read-only).", PORT),
    19: _done("Ports gain local_link_connection and pxe_enabled.", PORT,
              introduces=(features.LOCAL_LINK_CONNECTION,)),
    20: _done("Nodes gain network_interface.", NODE, DRIVERS),
    21: _done("Nodes gain resource_class (and the filter).",
              introduces=(features.RESOURCE_CLASS,)),
    22: _done("Ramdisk endpoints: /lookup finds a node by MAC or UUID "
              "for its agent, /heartbeat reaches its conductor.",
              AGENT, CONDUCTOR,
              introduces=(features.RAMDISK_LOOKUP,)),
    23: _done("The /portgroups resource.", PORT,
              introduces=(features.PORTGROUPS,)),
    24: _done("Portgroups of a node, ports of a portgroup, "
              "port.portgroup_uuid.", PORT,
              introduces=(features.PORTGROUP_SUBRESOURCES,)),
    25: _done("A node's chassis_uuid may be removed.",
              introduces=(features.UNSET_CHASSIS,)),
    26: _done("Portgroups gain mode and properties.", PORT),
    27: _done("Soft power off/reboot targets and a power timeout.", CONDUCTOR,
              introduces=(features.SOFT_POWER,)),
    28: _done("/nodes/{n}/vifs to list, attach and detach VIFs through "
              "the node's network interface (flat records them on ports).",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.VIFS,)),
    29: _done("Inject NMI through /nodes/{n}/management/inject_nmi.",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.INJECT_NMI,)),
    30: _done("Hardware types in /drivers: type and detail filters, "
              "default and enabled interfaces.", DRIVERS,
              introduces=(features.HARDWARE_TYPES,)),
    31: _done("Nodes gain boot/console/deploy/inspect/management/power/"
              "raid/vendor interface fields.", NODE, DRIVERS),
    32: _done("Volume connectors and targets (/volume, node volume "
              "sub-resources).", API,
              introduces=(features.VOLUME,)),
    33: _done("Nodes gain storage_interface; drivers show its defaults.",
              NODE, DRIVERS,
              introduces=(features.STORAGE_INTERFACE,)),
    34: _done("Ports gain physical_network.", PORT),
    35: _done("A config drive may accompany 'rebuild'.", CONDUCTOR,
              introduces=(features.REBUILD_CONFIGDRIVE,)),
    36: _done("Heartbeats may carry agent_version, recorded on the "
              "node.", AGENT,
              introduces=(features.AGENT_VERSION,)),
    37: _done("Node traits: /nodes/{n}/traits and the traits field.",
              introduces=(features.TRAITS,)),
    38: _done("Rescue/unrescue verbs and states; rescue_interface.", CONDUCTOR,
              introduces=(features.RESCUE,)),
    39: _done("Asynchronous (in-band) inspection waits in 'inspect "
              "wait'; older versions see it as 'inspecting'.",
              CONDUCTOR, DRIVERS,
              introduces=(features.INSPECT_WAIT,)),
    40: _done("BIOS settings under /nodes/{n}/bios; bios_interface.", API,
              introduces=(features.BIOS,)),
    41: _done("'abort' moves a node from inspect wait to inspect "
              "failed (406 before).", CONDUCTOR, DRIVERS,
              introduces=(features.ABORT_INSPECT_WAIT,)),
    42: _done("Nodes expose fault (and a fault filter).",
              introduces=(features.FAULT,)),
    43: _done("?detail=true on list endpoints.", PORT,
              introduces=(features.DETAIL_PARAM,)),
    44: _done("Nodes expose deploy_step."),
    45: _done("PATCH ?reset_interfaces resets interfaces when the driver "
              "changes.", NODE, DRIVERS,
              introduces=(features.RESET_INTERFACES,)),
    46: _done("Nodes gain conductor_group (field and filter).",
              introduces=(features.CONDUCTOR_GROUP,)),
    47: _done("Per-node automated_clean.", CONDUCTOR),
    48: _done("protected/protected_reason guard deployed nodes.", CONDUCTOR),
    49: _done("/conductors resource and the node conductor field.",
              API, CONDUCTOR,
              introduces=(features.CONDUCTORS, features.NODE_CONDUCTOR)),
    50: _done("Nodes gain owner (field and filter).",
              introduces=(features.OWNER,)),
    51: _done("Nodes gain description (and description_contains)."),
    52: _done("Allocations: /v1/allocations, /nodes/{n}/allocation, the "
              "node allocation_uuid field; a conductor finds the node.",
              API, CONDUCTOR,
              introduces=(features.ALLOCATIONS, features.NODE_ALLOCATION)),
    53: _done("Ports gain is_smartnic.", PORT,
              introduces=(features.SMARTNIC,)),
    54: _done("POST /events for external (network) events.", API,
              introduces=(features.EVENTS,)),
    55: _done("Deploy templates: CRUD, and the templates named by the "
              "instance's traits add or re-prioritise deploy steps.",
              API, CONDUCTOR,
              introduces=(features.DEPLOY_TEMPLATES,)),
    56: _done("A config drive may be given as meta_data/network_data/"
              "user_data; the conductor builds the ISO image.",
              CONDUCTOR,
              introduces=(features.BUILD_CONFIGDRIVE,)),
    57: _done("Allocations' name and extra may be patched.", API,
              introduces=(features.ALLOCATION_UPDATE,)),
    58: _done("An allocation may be created for an already deployed node "
              "(backfill).", API, CONDUCTOR,
              introduces=(features.ALLOCATION_BACKFILL,)),
    59: _done("Config drive parts gain vendor_data "
              "(vendor_data2.json).", CONDUCTOR,
              introduces=(features.CONFIGDRIVE_VENDOR_DATA,)),
    60: _done("Allocations gain owner (field and filter); only nodes it "
              "owns or leases are picked.", API, CONDUCTOR,
              introduces=(features.ALLOCATION_OWNER,)),
    61: _done("retired/retired_reason on nodes: a retired node is parked "
              "in manageable after cleaning and may not be provided.",
              NODE, CONDUCTOR),
    62: _done("Agent token: issued by the conductor on the first lookup, "
              "shown once, required on heartbeats.", AGENT, CONDUCTOR,
              introduces=(features.AGENT_TOKEN,)),
    63: _done("Indicator management under /nodes/{n}/management "
              "(fake, ipmitool identify LED, redfish).",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.INDICATORS,)),
    64: _done("local_link_connection network_type (managed/unmanaged).", PORT,
              introduces=(features.LLC_NETWORK_TYPE,)),
    65: _done("Nodes gain lessee (field and filter).",
              introduces=(features.LESSEE,)),
    66: _done("Nodes gain network_data."),
    67: _done("VIF attach to a given port_uuid/portgroup_uuid.",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.VIF_ATTACH_TO_PORT,)),
    68: _done("Heartbeats may carry agent_verify_ca, the agent's TLS "
              "certificate, kept for talking to it.", AGENT,
              introduces=(features.AGENT_VERIFY_CA,)),
    69: _done("deploy_steps with active/rebuild.", CONDUCTOR,
              introduces=(features.DEPLOY_STEPS,)),
    70: _done("disable_ramdisk for manual cleaning: no ramdisk is "
              "booted, so only out-of-band steps are accepted.",
              CONDUCTOR,
              introduces=(features.DISABLE_RAMDISK,)),
    71: _done("Signifier: system-scoped RBAC.", INFO),
    72: _done("Heartbeats may carry agent_status (start/end/error) and "
              "agent_status_message, passed to the interface.", AGENT,
              introduces=(features.AGENT_STATUS,)),
    73: _done("'deploy' and 'undeploy' verb aliases.", CONDUCTOR,
              introduces=(features.DEPLOY_ALIASES,)),
    74: _done("BIOS registry fields; detail= and fields= on BIOS lists.", API,
              introduces=(features.BIOS_REGISTRY,)),
    75: _done("Nodes expose boot_mode and secure_boot (and in /states).",
              introduces=(features.BOOT_MODE,)),
    76: _done("PUT states/boot_mode and states/secure_boot, applied "
              "by a conductor worker (202).", NODE, CONDUCTOR, DRIVERS,
              introduces=(features.SET_BOOT_MODE,)),
    77: _done("fields= on driver list and show.", DRIVERS,
              introduces=(features.DRIVER_FIELDS,)),
    78: _done("Node history under /nodes/{n}/history.", API,
              introduces=(features.NODE_HISTORY,)),
    79: _done("Allocation prefers the node named like it.", CONDUCTOR),
    80: _done("Project-scoped admins may create and delete nodes.", API),
    81: _done("/nodes/{n}/inventory: inventory and plugin data of the "
              "last in-band inspection.", API, AGENT,
              introduces=(features.INVENTORY,)),
    82: _done("Node shard (field, filters) and GET /shards.", API,
              introduces=(features.SHARDS,)),
    83: _done("parent_node, /nodes/{n}/children, include_children and "
              "parent_node filters.",
              introduces=(features.CHILD_NODES,)),
    84: _done("POST /continue_inspection takes the ramdisk's inspection "
              "data (node_uuid query, lookup-style answer with the agent "
              "token; the base version keeps the Inspector form).",
              AGENT, CONDUCTOR, DRIVERS,
              introduces=(features.AUTO_DISCOVERY,
                          features.CONTINUE_INSPECTION)),
    85: _done("'unhold' verb; clean hold and deploy hold states.", CONDUCTOR,
              introduces=(features.UNHOLD,)),
    86: _done("firmware_interface; /nodes/{n}/firmware components.",
              NODE, API, DRIVERS,
              introduces=(features.FIRMWARE,)),
    87: _done("'service' verb and service_step.", CONDUCTOR,
              introduces=(features.SERVICE,)),
    88: _done("Ports gain name.", PORT,
              introduces=(features.PORT_NAME,)),
    89: _done("/nodes/{n}/vmedia: attach an image to a virtual device, "
              "detach some or all (redfish and fake management).",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.VMEDIA,)),
    90: _done("OVN VTEP switch info in local_link_connection.", PORT,
              introduces=(features.LLC_VTEP,)),
    91: _done("'.json' at the end of an identifier is no longer special.",
              introduces=(features.JSON_SUFFIX_IS_NAME,)),
    92: _done("Runbooks: CRUD, and 'clean'/'service' with a runbook "
              "(approved through a node trait) instead of explicit steps.",
              API, CONDUCTOR,
              introduces=(features.RUNBOOKS,)),
    93: _done("GET /nodes/{n}/vmedia reads the virtual media attached "
              "to a node, asked of its management interface.",
              NODE, CONDUCTOR, DRIVERS,
              introduces=(features.VMEDIA_GET,)),
    94: _done("Ports may name their node by name.", PORT,
              introduces=(features.PORT_NODE_NAME,)),
    95: _done("disable_power_off on nodes: such nodes are rebooted "
              "(an explicit reset) but never powered off; power-off "
              "requests answer 400.", NODE, CONDUCTOR, DRIVERS),
    96: _done("Inspection rules: /v1/inspection_rules CRUD; the rules "
              "run on the data of every in-band inspection.",
              API, AGENT,
              introduces=(features.INSPECTION_RULES,)),
    97: _done("Ports gain description.", PORT),
    98: _done("PATCH paths may address keys containing '~' or '/'."),
    99: _done("Port and portgroup lists filter by conductor_group.", PORT,
              introduces=(features.CONDUCTOR_GROUPS_FILTER,)),
    100: _done("Ports gain vendor.", PORT),
    101: _done("Ports gain category.", PORT),
    102: _done("Portgroups gain physical_network.", PORT),
    103: _done("Portgroups gain category.", PORT),
    104: _done("Nodes gain instance_name, kept in step with "
               "instance_info.display_name.",
               introduces=(features.INSTANCE_NAME,)),
    105: _done("OVN VTEP info removed from local_link_connection.", PORT,
               removes=(features.LLC_VTEP,)),
    106: _done("Portgroup lists filter by shard.", PORT,
               introduces=(features.PORTGROUP_SHARD_FILTER,)),
    107: _done("Responses carry x-openstack-request-id.", API),
    108: _done("disable_ramdisk for the 'service' verb (out-of-band "
               "steps only, no ramdisk).", CONDUCTOR,
               introduces=(features.DISABLE_RAMDISK_SERVICE,)),
    109: _done("Nodes expose health (OK, Warning, Critical or null) as "
               "the BMC reports it, refreshed by the power state sync.",
               NODE, CONDUCTOR, DRIVERS),
    110: _done("'abort' also stops a deployment waiting in 'wait "
               "call-back' (deploy failed afterwards).", CONDUCTOR,
               introduces=(features.ABORT_DEPLOY_WAIT,)),
    111: _done("Ports gain available_for_dynamic_portgroup and "
               "portgroups gain a read-only dynamic_portgroup.", PORT),
    112: _done("Runbooks gain description and their own traits API.",
               API,
               introduces=(features.RUNBOOK_TRAITS,)),
    113: _done("Node history entries (detail) name the project of "
               "the request that caused them.", API, CONDUCTOR,
               introduces=(features.HISTORY_PROJECT,)),
    114: _done("Firmware components show vendor, model and "
               "serial_number.", API, DRIVERS,
               introduces=(features.FIRMWARE_IDENTITY,)),
    115: _done("Node history entries (detail) show state, "
               "target_provision_state and duration_seconds.",
               API, CONDUCTOR,
               introduces=(features.HISTORY_STATE,)),
}

MIN_VERSION = 1
#: Newest version the public API defines (python-ironicclient knows it).
NEWEST_KNOWN = max(HISTORY)


def highest_implemented(history: dict[int, Change]) -> int:
    """Highest minor N such that 1..N are all implemented (0 if not 1.1)."""
    top = 0
    for minor in range(1, max(history) + 1):
        change = history.get(minor)
        if change is None or not change.implemented:
            break
        top = minor
    return top


def blockers(history: dict[int, Change]) -> dict[int, dict[str, str]]:
    """What each not-implemented version still needs, by area."""
    return {minor: dict(change.needs) for minor, change in
            sorted(history.items()) if not change.implemented}


BLOCKERS = blockers(HISTORY)
MAX_VERSION = max(MIN_VERSION, highest_implemented(HISTORY))

MIN_VERSION_STRING = f"1.{MIN_VERSION}"
MAX_VERSION_STRING = f"1.{MAX_VERSION}"
