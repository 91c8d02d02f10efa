"""/v1/conductors (API 1.49): the registered conductors and their health."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from pecan import rest

from ironic.api import features, method
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy
from ironic.objects.conductor import Conductor

_ALL_FIELDS = ("hostname", "conductor_group", "alive", "drivers",
               "created_at", "updated_at", "links")
_LIST_FIELDS = ("hostname", "conductor_group", "alive", "links")
_SORT_KEYS = {"hostname", "conductor_group", "created_at", "updated_at",
              "id"}
_LIST_PARAMS = {"limit", "marker", "sort_key", "sort_dir", "fields",
                "detail"}


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

    @expose()
    @api_method(features.CONDUCTORS)
    def get_all(self, **params):
        unknown = set(params) - _LIST_PARAMS
        if unknown:
            raise exception.InvalidParameterValue(
                err=f"Unknown query parameter(s): "
                    f"{', '.join(sorted(unknown))}")
        _authorize("baremetal:conductor:get")
        fields: Sequence[str] | None = api_utils.parse_fields(
            params.get("fields"), _ALL_FIELDS)
        detail = api_utils.parse_bool(params.get("detail"), "detail")
        if fields and detail:
            raise exception.InvalidParameterValue(
                err="Can not specify ?detail=True and fields in the same "
                    "request.")
        fields = fields or (_ALL_FIELDS if detail else _LIST_FIELDS)
        sort_key = params.get("sort_key") or "id"
        if sort_key not in _SORT_KEYS:
            raise exception.InvalidParameterValue(
                err=f"The sort_key value \"{sort_key}\" is an invalid field "
                    f"for sorting")
        limit = api_utils.parse_limit(params.get("limit"))
        rows = Conductor.list(
            limit=limit, marker=params.get("marker"), sort_key=sort_key,
            sort_dir=api_utils.parse_sort_dir(params.get("sort_dir")))
        items = [conductor_view(c, fields) for c in rows]
        return api_utils.collection(
            "conductors", items, limit, "conductors", params,
            rows[-1].hostname if rows else None)

    @expose()
    @api_method(features.CONDUCTORS)
    def get_one(self, hostname, **params):
        unknown = set(params) - {"fields"}
        if unknown:
            raise exception.InvalidParameterValue(
                err=f"Unknown query parameter(s): "
                    f"{', '.join(sorted(unknown))}")
        _authorize("baremetal:conductor:get")
        fields = api_utils.parse_fields(params.get("fields"), _ALL_FIELDS)
        cond = Conductor.get_by_hostname(hostname)
        return conductor_view(cond, fields or _ALL_FIELDS)


__all__ = ["ConductorsController"]
