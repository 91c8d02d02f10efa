"""What the node Spec's list is made of (``GET /v1/nodes``,
``/v1/nodes/detail``, also under a chassis): its filters by version, sort
keys, the caller's project, the conductor narrowing a page, and the tuned
renderer (``node_view``). ``collection.list_items`` serves it."""

from __future__ import annotations

from typing import Any, Callable

from ironic import hash_ring
from ironic.api import features, method, query
from ironic.api.controllers.v1 import list_query, node_policy
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import (
    Criteria,
    Filter,
    Query,
    boolean,
)
from ironic.api.controllers.v1.node_fields import HIDDEN_FIELDS
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
                f'faults are {_FAULTS}')


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
        raise query.expected("UUID", "instance_uuid", value)
    return [("instance_uuid", utils.normalize_uuid(value))]


def _chassis_uuid(value: str, q: Query) -> Criteria:
    if not utils.is_uuid_like(value):
        raise query.expected("UUID", "chassis_uuid", value)
    return [("chassis_id", Chassis.get(value).id)]


def _include_children(value: str, q: Query) -> Criteria:
    """Child nodes live inside their parent: a list leaves them out unless
    it asks for them or for a parent's children (read also when the
    parameter is not given, see FILTERS)."""
    if api_utils.parse_bool(value, "include_children") or \
            q.params.get("parent_node") is not None:
        return []
    return [("top_level", True)]


def _nothing(value: str, q: Query) -> Criteria:
    # conductor: the hash ring, not a column, says; see narrow.
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
    "maintenance": Filter(_flag("maintenance"), check=boolean),
    "retired": Filter(_flag("retired"), check=boolean),
    "auto_discovered": Filter(_flag("auto_discovered"),
                              features.AUTO_DISCOVERY, check=boolean),
    "associated": Filter(_flag("associated"), check=boolean),
    "instance_uuid": Filter(_instance_uuid),
    "chassis_uuid": Filter(_chassis_uuid),
    "description_contains": Filter(
        lambda value, q: [("description_contains", value)]),
    "sharded": Filter(_flag("sharded"), features.SHARDS, check=boolean),
    "parent_node": Filter(lambda value, q: [
        ("parent_node", _parent_uuid(value))], features.CHILD_NODES),
    "include_children": Filter(_include_children, features.CHILD_NODES,
                               check=boolean, default="false"),
    "conductor": Filter(_nothing, features.NODE_CONDUCTOR,
                        needs=("conductor",)),
}


# JSON documents and computed fields: no meaningful order.
_UNSORTABLE = {"driver_info", "driver_internal_info", "instance_info",
               "properties", "extra", "raid_config", "target_raid_config",
               "network_data", "clean_step", "deploy_step", "service_step",
               "traits"}
#: What the node list sorts by.
SORT_KEYS = frozenset(Node.fields) - _UNSORTABLE - HIDDEN_FIELDS


def sort_too_new(key: str, since: features.Since) -> Exception:
    return exception.NotAcceptable(
        f"Sorting by '{key}' needs API version {since.version} or newer.")


def list_scope(q: Query) -> Criteria:
    """The caller's project, when it may list only that project's nodes."""
    project = _list_project(q.params)
    return [] if project is None else [("project", project)]


def columns(fields: list[str]) -> list[str]:
    # The projects of each node decide what the caller sees of it.
    return columns_for([*fields, "owner", "lessee"])


def fetch(criteria: Criteria, args: list_query.ListArgs,
          cols: list[str]) -> list[dict]:
    # The marker and the sort direction are read after the filters, as
    # the node list always did (the Spec's ``page_read_late``).
    return node_obj.list_rows(
        criteria, columns=cols, limit=args.limit,
        marker=api_utils.check_marker(args.marker), sort_key=args.sort_key,
        sort_dir=api_utils.parse_sort_dir(args.sort_dir))


def narrow(rows: list[dict], q: Query) -> list[dict]:
    """The nodes of the conductor asked for: the hash ring, not a column,
    says which (pages may come out short; the next link still
    continues)."""
    conductor = q.params.get("conductor")
    if not conductor:
        return rows
    return [r for r in rows if hash_ring.conductor_for(r) == conductor]


def render(rows: list[dict], fields: list[str]) -> list[dict]:
    """The node documents of a page, as the caller may see each."""
    items = node_views(rows, fields, method.version(), method.public_url(),
                       Relations(rows, set(fields)))
    if policy.enforced(method.context()):
        # Without rules nothing is hidden: no question per node.
        items = [node_policy.redact(item, node_policy.hidden_fields(
                     node_policy.target(row.get("owner"), row.get("lessee"))))
                 for item, row in zip(items, rows, strict=True)]
    return items


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
