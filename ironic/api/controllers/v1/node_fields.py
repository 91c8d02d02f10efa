"""The fields of a node document: which exist at which microversion, which
a client may ask for, and how states are named to older clients."""

from __future__ import annotations

import functools

from ironic.api import features
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, states
from ironic.objects.node import Node

# Fields the API adds that are not columns of the nodes table, with the
# feature that introduced each.
RELATION_SINCE = {
    "chassis_uuid": features.ALWAYS, "links": features.ALWAYS,
    "ports": features.ALWAYS, "portgroups": features.PORTGROUP_SUBRESOURCES,
    "states": features.SUBRESOURCE_LINKS, "volume": features.VOLUME,
    "conductor": features.NODE_CONDUCTOR,
    "allocation_uuid": features.NODE_ALLOCATION, "traits": features.TRAITS,
}
HIDDEN_FIELDS = {"chassis_id", "conductor_affinity", "allocation_id"}
DEFAULT_LIST_FIELDS = ("instance_uuid", "maintenance", "name",
                       "power_state", "provision_state", "uuid")


def field_feature(name: str) -> features.Since | None:
    """The feature that introduced the node field ``name`` (None: no such
    field)."""
    if name in RELATION_SINCE:
        return RELATION_SINCE[name]
    field = Node.fields.get(name)
    if field is None or field.since is None:
        return None
    return features.of_field(field.since)


def field_since(name: str) -> int | None:
    """Minor version that introduced the node field ``name`` (None: no
    such field)."""
    feature = field_feature(name)
    return feature.minor if feature else None


def too_new(name: str, ver: int) -> features.Since | None:
    """The feature a field of a request needs, when ``ver`` predates it."""
    feature = field_feature(name)
    if feature is None or feature.available(ver):
        return None
    return feature


def visible_fields(ver: int) -> list[str]:
    return list(visible_names(ver))


@functools.cache
def visible_names(ver: int) -> tuple[str, ...]:
    """The fields a node document shows at ``ver``, in document order."""
    # Fixed per version; computed once instead of on every request.
    # (traits is both an object field and a relation: listed once.)
    return tuple(dict.fromkeys(
        n for n in list(Node.fields) + list(RELATION_SINCE)
        if n not in HIDDEN_FIELDS and (feature := field_feature(n))
        is not None and feature.available(ver)))


def check_fields_version(fields: str | None, ver: int) -> None:
    """406 when a requested field exists only in a newer version."""
    if not fields:
        return
    for name in (f.strip() for f in fields.split(",")):
        since = too_new(name, ver)
        if since is not None and name not in HIDDEN_FIELDS:
            raise exception.NotAcceptable(
                f"The field '{name}' needs API version {since.version} or "
                f"newer.")


def parse_node_fields(fields: str | None, ver: int) -> list[str] | None:
    check_fields_version(fields, ver)
    return api_utils.parse_fields(fields, visible_fields(ver))


def with_links(fields: list[str]) -> list[str]:
    """Every node document carries its links, whatever ``fields`` asks."""
    return fields if "links" in fields else fields + ["links"]


def state_for_version(state: str | None, ver: int) -> str | None:
    if state == states.AVAILABLE and \
            not features.AVAILABLE_STATE.available(ver):
        return None
    if state == states.INSPECTWAIT and \
            not features.INSPECT_WAIT.available(ver):
        # Asynchronous inspection was shown as "inspecting" before 1.39.
        return states.INSPECTING
    return state
