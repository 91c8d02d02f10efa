"""Plumbing shared by the port, portgroup and chassis controllers.

A ``Spec`` names a resource's fields (the object's declared fields plus the
API-only ones such as ``node_uuid`` or ``links``) with the microversion that
introduced each. Collections, ``fields=`` selection, sorting, bodies and
patches are checked against it, so a field never appears, filters or sorts
before its version: a field a client names too early is 406, a field that
never existed is 400.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable, NamedTuple

from ironic.api import features, method
from ironic.api.controllers.v1 import utils as api_utils
from ironic.common import exception, policy, utils
from ironic.objects import node as node_obj
from ironic.objects.base import IronicObject, uuids_for_ids
from ironic.objects.node import Node

COMMON_LIST_PARAMS = frozenset(
    {"limit", "marker", "sort_key", "sort_dir", "fields", "detail"})


@dataclasses.dataclass(frozen=True)
class Spec:
    """What the API knows about one resource."""

    singular: str
    collection: str
    obj_cls: type[IronicObject]
    #: API-only fields (not columns) -> the feature that added each.
    api_fields: dict[str, features.Since]
    default_fields: tuple[str, ...]
    #: API field -> column holding the data it is rendered from.
    sources: dict[str, str] = dataclasses.field(default_factory=dict)

    def feature(self, name: str) -> features.Since | None:
        """The feature that introduced field ``name`` (None: no such
        field)."""
        if name in self.api_fields:
            return self.api_fields[name]
        field = self.obj_cls.fields.get(name)
        if field is None or field.since is None:
            return None
        return features.of_field(field.since)

    def since(self, name: str) -> int | None:
        """Minor version that introduced field ``name``."""
        feature = self.feature(name)
        return feature.minor if feature else None

    def known(self) -> list[str]:
        names = list(self.obj_cls.fields) + list(self.api_fields)
        return [n for n in names if self.feature(n) is not None]

    def visible(self, ver: int) -> list[str]:
        return [n for n in self.known()
                if (f := self.feature(n)) is not None and f.available(ver)]

    def columns_for(self, fields: Iterable[str]) -> list[str]:
        """Database columns needed to render ``fields``."""
        cols = {"id", "uuid"}
        for name in fields:
            if name in self.sources:
                cols.add(self.sources[name])
            elif name in self.obj_cls.fields:
                cols.add(name)
        return [c for c in self.obj_cls.table_columns() if c in cols]


iso = api_utils.iso


def check_names(spec: Spec, names: Iterable[str], ver: int,
                what: str = "field") -> None:
    """400 for names the resource never had, 406 for ones too new."""
    known = set(spec.known())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown {what}(s) for {spec.singular}: "
                f"{', '.join(sorted(unknown))}")
    for name in names:
        since = spec.feature(name)
        if since is not None and not since.available(ver):
            raise exception.NotAcceptable(
                f"The {what} '{name}' of {spec.singular} needs API version "
                f"{since.version} or newer.")


def need_version(ver: int, feature: features.Since, what: str) -> None:
    """406 naming ``what`` when ``ver`` predates ``feature``."""
    if not feature.available(ver):
        raise exception.NotAcceptable(
            f"{what} needs API version {feature.version} or newer.")


@dataclasses.dataclass
class ListArgs:
    fields: list[str]
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str


def _parse_fields(spec: Spec, raw: str | None, ver: int) -> list[str] | None:
    if raw is None:
        return None
    need_version(ver, features.FIELDS_SELECTION, "The 'fields' parameter")
    wanted = [f.strip() for f in raw.split(",") if f.strip()]
    check_names(spec, wanted, ver)
    return wanted


def _sort_key(spec: Spec, raw: str | None, ver: int) -> str:
    key = raw or "id"
    if key == "id":
        return key
    # JSON documents have no meaningful order.
    sortable = key in spec.obj_cls.fields and \
        key in spec.obj_cls.table_columns() and \
        key not in spec.obj_cls.json_columns()
    if not sortable:
        raise exception.InvalidParameterValue(
            err=f"The sort_key value \"{key}\" is an invalid field for "
                f"sorting")
    check_names(spec, [key], ver, "sort key")
    return key


def list_args(spec: Spec, params: dict[str, Any], *, detail: bool,
              ver: int, filters: Iterable[str]) -> ListArgs:
    """Validate the query of a list request."""
    unknown = set(params) - COMMON_LIST_PARAMS - set(filters)
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    fields = _parse_fields(spec, params.get("fields"), ver)
    if params.get("detail") is not None:
        api_utils.check_detail_version(ver)
        detail = detail or bool(api_utils.parse_bool(params["detail"],
                                                     "detail"))
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    if fields is None:
        fields = spec.visible(ver) if detail else [
            f for f in spec.default_fields
            if (feature := spec.feature(f)) is not None
            and feature.available(ver)]
    if "links" not in fields:
        # The API always links each item, whatever fields were asked for.
        fields = fields + ["links"]
    return ListArgs(
        fields=fields,
        limit=api_utils.parse_limit(params.get("limit")),
        marker=api_utils.check_marker(params.get("marker")),
        sort_key=_sort_key(spec, params.get("sort_key"), ver),
        sort_dir=api_utils.parse_sort_dir(params.get("sort_dir")))


def one_args(spec: Spec, params: dict[str, Any], ver: int) -> list[str]:
    """The fields to show for a GET of one item."""
    unknown = set(params) - {"fields"}
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")
    fields = _parse_fields(spec, params.get("fields"), ver)
    if fields is None:
        return spec.visible(ver)
    return fields + (["links"] if "links" not in fields else [])


def check_body(spec: Spec, body: dict, creatable: Iterable[str],
               ver: int) -> None:
    """Unknown attributes are 400, ones newer than ``ver`` 406."""
    creatable = set(creatable)
    unknown = set(body) - creatable
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown attribute(s) for {spec.singular}: "
                f"{', '.join(sorted(unknown))}")
    check_names(spec, list(body), ver, "attribute")


def patch_values(spec: Spec, current: dict, patch: list, *, ver: int,
                 patchable: Iterable[str], required: Iterable[str]
                 ) -> tuple[dict, set[str]]:
    """Apply ``patch`` to ``current``, the full document of an item.

    Only the patchable fields of this version may be touched. Returns the
    patchable fields of the result (all of them, so the caller validates the
    whole item) and the names whose value changed.
    """
    visible = set(spec.visible(ver))
    patchable = set(patchable)
    allowed = patchable & visible
    for op in patch if isinstance(patch, list) else ():
        root = str(op.get("path", "")).split("/")[1:2] \
            if isinstance(op, dict) else []
        if root and root[0] in patchable - visible:
            # A field this version does not know yet, like fields=.
            check_names(spec, root, ver, "attribute")
    patched = api_utils.apply_patch(
        current, patch, read_only=visible - allowed, required=required,
        allowed_roots=allowed)
    doc = {k: patched.get(k) for k in patchable}
    changed = {k for k in patchable if current.get(k) != patched.get(k)}
    return doc, changed


def as_bool(value: Any, name: str) -> bool:
    """A boolean body value; like the reference, 'true'/'false' strings too."""
    if isinstance(value, bool):
        return value
    parsed = api_utils.parse_bool(value, name) if isinstance(value, str) \
        else None
    if parsed is None:
        raise exception.InvalidParameterValue(
            err=f"Invalid value for {name}: {value!r}; expected a boolean.")
    return parsed


def normalize_mac(value: Any, what: str = "address") -> str:
    if not utils.is_valid_mac(value):
        raise exception.InvalidMAC(mac=value)
    return utils.normalize_mac(value)


class NodeRef(NamedTuple):
    """What a port or port group needs of its node: no JSON columns."""

    id: int
    uuid: str
    reservation: str | None


def _node_refs(*criteria: tuple[str, Any]) -> list[NodeRef]:
    rows = node_obj.list_rows(criteria, columns=["id", "uuid",
                                                 "reservation"])
    return [NodeRef(r["id"], r["uuid"], r["reservation"]) for r in rows]


def node_for_body(ident: Any, *, allow_name: bool) -> NodeRef:
    """The node a body refers to; a missing one is the client's error (400).
    """
    if not isinstance(ident, str) or not (
            utils.is_uuid_like(ident) or
            (allow_name and utils.is_valid_logical_name(ident))):
        if allow_name:
            raise exception.InvalidUuidOrName(name=ident)
        raise exception.InvalidUUID(uuid=ident)
    found = _node_refs(("uuid", utils.normalize_uuid(ident))
                       if utils.is_uuid_like(ident) else ("name", ident))
    if not found:
        raise exception.InvalidParameterValue(
            err=str(exception.NodeNotFound(node=ident)))
    return found[0]


def find_node(ident: str, ver: int):
    """The node a URL or a filter names: by UUID, or by name from 1.5."""
    if utils.is_uuid_like(ident):
        return Node.get(utils.normalize_uuid(ident))
    if utils.is_valid_logical_name(ident):
        need_version(ver, features.NODE_NAMES,
                     "Naming a node by its logical name")
        return Node.get(ident)
    raise exception.NodeNotFound(node=ident)


def check_unlocked(*node_ids: int) -> None:
    """409 when a conductor holds the lock of one of these nodes.

    Ports and portgroups describe the node's wiring; the conductor working
    on a locked node relies on it staying as it is.
    """
    for node in _node_refs(("ids", list(set(node_ids)))):
        if node.reservation:
            raise exception.NodeLocked(node=node.uuid,
                                       host=node.reservation)


def node_uuids(rows: list[dict]) -> dict[int, str]:
    return uuids_for_ids("node", (r.get("node_id") for r in rows))


def portgroup_uuids(rows: list[dict]) -> dict[int, str]:
    return uuids_for_ids("portgroup", (r.get("portgroup_id") for r in rows))


# --- items that belong to a node: ports, port groups, volumes ---------------

def _node_target(node_id: int | None) -> dict[str, str]:
    if node_id is None:
        return {}
    rows = node_obj.list_rows([("id", node_id)],
                              columns=["id", "owner", "lessee"])
    if not rows:
        return {}
    return {key: value for key, value in (("node.owner", rows[0]["owner"]),
                                          ("node.lessee", rows[0]["lessee"]))
            if value}


def check_node_item(kind: str, rule: str, node_id: int | None,
                    missing: Exception) -> None:
    """The caller may do ``rule`` (``baremetal:<kind>:<verb>``) to an item
    of the node ``node_id``: ``missing`` (404) when it may not see the
    item (its node belongs to neither of the caller's projects), 403 when
    it may see but not do it."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return
    target = _node_target(node_id)
    if not policy.allowed(f"baremetal:{kind}:get", ctx, target):
        raise missing
    policy.authorize(rule, ctx, target)


def authorize_for_node(rule: str, node_id: int | None) -> None:
    """403 unless the caller may do ``rule`` with the node ``node_id``
    as the target (creating an item for it)."""
    policy.authorize(rule, method.context(), _node_target(node_id))


def project_filter(kind: str) -> list[tuple[str, Any]]:
    """Criteria limiting a list of ``kind`` (items with a node) to the
    items of the nodes the caller's project owns or leases (none for
    callers who may list all); 403 for a caller who may list neither."""
    ctx = method.context()
    if not policy.enforced(ctx):
        return []
    project = policy.list_project(kind, ctx)
    if project is None:
        return []
    return [("node.project", project)]
