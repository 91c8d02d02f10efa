"""Rendering nodes: database rows (and the rows they relate to) into the
API documents of a request's microversion, secrets masked."""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Container, NamedTuple, Sequence

from ironic import hash_ring
from ironic.api import method
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.node_fields import (
    state_for_version,
    visible_names,
)
from ironic.objects import node as node_obj
from ironic.objects.base import uuids_for_ids
from ironic.objects.node import Node

#: Fields shown from rows of other tables (see Relations).
_RELATED = frozenset({"allocation_uuid", "chassis_uuid", "traits"})


class Relations:
    """UUIDs and traits of related rows for a page of nodes, in bulk."""

    def __init__(self, rows: list[dict], fields: Container[str]):
        # {id: UUID}, looked up with a row's id, which may be None
        self.chassis: dict[Any, str] = {}
        self.traits: dict[int, list[str]] = {}
        self.conductors: dict[Any, str] = {}
        self.allocations: dict[Any, str] = {}
        if "allocation_uuid" in fields:
            self.allocations = _uuids("allocation", rows, "allocation_id")
        if "chassis_uuid" in fields:
            self.chassis = _uuids("chassis", rows, "chassis_id")
        if "traits" in fields:
            self.traits = node_obj.traits_for([r["id"] for r in rows])


def _uuids(model: str, rows: list[dict], column: str) -> dict[int, str]:
    ids = [r[column] for r in rows if r.get(column) is not None]
    # Most nodes have neither chassis nor allocation: no call for them.
    return uuids_for_ids(model, ids) if ids else {}


def mask_internal(info: dict | None) -> dict:
    """The agent token must never leave the service, even to admins."""
    info = info or {}
    if info.get("agent_secret_token"):
        info = dict(info, agent_secret_token=api_utils.MASK)
    return info


def _mask_instance_info(info: dict | None) -> dict:
    info = api_utils.mask_secrets(info)
    # The config drive, and an image URL that may be a signed temporary
    # one, are secrets too (as the reference's show_instance_secrets
    # default hides them).
    hidden = {k: api_utils.MASK for k in ("configdrive", "image_url")
              if info.get(k)}
    return dict(info, **hidden) if hidden else info


_TIMESTAMPS = frozenset({"created_at", "updated_at", "provision_updated_at",
                         "inspection_started_at", "inspection_finished_at"})
_SUB_LINKS = frozenset({"ports", "portgroups", "states", "volume"})


class _ViewContext:
    """What the renderers of one request share: the public URL's link
    builder, the related rows of the page and (when a field shows it) the
    conductor of a node as the hash rings say now."""

    __slots__ = ("links", "rel", "conductor_of")

    def __init__(self, url: str, rel: Relations, conductors: bool = False):
        self.links = api_utils.linker("nodes", url)
        self.rel = rel
        self.conductor_of = hash_ring.conductor_finder() if conductors \
            else hash_ring.conductor_for


def _renderer(name: str, ver: int) -> Callable[[dict, _ViewContext], Any] | None:
    """How to show field ``name`` of a row at version ``ver``; None for a
    column shown as stored."""
    if name == "driver_info":
        return lambda row, ctx: api_utils.mask_secrets(row.get(name))
    if name == "instance_info":
        return lambda row, ctx: _mask_instance_info(row.get(name))
    if name == "driver_internal_info":
        return lambda row, ctx: mask_internal(row.get(name))
    if name in ("provision_state", "target_provision_state"):
        return lambda row, ctx: state_for_version(row.get(name), ver)
    if name in _TIMESTAMPS:
        return functools.partial(_timestamp, name)
    if name == "chassis_uuid":
        return lambda row, ctx: ctx.rel.chassis.get(row.get("chassis_id"))
    if name == "traits":
        return lambda row, ctx: ctx.rel.traits.get(row["id"], [])
    if name == "links":
        return lambda row, ctx: ctx.links(row["uuid"])
    if name in _SUB_LINKS:
        return lambda row, ctx: ctx.links(f"{row['uuid']}/{name}")
    if name == "conductor":
        return lambda row, ctx: ctx.conductor_of(row)
    if name == "allocation_uuid":
        return lambda row, ctx: ctx.rel.allocations.get(
            row.get("allocation_id"))
    return None


