"""What a client may write to a node: the create and patch bodies checked
against the node schema and the request's microversion, turned into
column values."""

from __future__ import annotations

import copy
import re
from typing import Any

from ironic.api import features, query, schemas
from ironic.api.controllers.v1 import node_driver
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.node_fields import (
    HIDDEN_FIELDS,
    field_feature,
    too_new,
    visible_fields,
)
from ironic.api.controllers.v1.node_lookup import node_uuid_of
from ironic.api.controllers.v1.node_view import show_node
from ironic.common import exception, utils
from ironic.objects.base import Field
from ironic.objects.chassis import Chassis
from ironic.objects.node import Node

#: The node's fields as a client writes them: the object's, with its
#: chassis by UUID.
FIELDS: dict[str, Field] = {
    **Node.fields,
    "chassis_uuid": schemas.reference("The chassis it is in."),
}
_CREATABLE = schemas.creatable(FIELDS)
# The reason is set with maintenance (PUT .../maintenance), never patched
# on its own: the reference refuses the path.
_PATCHABLE = schemas.patchable(FIELDS) - {"maintenance_reason"}
_REQUIRED = ("driver",)
#: What a refused patch path is told may be patched: at every version,
#: the reference's words.
_LISTED = schemas.listed(_PATCHABLE, late=("parent_node",
                                           "firmware_interface"))

#: The body of ``POST /v1/nodes`` (and a node as a patch leaves it).
NODE_SCHEMA: dict[str, Any] = schemas.body(FIELDS, required=_REQUIRED)

_HOSTNAME_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def valid_name_for_version(name: str, ver: int) -> bool:
    """Names are hostnames before 1.10 and RFC 3986 unreserved after."""
    if not utils.is_valid_logical_name(name):
        return False
    if features.RFC3986_NAMES.available(ver):
        return True
    labels = name[:-1].split(".") if name.endswith(".") else name.split(".")
    return all(_HOSTNAME_LABEL.match(label) for label in labels)


def create_values(body: dict, ver: int) -> dict:
    """The column values of a new node from the body of a create (400 or
    406 when the body may not create one at ``ver``)."""
    if set(body) - _CREATABLE:
        # Refused by the (closed) schema, with whatever it refuses first.
        api_utils.validate(NODE_SCHEMA, body, "node")
    _check_versions(body, ver)
    values = _validate_values(body, ver)
    group = body.get("conductor_group")
    node_driver.check_create(values, set(body),
                             group if isinstance(group, str) else None)
    return values


def _check_versions(doc: dict, ver: int) -> None:
    for name in doc:
        since = too_new(name, ver)
        if since is not None:
            raise exception.NotAcceptable(
                f"The field '{name}' needs API version {since.version} or "
                f"newer.")


def _normalize(values: dict, ver: int, current_uuid: str | None) -> None:
    name = values.get("name")
    if name is not None and not valid_name_for_version(name, ver):
        raise exception.InvalidParameterValue(
            err=f"Cannot create node with invalid name '{name}'"
            if current_uuid is None else
            f"Node {current_uuid}: Cannot change name to invalid name "
            f"'{name}'")
    for key in ("uuid", "instance_uuid", "chassis_uuid"):
        if values.get(key) is not None:
            if not utils.is_uuid_like(values[key]):
                raise query.expected("UUID", key, values[key])
            values[key] = utils.normalize_uuid(values[key])
    if values.get("parent_node") is not None:
        values["parent_node"] = node_uuid_of(values["parent_node"],
                                             "Invalid parent_node")
    if values.get("conductor_group"):
        values["conductor_group"] = values["conductor_group"].lower()
    elif "conductor_group" in values:
        values["conductor_group"] = ""
    for key in ("driver_info", "properties", "extra", "instance_info",
                "network_data", "target_raid_config"):
        if key in values and values[key] is None:
            values[key] = {}


def _check_reasons(values: dict) -> None:
    for flag in ("protected", "retired"):
        if values.get(f"{flag}_reason") and not values.get(flag):
            raise exception.InvalidParameterValue(
                err=f"The {flag}_reason field can only be set when {flag} "
                    f"is True")


