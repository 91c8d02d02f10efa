"""The query of a list or of one item, parsed here for every resource.

A list request is read in Ironic 39's order: the form of every parameter
(unknown or too new, fields, detail, limit, marker, sort direction, each
filter's value), then the caller's rights (``Spec.list_scope``), then what
the parameters mean together (the sort key, filter combinations), with an
unknown marker answered before those (``marker_first``). So every resource
answers a bad value, a field too new for the version or an unknown
parameter alike.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any, Iterator

from ironic.api import features, query
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.controllers.v1.descriptor import (
    Criteria,
    Filter,
    Query,
    Spec,
    check_names,
    need_version,
)
from ironic.common import exception


@dataclasses.dataclass
class ListArgs:
    """A list request's parsed paging, sorting and fields."""

    fields: list[str]
    limit: int
    marker: str | None
    sort_key: str
    sort_dir: str
    #: Every field was asked for (``/detail`` or ``?detail=true``).
    detail: bool = False


def parse_fields(spec: Spec, raw: str | None, ver: int) -> list[str] | None:
    """The fields a client asked for (None: it did not say)."""
    if raw is None:
        return None
    if spec.read_fields is not None:
        return spec.read_fields(raw, ver)
    if not spec.strict_fields:
        return api_utils.parse_fields(raw, spec.visible(ver))
    need_version(ver, features.FIELDS_SELECTION, "The 'fields' parameter")
    wanted = [f.strip() for f in raw.split(",") if f.strip()]
    check_names(spec, wanted, ver)
    return wanted


def _with_links(spec: Spec, fields: list[str]) -> list[str]:
    """``fields`` and those every item shows: timestamps first, links last,
    as Ironic 39 orders them."""
    always = spec.always()
    front = [f for f in always if f != "links" and f not in fields]
    back = ["links"] if "links" in always and "links" not in fields else []
    return front + fields + back if front or back else fields


def parse_sort_key(spec: Spec, raw: str | None, ver: int) -> str:
    key = raw or "id"
    if key == "id":
        return key
    if spec.sort_keys is not None:
        feature = spec.feature(key) or features.ALWAYS
        if key in spec.sort_keys and feature.available(ver):
            return key
        if spec.sort_too_new is not None and not feature.available(ver):
            raise spec.sort_too_new(key, feature)
        raise _unsortable(spec, key)
    if spec.obj_cls is None:
        # Plain rows: the database refuses what it cannot sort by.
        return key
    # JSON documents have no meaningful order.
    cls = spec.obj_cls
    if key not in cls.fields or key not in cls.table_columns() or \
            key in cls.json_columns():
        raise _unsortable(spec, key)
    check_names(spec, [key], ver, "sort key")
    return key


def _unsortable(spec: Spec, key: str) -> exception.InvalidParameterValue:
    # Ironic 39 words a field it has but does not sort by (a JSON
    # document) apart from a name it does not know: only the latter is
    # quoted.
    shown = key if key in spec.known() else f'"{key}"'
    return exception.InvalidParameterValue(
        err=f"The sort_key value {shown} is an invalid field for sorting")


def check_params(params: dict[str, Any], accepted: Any) -> None:
    query.refuse_unexpected(params, accepted)


def _too_early(spec: Spec, params: dict[str, Any], ver: int) -> list[str]:
    return [p for p in params if (since := spec.param_since.get(p))
            is not None and not since.available(ver)]


def check_param_versions(spec: Spec, params: dict[str, Any], ver: int,
                         accepted: Any) -> None:
    """400 for parameters the request may not give (those taken from a
    later version among them when the Spec says so), then 406 for the
    others given before their version."""
    early = _too_early(spec, params, ver)
    if spec.early_param_status == 400:
        accepted = set(accepted) - set(early)
    check_params(params, accepted)
    if early:
        name = early[0]
        raise exception.NotAcceptable(
            f"The '{name}' parameter of {spec.singular} needs API version "
            f"{spec.param_since[name].version} or newer.")


def parse_detail(params: dict[str, Any], detail: bool, ver: int,
                 since: features.Since | None = features.DETAIL_PARAM
                 ) -> bool:
    """Whether a list shows every field: ``/detail`` or ``?detail=``
    (a parameter from ``since`` on, before it unknown: 400)."""
    if params.get("detail") is None:
        return detail
    if since is not None and not since.available(ver):
        raise exception.InvalidParameterValue(
            err="Invalid query parameter ?detail=True received.")
    return detail or api_utils.parse_bool(params["detail"], "detail")


def refuse_detail_param(params: dict[str, Any]) -> None:
    """``/detail`` shows every field already: it takes neither
    ``?detail=`` nor ``?fields=``, which Ironic 39 refuses as parameters
    it does not know (with any other unknown one: ``check_params``)."""
    refused = [p for p in params if p in ("detail", "fields")]
    if refused:
        raise query.unexpected_arguments(refused)


def check_not_both(fields: list[str] | None, detail: bool) -> None:
    if fields is not None and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")


