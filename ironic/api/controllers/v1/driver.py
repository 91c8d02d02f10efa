"""/v1/drivers: the hardware types live conductors serve.

Everything here is read from what conductors registered in
``conductor_hardware_interfaces`` (seed 003); properties and passthru
method lists come from the interface classes themselves, which describe
them statically. Driver vendor passthru calls go to a conductor.
"""

from __future__ import annotations

from typing import Any

from pecan import rest

from ironic import driver_registry, hash_ring
from ironic.api import features, method
from ironic.api.controllers.v1 import (
    answers,
    descriptor,
    list_query,
    node_vendor,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, interface_catalog, policy
from ironic.conductor import rpcapi


def _driver_type(value: str, q: descriptor.Query) -> descriptor.Criteria:
    if value not in ("classic", "dynamic"):
        raise exception.InvalidParameterValue(
            err='"type" filter must be one of "classic" or "dynamic", if '
                'specified.')
    return [("type", value)]


#: The list's and item's query, parsed by ``collection``: the list is
#: served whole (no paging); ``type`` and ``detail`` from 1.30, ``fields``
#: from 1.77 (406 before).
SPEC = descriptor.Spec(
    singular="driver", collection="drivers", obj_cls=None,
    api_fields=answers.DRIVER.features(),
    default_fields=answers.DRIVER_BASE, strict_fields=False,
    params=("fields", "detail"), detail_param=features.ALWAYS,
    detail_action=False,
    param_since={"type": features.HARDWARE_TYPES,
                 "detail": features.HARDWARE_TYPES,
                 "fields": features.DRIVER_FIELDS},
    filters={"type": descriptor.Filter(_driver_type)})


def default_vendor_class(hw: interface_catalog.HardwareType
                         ) -> type[Any]:
    name = hw.defaults.get("vendor")
    if not name:
        raise exception.UnsupportedDriverExtension(
            driver=hw.name, extension="vendor passthru")
    return driver_registry.interface_class("vendor", name)


def _driver_of_sub_resource(name: str) -> interface_catalog.HardwareType:
    """The hardware type behind ``/v1/drivers/{name}/<sub-resource>``:
    Ironic 39 words its 404 there unlike the driver's own GET."""
    try:
        return hash_ring.live_catalog().get(name)
    except exception.DriverNotFound:
        raise exception.NotFound(f"The driver '{name}' is unknown.") \
            from None


class DriverPassthruController(node_vendor.PassthruVerbs):
    """/v1/drivers/{name}/vendor_passthru: methods list (calls: RPC)."""

    _custom_actions = {"methods": ["GET"]}

    def __init__(self, driver_name: str) -> None:
        self.driver_name = driver_name

    @expose()
    @api_method()
    def methods(self):
        policy.authorize("baremetal:driver:vendor_passthru",
                         method.context())
        hw = _driver_of_sub_resource(self.driver_name)
        routes = default_vendor_class(hw).driver_routes
        return {name: route.public(driver_level=True)
                for name, (_attr, route) in sorted(routes.items())}

    def _call(self, http_method: str, params: dict,
              path_name: str | None = None) -> Any:
        policy.authorize("baremetal:driver:vendor_passthru",
                         method.context())
        name, info = node_vendor.call_args(path_name)
        hash_ring.live_catalog().get(self.driver_name)
        return node_vendor.answer(rpcapi.get_api().driver_vendor_passthru(
            method.context(), self.driver_name, name, http_method, info))



class RaidController(rest.RestController):
    _custom_actions = {"logical_disk_properties": ["GET"]}

    def __init__(self, driver_name: str) -> None:
        self.driver_name = driver_name

    @expose()
    # Like states/raid, this answered 406 to older versions (once
    # authorized).
    @api_method(features.RAID, too_old=406, late=True)
    def logical_disk_properties(self):
        policy.authorize(
            "baremetal:driver:get_raid_logical_disk_properties",
            method.context())
        method.check_bound()
        hw = _driver_of_sub_resource(self.driver_name)
        raid = hw.defaults.get("raid")
        # a RAIDInterface (the catalog names it by kind)
        iface: Any = driver_registry.interface_instance("raid", raid) \
            if raid else None
        if iface is None:
            raise exception.NotFound(
                f"Driver {hw.name} does not support RAID configuration.")
        # Even no-raid answers (the generic schema's properties), as in
        # Ironic 39: what a disk may say does not depend on the interface.
        return iface.get_logical_disk_properties()


class DriverProperties(rest.RestController):
    """/v1/drivers/{name}/properties: driver_info keys and their help."""

    def __init__(self, driver_name: str) -> None:
        self.driver_name = driver_name

    @expose()
    @api_method()
    def get_all(self, **params):
        list_query.check_params(params, ())
        policy.authorize("baremetal:driver:get_properties",
                         method.context())
        hw = _driver_of_sub_resource(self.driver_name)
        return driver_registry.properties_of(hw.defaults)


class DriversController(rest.RestController):
    spec = SPEC
    _subcontrollers = {"vendor_passthru": DriverPassthruController,
                       "raid": RaidController,
                       "properties": DriverProperties}

    @expose()
    def _lookup(self, name, sub=None, *remainder):
        if sub is None:
            return api_utils.item_without_handler(self, name)
        factory = self._subcontrollers.get(sub)
        if factory is None or (sub == "properties" and remainder):
            import pecan
            pecan.abort(404)
        return factory(name), list(remainder)

    @expose()
    @api_method()
    def get_all(self, **params):
        q = descriptor.Query(params, method.version())
        args = list_query.parse_list(SPEC, q)
        kind = dict(list_query.filter_criteria(SPEC.filters, q)).get("type")
        policy.authorize("baremetal:driver:get", method.context())
        if kind == "classic":
            return {"drivers": []}
        catalog = hash_ring.live_catalog()
        return {"drivers": [answers.DRIVER.render(hw, q.ver, args.fields)
                            for _n, hw in sorted(catalog.types.items())]}

    @expose()
    @api_method()
    def get_one(self, name, **params):
        ver = method.version()
        fields = list_query.show_fields(SPEC, params, ver)
        policy.authorize("baremetal:driver:get", method.context())
        return answers.DRIVER.render(hash_ring.live_catalog().get(name), ver,
                                     fields)


__all__ = ["DriversController"]
