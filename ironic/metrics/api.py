"""API request metrics: route templates and Ironic's timer names.

A request is labelled with the template of its route
(``/v1/nodes/{node_ident}/states/power``), never the raw path, so a series
exists per route and not per node. Its statsd timer is the name Ironic
gives the controller method serving it
(``ironic.api.controllers.v1.node.NodeStatesController.power``); routes
Ironic does not time (lookup, heartbeat...) send no statsd timer.

The table below is the API's URL structure as a tree; ``{...}`` segments
match any value. A path that fits no route is labelled ``unmatched``.
"""

from __future__ import annotations

from typing import Callable

from ironic import metrics

_P = "ironic.api.controllers.v1."
# Route template -> {HTTP method: Ironic's timer, module-relative}; "*" is
# any method (vendor passthru), None a route Ironic does not time.
_CRUD = ("get_all", "post", "get_one", "patch", "delete")


def _crud(base: str, ident: str, controller: str, detail: bool = True
          ) -> dict[str, dict]:
    get_all, post, get_one, patch, delete = (f"{controller}.{m}"
                                             for m in _CRUD)
    routes = {base: {"GET": get_all, "POST": post},
              f"{base}/{ident}": {"GET": get_one, "PATCH": patch,
                                  "DELETE": delete}}
    if detail:
        routes[f"{base}/detail"] = {"GET": f"{controller}.detail"}
    return routes


_N = "/v1/nodes/{node_ident}"
_NODE = "node.NodesController"
_STATES = "node.NodeStatesController"
_PORTS = "port.PortsController"
_PORTGROUPS = "portgroup.PortgroupsController"

ROUTES: dict[str, dict] = {
    "/": {"GET": None},
    "/v1": {"GET": None},
    **_crud("/v1/nodes", "{node_ident}", _NODE),
    f"{_N}/validate": {"GET": f"{_NODE}.validate"},
    f"{_N}/states": {"GET": f"{_STATES}.get"},
    **{f"{_N}/states/{name}": {"PUT": f"{_STATES}.{name}"}
       for name in ("power", "provision", "raid", "boot_mode",
                    "secure_boot")},
    f"{_N}/states/console": {"GET": "node.NodeConsoleController.get",
                             "PUT": "node.NodeConsoleController.put"},
    f"{_N}/traits": {"GET": "node.NodeTraitsController.get_all",
                     "PUT": "node.NodeTraitsController.put",
                     "DELETE": "node.NodeTraitsController.delete"},
    f"{_N}/traits/{{trait}}": {"PUT": "node.NodeTraitsController.put",
                               "DELETE": "node.NodeTraitsController.delete"},
    f"{_N}/vifs": {"GET": "node.NodeVIFController.get_all",
                   "POST": "node.NodeVIFController.post"},
    f"{_N}/vifs/{{vif_id}}": {"DELETE": "node.NodeVIFController.delete"},
    f"{_N}/vendor_passthru": {
        "*": "node.NodeVendorPassthruController._default"},
    f"{_N}/vendor_passthru/methods": {
        "GET": "node.NodeVendorPassthruController.methods"},
    f"{_N}/management/boot_device": {"GET": "node.BootDeviceController.get",
                                     "PUT": "node.BootDeviceController.put"},
    f"{_N}/management/boot_device/supported": {
        "GET": "node.BootDeviceController.supported"},
    f"{_N}/management/inject_nmi": {"PUT": "node.InjectNmiController.put"},
    f"{_N}/management/indicators": {
        "GET": "node.IndicatorController.get_all"},
    f"{_N}/management/indicators/{{indicator}}": {
        "GET": "node.IndicatorController.get_one",
        "PUT": "node.IndicatorController.put"},
    f"{_N}/maintenance": {"PUT": "node.NodeMaintenanceController.put",
                          "DELETE": "node.NodeMaintenanceController.delete"},
    f"{_N}/bios": {"GET": "bios.NodeBiosController.get_all"},
    f"{_N}/bios/{{setting}}": {"GET": "bios.NodeBiosController.get_one"},
    f"{_N}/firmware": {"GET": "firmware.NodeFirmwareController.get_all"},
    f"{_N}/history": {"GET": "node.NodeHistoryController.get_all"},
    f"{_N}/history/{{event}}": {"GET": "node.NodeHistoryController.get_one"},
    f"{_N}/inventory": {"GET": "node.NodeInventoryController.get"},
    f"{_N}/vmedia": {"GET": "node.NodeVmediaController.get",
                     "POST": "node.NodeVmediaController.post",
                     "DELETE": "node.NodeVmediaController.delete"},
    f"{_N}/allocation": {
        "GET": "allocation.NodeAllocationController.get_all",
        "DELETE": "allocation.NodeAllocationController.delete"},
    f"{_N}/children": {"GET": None},
    f"{_N}/ports": {"GET": f"{_PORTS}.get_all"},
    f"{_N}/ports/detail": {"GET": f"{_PORTS}.detail"},
    f"{_N}/portgroups": {"GET": f"{_PORTGROUPS}.get_all"},
    f"{_N}/portgroups/detail": {"GET": f"{_PORTGROUPS}.detail"},
    f"{_N}/volume": {"GET": None},
    f"{_N}/volume/connectors": {
        "GET": "volume_connector.VolumeConnectorsController.get_all"},
    f"{_N}/volume/targets": {
        "GET": "volume_target.VolumeTargetsController.get_all"},
    **_crud("/v1/ports", "{port_id}", _PORTS),
    **_crud("/v1/portgroups", "{portgroup_ident}", _PORTGROUPS),
    "/v1/portgroups/{portgroup_ident}/ports": {"GET": f"{_PORTS}.get_all"},
    "/v1/portgroups/{portgroup_ident}/ports/detail": {
        "GET": f"{_PORTS}.detail"},
    **_crud("/v1/chassis", "{chassis_id}", "chassis.ChassisController"),
    "/v1/chassis/{chassis_id}/nodes": {"GET": f"{_NODE}.get_all"},
    "/v1/chassis/{chassis_id}/nodes/detail": {"GET": f"{_NODE}.detail"},
    "/v1/drivers": {"GET": "driver.DriversController.get_all"},
    "/v1/drivers/{driver_name}": {"GET": "driver.DriversController.get_one"},
    "/v1/drivers/{driver_name}/properties": {
        "GET": "driver.DriversController.properties"},
    "/v1/drivers/{driver_name}/raid/logical_disk_properties": {
        "GET": "driver.DriverRaidController.logical_disk_properties"},
    "/v1/drivers/{driver_name}/vendor_passthru": {
        "*": "driver.DriverPassthruController._default"},
    "/v1/drivers/{driver_name}/vendor_passthru/methods": {
        "GET": "driver.DriverPassthruController.methods"},
    "/v1/conductors": {"GET": "conductor.ConductorsController.get_all"},
    "/v1/conductors/{hostname}": {
        "GET": "conductor.ConductorsController.get_one"},
    **_crud("/v1/allocations", "{allocation_id}",
            "allocation.AllocationsController", detail=False),
    **_crud("/v1/deploy_templates", "{template_ident}",
            "deploy_template.DeployTemplatesController", detail=False),
    **_crud("/v1/runbooks", "{runbook_ident}",
            "runbook.RunbooksController", detail=False),
    **_crud("/v1/inspection_rules", "{rule_uuid}",
            "inspection_rule.InspectionRuleController", detail=False),
    "/v1/volume": {"GET": None},
    **_crud("/v1/volume/connectors", "{volume_connector_id}",
            "volume_connector.VolumeConnectorsController"),
    **_crud("/v1/volume/targets", "{volume_target_id}",
            "volume_target.VolumeTargetsController"),
    "/v1/shards": {"GET": "shard.ShardController.get_all"},
    "/v1/events": {"POST": "event.EventsController.post"},
    "/v1/lookup": {"GET": None},
    "/v1/heartbeat/{node_ident}": {"POST": None},
    "/v1/continue_inspection": {"POST": None},
}

