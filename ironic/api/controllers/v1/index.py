"""``/v1``: the version document and the resource collections."""

from __future__ import annotations

import pecan

from ironic.api import features, method, openapi
from ironic.api.controllers.v1 import (
    allocation,
    conductor,
    deploy_template,
    driver,
    event,
    inspection_rule,
    node,
    port,
    portgroup,
    ramdisk,
    runbook,
    shard,
    versions,
    volume,
)
from ironic.api.controllers.v1 import chassis as chassis_api
from ironic.api.method import api_method, expose

# Resource -> minor version that introduced it, for the /v1 document.
_RESOURCES = {
    "nodes": features.ALWAYS, "ports": features.ALWAYS,
    "chassis": features.ALWAYS, "drivers": features.ALWAYS,
    "portgroups": features.PORTGROUPS, "lookup": features.RAMDISK_LOOKUP,
    "heartbeat": features.RAMDISK_LOOKUP, "conductors": features.CONDUCTORS,
    "volume": features.VOLUME, "events": features.EVENTS,
    "deploy_templates": features.DEPLOY_TEMPLATES,
    "runbooks": features.RUNBOOKS, "allocations": features.ALLOCATIONS,
    "shards": features.SHARDS, "inspection_rules": features.INSPECTION_RULES,
    "continue_inspection": features.CONTINUE_INSPECTION,
}

# Ironic 39's document as clients see it: the describedby address with its
# doubled slashes, and media_types one object (the api-ref shows a list).
_DESCRIBED_BY = ("https://docs.openstack.org//ironic/latest/contributor/"
                 "/webapi.html")

def _links(url: str, name: str) -> list[dict]:
    return [{"href": f"{url}/v1/{name}/", "rel": "self"},
            {"href": f"{url}/{name}/", "rel": "bookmark"}]


class V1Controller:
    nodes = node.NodesController()
    conductors = conductor.ConductorsController()
    drivers = driver.DriversController()
    ports = port.PortsController()
    portgroups = portgroup.PortgroupsController()
    chassis = chassis_api.ChassisController()
    volume = volume.VolumeController()
    events = event.EventsController()
    deploy_templates = deploy_template.DeployTemplatesController()
    runbooks = runbook.RunbooksController()
    inspection_rules = inspection_rule.InspectionRulesController()
    allocations = allocation.AllocationsController()
    shards = shard.ShardsController()
    continue_inspection = ramdisk.ContinueInspectionController()
    lookup = ramdisk.LookupController()
    heartbeat = ramdisk.HeartbeatController()
    _extra: dict = {}

    @expose()
    @api_method()
    def index(self):
        if pecan.request.method not in ("GET", "HEAD"):
            raise method.MethodNotAllowed(allow=["GET"])
        url = method.public_url()
        ver = method.version()
        doc = {
            "id": "v1",
            "links": [{"href": f"{url}/v1/", "rel": "self"},
                      {"href": _DESCRIBED_BY, "rel": "describedby",
                       "type": "text/html"}],
            "media_types": {
                "base": "application/json",
                "type": "application/vnd.openstack.ironic.v1+json"},
            "version": {
                "id": "v1",
                "links": [{"href": f"{url}/v1/", "rel": "self"}],
                "status": "CURRENT",
                "min_version": versions.MIN_VERSION_STRING,
                "version": versions.MAX_VERSION_STRING,
            },
        }
        for name, since in _RESOURCES.items():
            if since.available(ver) and hasattr(self, name):
                doc[name] = _links(url, name)
        return doc


# Not a Python name: routed explicitly.
pecan.route(V1Controller, "openapi.json",
            openapi.DocumentController(V1Controller))
