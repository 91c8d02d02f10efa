"""Data the conductor records about a node, read through the API:
BIOS settings (1.40, registry fields 1.74), the node's history (1.78),
the inventory found by inspection (1.81) and its firmware components
(1.86).

Both are written by the conductor (the BIOS interface caches settings, the
conductor records errors as history events); the API only reads them.
"""

from __future__ import annotations

from typing import Any

from ironic.api import features, method, query
from ironic.api.controllers.v1 import descriptor, list_query, node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, utils
from ironic.objects import node_records

_BIOS_REGISTRY = ("attribute_type", "allowable_values", "lower_bound",
                  "max_length", "min_length", "read_only", "reset_required",
                  "unique", "upper_bound")
_BIOS_FIELDS = ("name", "value", *_BIOS_REGISTRY, "created_at",
                "updated_at", "links")
_HISTORY_FIELDS = ("uuid", "created_at", "severity", "event_type", "event",
                   "conductor", "user", "project", "state",
                   "target_provision_state", "duration_seconds", "links")
_HISTORY_DEFAULT = ("uuid", "created_at", "severity", "event", "links")
#: History fields added after 1.78, with their version.
_HISTORY_SINCE = {"project": features.HISTORY_PROJECT,
                  "state": features.HISTORY_STATE,
                  "target_provision_state": features.HISTORY_STATE,
                  "duration_seconds": features.HISTORY_STATE}
#: A list without detail shortens longer events to this many characters.
_SHORT_EVENT = 255

_ALWAYS = features.ALWAYS


# A BIOS setting or a history event is shown whole: its GET takes no query
# parameter, and Ironic 39 refuses one in the words of the check it makes.
def _schema_refusal(unknown: list[str]) -> Exception:
    names = ", ".join(repr(p) for p in sorted(unknown))
    verb = "was" if len(unknown) == 1 else "were"
    return exception.InvalidParameterValue(
        err=f"Schema error: Additional properties are not allowed "
            f"({names} {verb} unexpected)")



#: The queries of these lists, parsed by ``list_query.parse_list``. BIOS
#: settings take ``detail`` and ``fields`` from 1.74 (before: unknown
#: parameters, as the reference answers); both are served whole.
BIOS_SPEC = descriptor.Spec(
    singular="BIOS setting", collection="bios", obj_cls=None,
    api_fields={name: features.BIOS_REGISTRY if name in _BIOS_REGISTRY
                else _ALWAYS for name in _BIOS_FIELDS},
    default_fields=("name", "value", "links"), strict_fields=False,
    always_shown=("created_at", "updated_at", "links"),
    params=("fields", "detail"), detail_param=_ALWAYS, detail_action=False,
    param_since={"detail": features.BIOS_REGISTRY,
                 "fields": features.BIOS_REGISTRY},
    early_param_status=400, item_params=(),
    refuse_show_params=_schema_refusal)
#: History pages and sorts as Ironic 39 (any column: the database refuses
#: others); a field named before its version is 406, and ``links`` comes
#: only when asked for.
HISTORY_SPEC = descriptor.Spec(
    singular="history event", collection="history", obj_cls=None,
    api_fields={name: _HISTORY_SINCE.get(name, _ALWAYS)
                for name in _HISTORY_FIELDS},
    default_fields=_HISTORY_DEFAULT, always_shown=(),
    # No ``fields``: Ironic 39 refuses it here ("Unexpected arguments").
    params=("detail", "limit", "marker", "sort_key", "sort_dir"),
    detail_param=_ALWAYS,
    detail_action=False, item_params=(),
    refuse_show_params=query.unexpected_arguments)


