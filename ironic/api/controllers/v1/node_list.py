"""Node lists: ``GET /v1/nodes`` and ``/v1/nodes/detail`` (also under a
chassis): filters by version, sorting, the caller's project, paging."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from ironic import hash_ring
from ironic.api import features, method
from ironic.api.controllers.v1 import collection, node_policy
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import Criteria, Filter, Query
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


def _value(name: str, convert: Callable[[str], Any] = str
           ) -> Callable[[str, Query], Criteria]:
    """A filter matching the column ``name`` with the value given
    (checked, and converted by ``convert``)."""
    def criteria(value: str, q: Query) -> Criteria:
        _check_filter_value(name, value)
        return [(name, convert(value))]
    return criteria


def _flag(name: str) -> Callable[[str, Query], Criteria]:
    """A filter matching the boolean column ``name``."""
    return lambda value, q: [(name, api_utils.parse_bool(value, name))]


def _instance_uuid(value: str, q: Query) -> Criteria:
    if not utils.is_uuid_like(value):
        raise exception.InvalidUUID(uuid=value)
    return [("instance_uuid", utils.normalize_uuid(value))]


def _chassis_uuid(value: str, q: Query) -> Criteria:
    if not utils.is_uuid_like(value):
        raise exception.InvalidParameterValue(
            err=f"Expected UUID for chassis_uuid: {value}")
    return [("chassis_id", Chassis.get(value).id)]


def _include_children(value: str, q: Query) -> Criteria:
    api_utils.parse_bool(value, "include_children")
    return []  # see _top_level


def _nothing(value: str, q: Query) -> Criteria:
    # conductor: the hash ring, not a column, says; see list_nodes.
    return []


def _shards(value: str) -> list[str]:
    # Clients send several shards comma-separated.
    return [v for v in value.split(",") if v]


#: The node list's filters: query parameter -> criteria of
#: ``objects.node.list_rows``, with the feature that brought each. retired
#: and description_contains apply at any version, as the reference applies
#: them.
FILTERS: dict[str, Filter] = {
    "driver": Filter(_value("driver"), features.DRIVER_FILTER),
    "resource_class": Filter(_value("resource_class"),
                             features.RESOURCE_CLASS),
    "conductor_group": Filter(_value("conductor_group", str.lower),
                              features.CONDUCTOR_GROUP),
    "owner": Filter(_value("owner"), features.OWNER),
    "lessee": Filter(_value("lessee"), features.LESSEE),
    "fault": Filter(_value("fault"), features.FAULT),
    "shard": Filter(_value("shard", _shards), features.SHARDS),
    "provision_state": Filter(_value("provision_state"),
                              features.PROVISION_STATE_FILTER),
    "instance_name": Filter(_value("instance_name"),
                            features.INSTANCE_NAME),
    "maintenance": Filter(_flag("maintenance")),
    "retired": Filter(_flag("retired")),
    "auto_discovered": Filter(_flag("auto_discovered"),
                              features.AUTO_DISCOVERY),
    "associated": Filter(_flag("associated")),
    "instance_uuid": Filter(_instance_uuid),
    "chassis_uuid": Filter(_chassis_uuid),
    "description_contains": Filter(
        lambda value, q: [("description_contains", value)]),
    "sharded": Filter(_flag("sharded"), features.SHARDS),
    "parent_node": Filter(lambda value, q: [
        ("parent_node", _parent_uuid(value))], features.CHILD_NODES),
    "include_children": Filter(_include_children, features.CHILD_NODES),
    "conductor": Filter(_nothing, features.NODE_CONDUCTOR),
}


def _top_level(params: dict[str, Any]) -> Criteria:
    """Child nodes live inside their parent; plain lists leave them out."""
    include = params.get("include_children")
    if (include is None or not api_utils.parse_bool(
            include, "include_children")) and \
            params.get("parent_node") is None:
        return [("top_level", True)]
    return []


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


_LIST_PARAMS = frozenset({"limit", "marker", "sort_key", "sort_dir",
                          "fields", "detail", *FILTERS})


def list_nodes(params: dict[str, Any], *, detail: bool,
               resource_url: str = "nodes",
               extra_criteria: Iterable[tuple[str, Any]] = ()) -> dict:
    ver = method.version()
    collection.check_params(params, _LIST_PARAMS)
    project = _list_project(params)
    fields = parse_node_fields(params.get("fields"), ver)
    detail = collection.parse_detail(params, detail, ver)
    collection.check_not_both(fields, detail)
    if fields is None:
        fields = visible_fields(ver) if detail else [
            f for f in DEFAULT_LIST_FIELDS
            if (feature := field_feature(f)) is not None
            and feature.available(ver)]
    fields = with_links(fields)
    limit = api_utils.parse_limit(params.get("limit"))
    sort_key = _sort_key(params.get("sort_key"), ver)
    criteria = collection.filter_criteria(FILTERS, Query(params, ver)) + \
        _top_level(params) + list(extra_criteria)
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
    items = node_views(rows, fields, ver, url, rel)
    if policy.enforced(method.context()):
        # Without rules nothing is hidden: no question per node.
        items = [node_policy.redact(item, node_policy.hidden_fields(
                     node_policy.target(row.get("owner"), row.get("lessee"))))
                 for item, row in zip(items, rows, strict=True)]
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
