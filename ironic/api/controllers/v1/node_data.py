"""Data the conductor records about a node, read through the API:
BIOS settings (1.40, registry fields 1.74), the node's history (1.78),
the inventory found by inspection (1.81) and its firmware components
(1.86).

Both are written by the conductor (the BIOS interface caches settings, the
conductor records errors as history events); the API only reads them.
"""

from __future__ import annotations

from typing import Any

from ironic.api import features, method
from ironic.api.controllers.v1 import node_sub
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


def _value(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if name in ("created_at", "updated_at"):
        return api_utils.iso(value)
    return value


def _check_params(params: dict, allowed: set[str]) -> None:
    unknown = set(params) - allowed
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown query parameter(s): {', '.join(sorted(unknown))}")


def _list_fields(params: dict, all_fields: tuple, default: tuple,
                 since: features.Since) -> list[str]:
    """The fields a list shows: default, ``detail``, or ``fields``."""
    ver = method.version()
    if ("detail" in params or "fields" in params) and \
            not since.available(ver):
        raise exception.NotAcceptable(
            f"'detail' and 'fields' need API version {since.version} or "
            f"newer.")
    fields = api_utils.parse_fields(params.get("fields"), all_fields)
    detail = api_utils.parse_bool(params.get("detail"), "detail")
    if fields and detail:
        raise exception.InvalidParameterValue(
            err="Can not specify ?detail=True and fields in the same "
                "request.")
    return fields or list(all_fields if detail else default)


class BIOSController(node_sub._NodeSub):
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
        _check_params(params, {"detail", "fields"})
        fields = _list_fields(params, _BIOS_FIELDS,
                              ("name", "value", "links"),
                              features.BIOS_REGISTRY)
        node = self._node("baremetal:node:bios:get")
        settings = node_records.bios_settings(node.id)
        return {"bios": [self._view(node.uuid, s, fields)
                         for s in settings]}

    @expose()
    @api_method(features.BIOS)
    def get_one(self, name, **params):
        _check_params(params, set())
        node = self._node("baremetal:node:bios:get")
        for setting in node_records.bios_settings(node.id):
            if setting.name == name:
                fields = [f for f in _BIOS_FIELDS if f not in _BIOS_REGISTRY or
                          features.BIOS_REGISTRY.available(method.version())]
                return {name: self._view(node.uuid, setting, fields)}
        raise exception.NotFound(
            f"The BIOS setting {name} of node {node.uuid} could not be "
            f"found.")


class HistoryController(node_sub._NodeSub):
    @staticmethod
    def _view(node_uuid: str, event, fields: list[str],
              short: bool = False) -> dict:
        out = {f: _value(event, f) for f in fields if f != "links"}
        if short and len(out.get("event") or "") > _SHORT_EVENT:
            out["event"] = out["event"][:_SHORT_EVENT - 4] + "..."
        if "links" in fields:
            out["links"] = api_utils.link(
                "nodes", f"{node_uuid}/history/{event.uuid}")
        return out

    @staticmethod
    def _known(ver: int) -> tuple:
        return tuple(
            f for f in _HISTORY_FIELDS
            if _HISTORY_SINCE.get(f, features.NODE_HISTORY).available(ver))

    @expose()
    @api_method(features.NODE_HISTORY)
    def get_all(self, **params):
        _check_params(params, {"detail", "fields", "limit", "marker"})
        ver = method.version()
        known = self._known(ver)
        too_new = [f for f in api_utils.parse_fields(
            params.get("fields"), _HISTORY_FIELDS) or () if f not in known]
        if too_new:
            raise exception.NotAcceptable(
                f"The history field(s) {', '.join(too_new)} need API "
                f"version 1."
                f"{max(_HISTORY_SINCE[f].minor for f in too_new)} or newer.")
        fields = _list_fields(params, known, _HISTORY_DEFAULT,
                             features.NODE_HISTORY)
        # Without detail, the reference shortens long events.
        short = "fields" not in params and not api_utils.parse_bool(
            params.get("detail"), "detail")
        node = self._node("baremetal:node:history:get")
        limit = api_utils.parse_limit(params.get("limit"))
        events = node_records.history(
            node.id, limit=limit,
            marker=api_utils.check_marker(params.get("marker")))
        return api_utils.collection(
            "history",
            [self._view(node.uuid, e, fields, short) for e in events],
            limit, f"nodes/{node.uuid}/history", params,
            events[-1].uuid if events else None)

    @expose()
    @api_method(features.NODE_HISTORY)
    def get_one(self, event_uuid, **params):
        _check_params(params, set())
        if not utils.is_uuid_like(event_uuid):
            raise exception.InvalidUUID(uuid=event_uuid)
        node = self._node("baremetal:node:history:get")
        event = node_records.history_event(
            node.id, utils.normalize_uuid(event_uuid))
        return self._view(node.uuid, event,
                          list(self._known(method.version())))


_FIRMWARE_FIELDS = ("created_at", "updated_at", "component",
                    "initial_version", "current_version",
                    "last_version_flashed")
_FIRMWARE_IDENTITY = ("vendor", "model", "serial_number")


def _firmware_fields(params: dict) -> list[str]:
    """Fields of each component: all this version knows, or ``fields``
    (the timestamps are always shown, as by the reference service)."""
    known = list(_FIRMWARE_FIELDS)
    if features.FIRMWARE_IDENTITY.available(method.version()):
        known += _FIRMWARE_IDENTITY
    if "fields" not in params:
        return known
    wanted = api_utils.parse_fields(params["fields"],
                                    _FIRMWARE_FIELDS + _FIRMWARE_IDENTITY)
    too_new = [f for f in wanted if f not in known]
    if too_new:
        # The reference answers 400 here, not 406.
        raise exception.InvalidParameterValue(
            err=f"Fields {', '.join(too_new)} need API version "
                f"{features.FIRMWARE_IDENTITY.version} or newer.")
    return [f for f in known
            if f in wanted or f in ("created_at", "updated_at")]


class FirmwareController(node_sub._NodeSub):
    @expose()
    @api_method(features.FIRMWARE)
    def get_all(self, **params):
        _check_params(params, {"fields"})
        fields = _firmware_fields(params)
        node = self._node("baremetal:node:firmware:get")
        return {"firmware": [
            {f: _value(c, f) for f in fields}
            for c in node_records.firmware_components(node.id)]}


class InventoryController(node_sub._NodeSub):
    """The inventory and plugin data of the node's last inspection."""

    @expose()
    @api_method(features.INVENTORY)
    def get_all(self, **params):
        _check_params(params, set())
        node = self._node("baremetal:node:inventory:get")
        try:
            record = node_records.inventory(node.id)
        except exception.NotFound:
            raise exception.NotFound(
                f"Node {node.uuid} does not have any inventory "
                f"recorded.") from None
        return {"inventory": record.inventory_data,
                "plugin_data": record.plugin_data}
