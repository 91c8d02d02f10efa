"""Which hardware types and interfaces the live conductors serve.

The API does not load drivers: it reads what conductors registered in
``conductor_hardware_interfaces`` (seed 003) and checks node documents
against it. The same checks run on a catalog built from the local
``driver_registry.Registry`` in tests and tools, so both sides agree.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterable

from ironic import interfaces
from ironic.common import exception


@dataclasses.dataclass
class HardwareType:
    name: str
    hosts: list[str] = dataclasses.field(default_factory=list)
    #: {interface type: names, in registration order (preferred first)}
    enabled: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    #: {interface type: default name, or None when there is none}
    defaults: dict[str, str | None] = dataclasses.field(default_factory=dict)


class Catalog:
    """Hardware types -> enabled interfaces and defaults."""

    def __init__(self, types: dict[str, HardwareType]) -> None:
        self.types = types

    @classmethod
    def from_records(cls, rows: Iterable[dict]) -> Catalog:
        """Build from rows with hardware_type, interface_type,
        interface_name, default and optionally hostname."""
        types: dict[str, HardwareType] = {}
        for row in rows:
            hw = types.setdefault(row["hardware_type"],
                                  HardwareType(row["hardware_type"]))
            host = row.get("hostname")
            if host and host not in hw.hosts:
                hw.hosts.append(host)
            names = hw.enabled.setdefault(row["interface_type"], [])
            if row["interface_name"] not in names:
                names.append(row["interface_name"])
            if row["default"] and not hw.defaults.get(row["interface_type"]):
                hw.defaults[row["interface_type"]] = row["interface_name"]
        return cls(types)

    def get(self, name: str) -> HardwareType:
        try:
            return self.types[name]
        except KeyError:
            raise exception.DriverNotFound(driver_name=name) from None

    def _all_names(self, kind: str) -> list[str]:
        names: list[str] = []
        for hw in self.types.values():
            names.extend(n for n in hw.enabled.get(kind, ())
                         if n not in names)
        return names

    def check_driver(self, driver: str, group: str = "") -> HardwareType:
        hw = self.types.get(driver)
        if hw is None:
            raise exception.NoValidHostForDriver(driver=driver, group=group)
        return hw

    def check_interface(self, hw: HardwareType, kind: str, name: str
                        ) -> None:
        if name in hw.enabled.get(kind, ()):
            return
        if name not in self._all_names(kind):
            raise exception.InterfaceNotFoundInEntrypoint(
                interface_type=kind, iface=name,
                valid=", ".join(self._all_names(kind)) or "none")
        raise exception.IncompatibleInterface(
            interface_type=kind, iface=name, hardware_type=hw.name,
            valid=", ".join(hw.enabled.get(kind, ())) or "none")

    def default_for(self, hw: HardwareType, kind: str,
                    node_info: str) -> str:
        default = hw.defaults.get(kind)
        if not default:
            raise exception.NoValidDefaultForInterface(
                interface_type=kind, node_info=node_info, driver=hw.name)
        return default

    def update_node_interfaces(self, values: dict, *, explicit: set[str],
                               reset: bool = False,
                               node_info: str = "a new node") -> dict:
        """Fill in and check every ``<type>_interface`` of a node.

        ``values`` is the node's final document (after a whole PATCH, so a
        driver and its interfaces can change together); ``explicit`` the
        fields the request set. Unset fields get the hardware type's
        default; with ``reset`` so do all that the request did not set.
        """
        hw = self.check_driver(values["driver"],
                               values.get("conductor_group") or "")
        for kind, field in interfaces.FIELDS.items():
            name = values.get(field)
            if name is None or (reset and field not in explicit):
                values[field] = self.default_for(hw, kind, node_info)
            else:
                self.check_interface(hw, kind, name)
        return values


def as_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """Back to rows (for tests comparing two catalogs)."""
    rows = []
    for hw in catalog.types.values():
        for kind, names in hw.enabled.items():
            for name in names:
                rows.append({"hardware_type": hw.name, "interface_type": kind,
                             "interface_name": name,
                             "default": hw.defaults.get(kind) == name})
    return rows