def _timestamp(name: str, row: dict, ctx: _ViewContext) -> str | None:
    return api_utils.iso(row.get(name))


class _ViewPlan(NamedTuple):
    """How to render one field list at one version."""

    #: Every field in order, each None: a document starts as a copy, so
    #: its keys come out in the order of the fields whatever fills them.
    template: dict[str, None]
    #: Fields shown as stored (a row without the column shows None).
    plain: tuple[str, ...]
    #: (field, renderer) of the others.
    rendered: tuple[tuple[str, Callable[[dict, _ViewContext], Any]], ...]


@functools.lru_cache(maxsize=512)
def _view_plan(fields: tuple[str, ...], ver: int) -> _ViewPlan:
    # The same few field lists come back on every request; choosing their
    # renderers anew each time cost more than a single node's rendering.
    renderers = {name: _renderer(name, ver) for name in fields}
    return _ViewPlan(
        dict.fromkeys(fields),
        tuple(name for name, render in renderers.items() if render is None),
        tuple((name, render) for name, render in renderers.items()
              if render is not None))


@functools.lru_cache(maxsize=512)
def _picker(names: tuple[str, ...]) -> Callable[[dict], tuple]:
    """The values of ``names`` in a row, as a tuple, in one C call."""
    if not names:
        return lambda row: ()
    if len(names) == 1:
        # itemgetter of one key returns the value, not a 1-tuple.
        return lambda row: (row[names[0]],)
    return operator.itemgetter(*names)


def node_views(rows: list[dict], fields: Sequence[str], ver: int, url: str,
               rel: Relations) -> list[dict]:
    """The API documents of ``rows`` (mappings of the same columns, as
    one query returns them), with only ``fields``."""
    if not rows:
        return []
    plan = _view_plan(tuple(fields), ver)
    ctx = _ViewContext(url, rel, "conductor" in plan.template)
    # The stored fields go in with one C call per row; a row lacks the
    # columns no field needs, and the fields it lacks stay None.
    first = rows[0]
    stored = tuple(name for name in plan.plain if name in first)
    pick = _picker(stored)
    template, rendered = plan.template, plan.rendered
    out = []
    for row in rows:
        doc = template.copy()
        doc.update(zip(stored, pick(row), strict=True))
        for name, render in rendered:
            doc[name] = render(row, ctx)
        out.append(doc)
    return out


def node_view(row: dict, fields: Sequence[str], ver: int, url: str,
              rel: Relations) -> dict:
    """The API document of one node, with only ``fields``."""
    return node_views([row], fields, ver, url, rel)[0]


def columns_for(fields: list[str]) -> list[str]:
    """Database columns needed to render ``fields``."""
    cols = {"id", "uuid"}
    if "conductor" in fields:
        cols.update(("driver", "conductor_group"))
    for name in fields:
        if name == "chassis_uuid":
            cols.add("chassis_id")
        elif name == "allocation_uuid":
            cols.add("allocation_id")
        elif name in Node.fields and name != "traits":
            cols.add(name)
    return [c for c in Node.table_columns() if c in cols]


def show_node(node: Node, fields: Sequence[str] | None = None,
              url: str | None = None) -> dict:
    ver = method.version()
    names = tuple(fields) if fields else visible_names(ver)
    row = node.as_dict()
    row["id"] = node.id
    loaded = node.traits is not None
    # Traits already loaded on the node need no second query.
    rel = Relations([row], _related(names, loaded))
    if loaded and "traits" in names:
        rel.traits = {node.id: node.traits}
    return node_view(row, names, ver, url or method.public_url(), rel)


@functools.lru_cache(maxsize=512)
def _related(names: tuple[str, ...], traits_loaded: bool) -> frozenset[str]:
    """The fields among ``names`` that need rows of other tables."""
    wanted = _RELATED.intersection(names)
    return wanted - {"traits"} if traits_loaded else wanted