def parse_page(spec: Spec, params: dict[str, Any]
               ) -> tuple[int, str | None, str]:
    """limit, marker and sort direction of a list request (the sort key
    is checked once the marker is known: ``marker_first``); a Spec that
    reads its page late gets the marker and direction as given."""
    marker, sort_dir = params.get("marker"), params.get("sort_dir")
    late = spec.page_read_late
    if spec.schema_query:
        sort_dir = _schema_string(sort_dir)
        if sort_dir is not None and sort_dir not in ("asc", "desc"):
            raise exception.InvalidParameterValue(
                err=f"Schema error: '{sort_dir}' is not one of "
                    f"['asc', 'desc']")
    return (api_utils.parse_limit(params.get("limit")),
            marker if late else spec.check_marker(marker),
            (sort_dir or "") if late else api_utils.parse_sort_dir(sort_dir))


def _schema_string(value: Any) -> Any:
    if query.is_repeated(value):
        raise query.not_a_string(value)
    return value


def check_repeated(spec: Spec, q: Query) -> None:
    """A parameter given twice that no check of its kind refused by now
    (the marker of a list that reads it late, the sort key, a filter
    without a check) is refused as a string one."""
    for name, value in q.params.items():
        if not query.is_repeated(value):
            continue
        if name == "marker":
            spec.check_marker(value)
        flt = spec.filters.get(name)
        if flt is not None and flt.check is not None:
            flt.check(name, value)
        if spec.schema_query:
            raise query.not_a_string(value)
        raise query.expected("string", name, value)


def accepted_params(spec: Spec, q: Query) -> list[str]:
    """The parameters the list takes (less the filters its URL gives)."""
    return [p for p in spec.list_params()
            if not (q.scope and p in spec.filters
                    and spec.filters[p].scoped_by in q.scope)]


def check_filter_values(spec: Spec, q: Query) -> None:
    """The version (406) and form (400) of each filter given."""
    for name, flt in spec.filters.items():
        value = q.params.get(name)
        if value is None:
            continue
        need_version(q.ver, flt.feature, f"The '{name}' filter")
        if flt.check is not None:
            flt.check(name, value)


@contextlib.contextmanager
def marker_first(spec: Spec, marker: str | None) -> Iterator[None]:
    """As Ironic 39, a list finds its marker before it checks the sort key
    and what the filters name or combine: an unknown marker is 404,
    whatever those refuse. The marker is looked up on a refusal only (a
    page that is served looks it up anyway)."""
    try:
        yield
    except exception.IronicException:
        if marker is not None:
            spec.fetch([], ListArgs([], 1, marker, "id", "asc"),
                       spec.columns_for(()))
        raise


def parse_list(spec: Spec, q: Query, *, detail: bool = False) -> ListArgs:
    """Validate the query of a list request: the form of every parameter,
    then what they mean."""
    return check_meaning(spec, q, check_form(spec, q, detail=detail))


def check_form(spec: Spec, q: Query, *, detail: bool = False) -> ListArgs:
    """The form of every parameter of a list request, which Ironic 39
    checks before anything else; the sort key is left as given."""
    check_param_versions(spec, q.params, q.ver, accepted_params(spec, q))
    fields = parse_fields(spec, q.params.get("fields"), q.ver)
    detail = parse_detail(q.params, detail, q.ver, spec.detail_param)
    check_not_both(fields, detail)
    if fields is None:
        fields = spec.visible(q.ver) if detail else spec.defaults(q.ver)
    limit, marker, sort_dir = parse_page(spec, q.params)
    check_filter_values(spec, q)
    check_repeated(spec, q)
    return ListArgs(_with_links(spec, fields), limit, marker,
                    q.params.get("sort_key") or "id", sort_dir, detail)


def check_meaning(spec: Spec, q: Query, args: ListArgs) -> ListArgs:
    """Once the marker is known: the sort key, and the filters taken
    together."""
    with marker_first(spec, args.marker):
        sort_key = parse_sort_key(spec, args.sort_key, q.ver)
        spec.check_filters(q)
    return dataclasses.replace(args, sort_key=sort_key)


def given(q: Query, *names: str) -> bool:
    """Whether any of the filters ``names`` is given, as a parameter with
    a value or as a parent in the URL."""
    return any(q.params.get(name) or name in q.scope for name in names)


def filter_criteria(filters: dict[str, Filter], q: Query) -> Criteria:
    """The criteria the list's filter parameters ask for (their version
    and form were checked with the rest of the query: ``check_form``)."""
    conds: Criteria = []
    for name, flt in filters.items():
        value = q.params.get(name)
        if value is None:
            value = flt.default
        if value is not None:
            conds += flt.criteria(value, q)
    return conds


def check_item_params(spec: Spec, params: dict[str, Any]) -> None:
    """Refuses the parameters a GET of one item does not take."""
    unknown = [p for p in params if p not in spec.item_params]
    if unknown:
        raise spec.refuse_show_params(unknown)


def show_fields(spec: Spec, params: dict[str, Any], ver: int) -> list[str]:
    """The fields to show for a GET of one item."""
    check_item_params(spec, params)
    check_param_versions(spec, params, ver, params)
    fields = parse_fields(spec, params.get("fields"), ver)
    if fields is None:
        return spec.visible(ver)
    return _with_links(spec, fields)
