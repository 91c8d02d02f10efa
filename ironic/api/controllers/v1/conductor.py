"""/v1/conductors (API 1.49): the registered conductors and their health."""

from __future__ import annotations

from typing import Any, Iterable

from pecan import rest

from ironic.api import features, method
from ironic.api.controllers.v1 import descriptor, list_query
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import policy
from ironic.objects.conductor import Conductor

_ALL_FIELDS = ("hostname", "conductor_group", "alive", "drivers",
               "created_at", "updated_at", "links")
_LIST_FIELDS = ("hostname", "conductor_group", "alive", "links")

#: The list's query, parsed by ``list_query.parse_list``: every field is
#: as old as the resource; a page starts after a hostname.
SPEC = descriptor.Spec(
    singular="conductor", collection="conductors", obj_cls=None,
    api_fields={name: features.ALWAYS for name in _ALL_FIELDS},
    default_fields=_LIST_FIELDS, strict_fields=False,
    sort_keys=frozenset({"hostname", "conductor_group", "created_at",
                         "updated_at"}),
    detail_param=features.ALWAYS, detail_action=False, uuid_marker=False)


def conductor_view(cond: Conductor, fields: Iterable[str]) -> dict:
    out: dict[str, Any] = {}
    for name in fields:
        if name == "alive":
            out[name] = cond.alive
        elif name == "links":
            out[name] = api_utils.link("conductors", cond.hostname)
        elif name in ("created_at", "updated_at"):
            out[name] = api_utils.iso(getattr(cond, name))
        else:
            out[name] = getattr(cond, name)
    return out


def _authorize(rule: str) -> None:
    policy.authorize(rule, method.context())


class ConductorsController(rest.RestController):
    spec = SPEC

    @expose()
    @api_method(features.CONDUCTORS)
    def get_all(self, **params):
        args = list_query.parse_list(
            SPEC, descriptor.Query(params, method.version()))
        _authorize("baremetal:conductor:get")
        rows = Conductor.list(
            limit=args.limit, marker=args.marker, sort_key=args.sort_key,
            sort_dir=args.sort_dir)
        items = [conductor_view(c, args.fields) for c in rows]
        return api_utils.collection(
            "conductors", items, args.limit, "conductors", params,
            rows[-1].hostname if rows else None)

    @expose()
    @api_method(features.CONDUCTORS)
    def get_one(self, hostname, **params):
        fields = list_query.show_fields(SPEC, params, method.version())
        _authorize("baremetal:conductor:get")
        return conductor_view(Conductor.get_by_hostname(hostname), fields)


__all__ = ["ConductorsController"]
