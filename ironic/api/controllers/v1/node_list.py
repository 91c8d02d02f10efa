"""Node lists: ``GET /v1/nodes`` and ``/v1/nodes/detail`` (also under a
chassis): filters by version, sorting, the caller's project, paging."""

from __future__ import annotations

from typing import Any, Iterable

from ironic import hash_ring
from ironic.api import features, method
from ironic.api.controllers.v1 import node_policy
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.node_fields import (
    DEFAULT_LIST_FIELDS,
    HIDDEN_FIELDS,
    field_feature,
    parse_node_fields,
    visible_fields,
    with_links,
)
from ironic.api.controllers.v1.node_lookup import node_uuid_of
from ironic.api.controllers.v1.node_view import (
    Relations,
    columns_for,
    node_views,
)
from ironic.common import (
    exception,
    faults,
    policy,
    states,
    utils,
)
from ironic.objects import node as node_obj
from ironic.objects.chassis import Chassis
from ironic.objects.node import Node

_FAULTS = (faults.POWER_FAILURE, faults.CLEAN_FAILURE,
           faults.RESCUE_ABORT_FAILURE, faults.SERVICE_FAILURE)


def _check_filter_value(name: str, value: str) -> None:
    """400 for a filter value no node can ever have."""
    if name == "provision_state" and value not in states.ALL_STATES:
        raise exception.InvalidParameterValue(
            err=f'Provision state "{value}" is not valid')
    if name == "fault" and value not in _FAULTS:
        raise exception.InvalidParameterValue(
            err=f'Unrecognized fault "{value}" is specified, allowed '
                f'faults are {", ".join(_FAULTS)}')


#: Filters that match one column, with the feature that brought each.
_SIMPLE_FILTERS = {
    "driver": features.DRIVER_FILTER,
    "resource_class": features.RESOURCE_CLASS,
    "conductor_group": features.CONDUCTOR_GROUP, "owner": features.OWNER,
    "lessee": features.LESSEE, "fault": features.FAULT,
    "shard": features.SHARDS,
    "provision_state": features.PROVISION_STATE_FILTER,
    "instance_name": features.INSTANCE_NAME,
}


def _list_filters(params: dict, ver: int) -> list[tuple[str, Any]]:
    """The node list filters asked for, checked, as criteria
    (``objects.node.list_rows``)."""
    conds: list[tuple[str, Any]] = []

    def need(since: features.Since, name: str):
        if not since.available(ver):
            raise exception.NotAcceptable(
                f"The '{name}' filter needs API version {since.version} or "
                f"newer.")

    for name, since in _SIMPLE_FILTERS.items():
        value = params.get(name)
        if value is not None:
            need(since, name)
            _check_filter_value(name, value)
            if name == "conductor_group":
                conds.append((name, value.lower()))
            elif name == "shard":
                # Clients send several shards comma-separated.
                conds.append((name, [v for v in value.split(",") if v]))
            else:
                conds.append((name, value))
    if params.get("maintenance") is not None:
        conds.append(("maintenance", api_utils.parse_bool(
            params["maintenance"], "maintenance")))
    # retired and description_contains apply at any version, as the
    # reference applies them.
    if params.get("retired") is not None:
        conds.append(("retired", api_utils.parse_bool(params["retired"],
                                                      "retired")))
    if params.get("auto_discovered") is not None:
        need(features.AUTO_DISCOVERY, "auto_discovered")
        conds.append(("auto_discovered", api_utils.parse_bool(
            params["auto_discovered"], "auto_discovered")))
    if params.get("associated") is not None:
        conds.append(("associated", api_utils.parse_bool(
            params["associated"], "associated")))
    if params.get("instance_uuid") is not None:
        value = params["instance_uuid"]
        if not utils.is_uuid_like(value):
            raise exception.InvalidUUID(uuid=value)
        conds.append(("instance_uuid", utils.normalize_uuid(value)))
    if params.get("chassis_uuid") is not None:
        if not utils.is_uuid_like(params["chassis_uuid"]):
            raise exception.InvalidParameterValue(
                err=f"Expected UUID for chassis_uuid: "
                    f"{params['chassis_uuid']}")
        chassis = Chassis.get(params["chassis_uuid"])
        conds.append(("chassis_id", chassis.id))
    if params.get("description_contains") is not None:
        conds.append(("description_contains",
                      params["description_contains"]))
    if params.get("sharded") is not None:
        need(features.SHARDS, "sharded")
        conds.append(("sharded", api_utils.parse_bool(params["sharded"],
                                                      "sharded")))
    if params.get("parent_node") is not None:
        need(features.CHILD_NODES, "parent_node")
        conds.append(("parent_node", _parent_uuid(params["parent_node"])))
    include_children = False
    if params.get("include_children") is not None:
        need(features.CHILD_NODES, "include_children")
        include_children = api_utils.parse_bool(params["include_children"],
                                                "include_children")
    # Child nodes live inside their parent; plain lists leave them out.
    if not include_children and params.get("parent_node") is None:
        conds.append(("top_level", True))
    if params.get("conductor") is not None:
        need(features.NODE_CONDUCTOR, "conductor")
    return conds