def _validate_values(doc: dict, ver: int, current_uuid: str | None = None
                     ) -> dict:
    """Check a whole node document and turn it into column values."""
    api_utils.validate(NODE_SCHEMA, doc,
                       "node" if current_uuid is None else "patch")
    values = dict(doc)
    _normalize(values, ver, current_uuid)
    _check_reasons(values)
    chassis_uuid = values.pop("chassis_uuid", None)
    if chassis_uuid is not None:
        try:
            values["chassis_id"] = Chassis.get_by_uuid(chassis_uuid).id
        except exception.ChassisNotFound as e:
            raise exception.InvalidParameterValue(err=str(e)) from e
    else:
        values["chassis_id"] = None
    if values.get("parent_node") and current_uuid and \
            values["parent_node"] == current_uuid:
        raise exception.InvalidParameterValue(
            err="A node can not be its own parent.")
    return values


def check_patch_params(params: dict, ver: int) -> bool:
    """Query parameters of a PATCH; True when interfaces are reset."""
    query.refuse_unexpected(params, ("reset_interfaces",))
    return node_driver.parse_reset(params.get("reset_interfaces"), ver)


def check_patch_versions(patch: list, ver: int) -> None:
    """406 for a path whose field exists only in a newer version."""
    for op in patch:
        path = op.get("path") if isinstance(op, dict) else None
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        root = path.split("/")[1]
        since = too_new(root, ver)
        if since is not None and root not in HIDDEN_FIELDS:
            raise exception.NotAcceptable(
                f"The field '{root}' needs API version {since.version} or "
                f"newer.")


def patched_columns(node: Node, patch: list, ver: int, reset: bool
                    ) -> tuple[dict, dict]:
    """Apply ``patch`` to the node: (the columns it changes, the column
    values of the whole node as patched)."""
    changed, values = _patched_values(node, patch, ver)
    for field in node_driver.check_update(values, set(changed), reset,
                                          node.uuid):
        changed.setdefault(field, values[field])
    return _column_changes(values, changed), values


def _patched_values(node: Node, patch: list, ver: int
                    ) -> tuple[dict, dict]:
    """Apply ``patch`` to the node's document: (changed, column values)."""
    fields = visible_fields(ver)
    current = show_node(node, fields)
    # Secrets are masked in the API view; patch the real values.
    for key in ("driver_info", "instance_info"):
        current[key] = copy.deepcopy(getattr(node, key))
    patchable = {f for f in _PATCHABLE
                 if (field_feature(f) or features.ALWAYS).available(ver)}
    patched = api_utils.apply_patch(
        current, patch, read_only=set(fields) - _PATCHABLE,
        required=_REQUIRED, allowed_roots=patchable, listed=_LISTED)
    # A removed top-level field is absent from the result: it becomes null.
    for key in patchable - set(patched):
        default = Node.fields[key].default if key in Node.fields else None
        patched[key] = copy.deepcopy(default)
    changed = {k: patched[k] for k in patchable
               if current.get(k) != patched[k]}
    if changed.get("chassis_uuid", "") is None and \
            not features.UNSET_CHASSIS.available(ver):
        raise exception.NotAcceptable(
            "Removing chassis_uuid needs API version 1.25 or newer.")
    for flag in ("protected", "retired"):
        # Turning a flag off forgets its reason unless the patch sets one.
        if flag in changed and not changed[flag] and \
                f"{flag}_reason" not in changed:
            patched[f"{flag}_reason"] = None
    doc = {k: patched[k] for k in patchable
           if patched[k] is not None or k in changed}
    return changed, _validate_values(doc, ver, node.uuid)


def _column_changes(values: dict, changed: dict) -> dict:
    """The column values a patch changes (chassis_uuid is chassis_id)."""
    return {key: value for key, value in values.items()
            if key in changed or (key == "chassis_id"
                                  and "chassis_uuid" in changed)}