UNMATCHED = "unmatched"


class _Segment:
    __slots__ = ("children", "template")

    def __init__(self) -> None:
        self.children: dict[str, _Segment] = {}
        self.template: str | None = None


def _segments(path: str) -> list[str]:
    path = path.strip("/")
    return path.split("/") if path else []


def _tree(routes: dict[str, dict]) -> _Segment:
    root = _Segment()
    for template in routes:
        here = root
        for segment in _segments(template):
            key = "{}" if segment.startswith("{") else segment
            here = here.children.setdefault(key, _Segment())
        here.template = template
    return root


_TREE = _tree(ROUTES)


def route_template(path: str) -> str:
    """The template of the route ``path`` (PATH_INFO) belongs to."""
    here = _TREE
    for segment in _segments(path):
        found = here.children.get(segment) or here.children.get("{}")
        if found is None:
            return UNMATCHED
        here = found
    return here.template or UNMATCHED


def ironic_timer(method: str, template: str) -> str | None:
    """Ironic's statsd timer for the route, if Ironic times it."""
    methods = ROUTES.get(template)
    if not methods:
        return None
    name = methods.get(method, methods.get("*"))
    return f"{_P}{name}" if name else None


def observe(environ: dict, status: int, seconds: float) -> None:
    """A finished request (called by the request log middleware)."""
    if not metrics.SINKS.on:
        return
    method = environ.get("REQUEST_METHOD", "")
    template = route_template(environ.get("PATH_INFO", ""))
    sinks = metrics.SINKS
    if sinks.statsd is not None:
        name = ironic_timer(method, template)
        if name is not None:
            sinks.statsd.timer(name, seconds)
    if sinks.prometheus is not None:
        if method not in _METHODS:
            method = "other"
        sinks.prometheus.api.labels(method, template,
                                    str(status)).observe(seconds)


# Methods kept as labels; anything else a client invents is "other".
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE",
                      "OPTIONS"})


def observers() -> list[Callable[[dict, int, float], None]]:
    """What the request log middleware hands each finished request to."""
    return [observe]