def _value(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if name in ("created_at", "updated_at"):
        return api_utils.iso(value)
    return value


class BIOSController(node_sub._NodeSub):
    spec = BIOS_SPEC

    @staticmethod
    def _view(node_uuid: str, setting, fields: list[str]) -> dict:
        out = {f: _value(setting, f) for f in fields if f != "links"}
        if "links" in fields:
            out["links"] = api_utils.link(
                "nodes", f"{node_uuid}/bios/{setting.name}")
        return out

    @expose()
    @api_method(features.BIOS)
    def get_all(self, **params):
        args = list_query.parse_list(
            BIOS_SPEC, descriptor.Query(params, method.version()))
        node = self._node("baremetal:node:bios:get")
        settings = node_records.bios_settings(node.id)
        return {"bios": [self._view(node.uuid, s, args.fields)
                         for s in settings]}

    @expose()
    @api_method(features.BIOS)
    def get_one(self, name, **params):
        list_query.check_item_params(BIOS_SPEC, params)
        node = self._node("baremetal:node:bios:get")
        for setting in node_records.bios_settings(node.id):
            if setting.name == name:
                fields = BIOS_SPEC.visible(method.version())
                return {name: self._view(node.uuid, setting, fields)}
        raise exception.NotFound(
            f"Node {node.uuid} doesn't have a BIOS setting '{name}'")


class HistoryController(node_sub._NodeSub):
    spec = HISTORY_SPEC

    @staticmethod
    def _view(node_uuid: str, event, fields: list[str],
              short: bool = False) -> dict:
        out = {f: _value(event, f) for f in fields if f != "links"}
        if short and len(out.get("event") or "") > _SHORT_EVENT:
            out["event"] = out["event"][:_SHORT_EVENT - 4] + "..."
        if "links" in fields:
            # Ironic 39 links an event to itself only (no bookmark).
            out["links"] = api_utils.link(
                "nodes", f"{node_uuid}/history/{event.uuid}")[:1]
        return out

    @expose()
    @api_method(features.NODE_HISTORY)
    def get_all(self, **params):
        args = list_query.parse_list(
            HISTORY_SPEC, descriptor.Query(params, method.version()))
        # Without detail, the reference shortens long events.
        short = not args.detail
        node = self._node("baremetal:node:history:get")
        events = node_records.history(
            node.id, limit=args.limit, marker=args.marker,
            sort_key=args.sort_key, sort_dir=args.sort_dir)
        return api_utils.collection(
            "history",
            [self._view(node.uuid, e, args.fields, short) for e in events],
            args.limit, f"nodes/{node.uuid}/history", params,
            events[-1].uuid if events else None)

    @expose()
    @api_method(features.NODE_HISTORY)
    def get_one(self, event_uuid, **params):
        list_query.check_item_params(HISTORY_SPEC, params)
        node = self._node("baremetal:node:history:get")
        # Ironic 39 answers a malformed UUID as an event it cannot find.
        if utils.is_uuid_like(event_uuid):
            event_uuid = utils.normalize_uuid(event_uuid)
        event = node_records.history_event(node.id, event_uuid)
        return self._view(node.uuid, event,
                          HISTORY_SPEC.visible(method.version()))


_FIRMWARE_FIELDS = ("created_at", "updated_at", "component",
                    "initial_version", "current_version",
                    "last_version_flashed")
_FIRMWARE_IDENTITY = ("vendor", "model", "serial_number")


#: Firmware components are served whole; ``fields`` selects, and naming
#: an identity field before 1.114 is 400, as the reference answers.
FIRMWARE_SPEC = descriptor.Spec(
    singular="firmware component", collection="firmware", obj_cls=None,
    api_fields={**dict.fromkeys(_FIRMWARE_FIELDS, _ALWAYS),
                **dict.fromkeys(_FIRMWARE_IDENTITY,
                                features.FIRMWARE_IDENTITY)},
    default_fields=None, always_shown=("created_at", "updated_at"),
    too_new_status=400,
    params=("fields",), detail_param=None, detail_action=False)


class FirmwareController(node_sub._NodeSub):
    spec = FIRMWARE_SPEC

    @expose()
    @api_method(features.FIRMWARE)
    def get_all(self, **params):
        ver = method.version()
        args = list_query.parse_list(FIRMWARE_SPEC,
                                     descriptor.Query(params, ver))
        fields = [f for f in FIRMWARE_SPEC.visible(ver) if f in args.fields]
        node = self._node("baremetal:node:firmware:get")
        return {"firmware": [
            {f: _value(c, f) for f in fields}
            for c in node_records.firmware_components(node.id)]}


class InventoryController(node_sub._NodeSub):
    """The inventory and plugin data of the node's last inspection."""

    @expose()
    @api_method(features.INVENTORY)
    def get_all(self, **params):
        list_query.check_params(params, ())
        node = self._node("baremetal:node:inventory:get")
        try:
            record = node_records.inventory(node.id)
        except exception.NotFound:
            raise exception.NotFound(
                f"Node {node.uuid} does not have any inventory "
                f"recorded.") from None
        return {"inventory": record.inventory_data,
                "plugin_data": record.plugin_data}