# JSON documents and computed fields: no meaningful order.
_UNSORTABLE = {"driver_info", "driver_internal_info", "instance_info",
               "properties", "extra", "raid_config", "target_raid_config",
               "network_data", "clean_step", "deploy_step", "service_step",
               "traits"}


def _sort_key(key: str | None, ver: int) -> str:
    if not key or key == "id":
        return "id"
    since = field_feature(key)
    if since is not None and not since.available(ver) and \
            key not in HIDDEN_FIELDS:
        raise exception.NotAcceptable(
            f"Sorting by '{key}' needs API version {since.version} or "
            f"newer.")
    if key not in Node.fields or key in _UNSORTABLE or key in HIDDEN_FIELDS:
        raise exception.InvalidParameterValue(
            err=f"The sort_key value \"{key}\" is an invalid field for "
                f"sorting")
    return key


_LIST_PARAMS = {
    "limit", "marker", "sort_key", "sort_dir", "fields", "detail",
    "driver", "resource_class", "conductor_group", "owner", "lessee",
    "fault", "provision_state", "maintenance", "associated",
    "instance_uuid", "chassis_uuid", "description_contains", "retired",
    "shard", "sharded", "parent_node", "include_children", "conductor",
    "instance_name", "auto_discovered",
}


def list_nodes(params: dict[str, Any], *, detail: bool,
               resource_url: str = "nodes",
               extra_criteria: Iterable[tuple[str, Any]] = ()) -> dict:
    ver = method.version()
    unknown = set(params) - _LIST_PARAMS
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    project = _list_project(params)
    allowed = visible_fields(ver)
    fields = parse_node_fields(params.get("fields"), ver)
    if params.get("detail") is not None:
        api_utils.check_detail_version(ver)
        detail = detail or api_utils.parse_bool(params["detail"], "detail")
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    if fields is None:
        fields = allowed if detail else [
            f for f in DEFAULT_LIST_FIELDS
            if (feature := field_feature(f)) is not None
            and feature.available(ver)]
    fields = with_links(fields)
    limit = api_utils.parse_limit(params.get("limit"))
    sort_key = _sort_key(params.get("sort_key"), ver)
    criteria = _list_filters(params, ver) + list(extra_criteria)
    if project is not None:
        criteria.append(("project", project))
    conductor = params.get("conductor")
    # The projects of each node decide what the caller sees of it.
    columns = columns_for(fields + (["conductor"] if conductor else []) +
                           ["owner", "lessee"])
    rows = node_obj.list_rows(
        criteria, columns=columns, limit=limit,
        marker=api_utils.check_marker(params.get("marker")),
        sort_key=sort_key, sort_dir=api_utils.parse_sort_dir(
            params.get("sort_dir")))
    last_uuid = rows[-1]["uuid"] if rows else None
    page_full = len(rows) >= limit
    if conductor:
        # The owner comes from the hash ring, not a column: filter the page
        # here (pages may come out short; the next link still continues).
        rows = [r for r in rows if hash_ring.conductor_for(r) == conductor]
    url = method.public_url()
    rel = Relations(rows, set(fields))
    items = [node_policy.redact(item, node_policy.hidden_fields(
                 node_policy.target(row.get("owner"), row.get("lessee"))))
             for item, row in zip(node_views(rows, fields, ver, url, rel),
                                  rows, strict=True)]
    doc = api_utils.collection("nodes", items, limit, resource_url, params,
                               last_uuid)
    if page_full and "next" not in doc:
        # A filtered page came out short; point past the rows we read.
        doc["next"] = api_utils.collection(
            "nodes", [{}] * limit, limit, resource_url, params,
            last_uuid)["next"]
    return doc


def _parent_uuid(ident: str) -> str:
    """The UUID a parent_node filter names; a parent that does not exist
    has no children (an empty list, not an error)."""
    if utils.is_uuid_like(ident):
        return utils.normalize_uuid(ident)
    try:
        return node_uuid_of(ident, "Invalid parent_node filter")
    except exception.InvalidParameterValue:
        return ident


def _list_project(params: dict) -> str | None:
    """The project whose nodes alone the caller may list (None: all);
    asking for another owner's nodes is refused."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return None
    project = policy.node_list_project(ctx)
    if project is not None and params.get("owner") not in (None, project):
        raise exception.HTTPForbidden(resource="baremetal:node:list_all")
    return project
