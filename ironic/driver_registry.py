"""Loading hardware types and interfaces, and composing a node's driver.

Plugins come from entry points: ``ironic.hardware.types`` and
``ironic.hardware.interfaces.<type>``. ``load()`` builds a ``Registry``
from the configuration once (at service start): it instantiates every
enabled hardware type and interface (interfaces are singletons), computes
for each hardware type and interface type the enabled and supported
implementations in the hardware type's order of preference and the default,
and refuses to start when a plugin cannot be loaded or a default is
impossible. ``build_driver(node)`` then composes a ``BareDriver``.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from typing import Any

import stevedore
import stevedore.exception

from ironic import interfaces
from ironic.common import exception, interface_catalog
from ironic.conf import CONF
from ironic.drivers import base
from ironic.objects.conductor import Conductor
from ironic.task import Task

LOG = logging.getLogger(__name__)

TYPES_NAMESPACE = "ironic.hardware.types"
INTERFACE_NAMESPACE = "ironic.hardware.interfaces.%s"
INTERFACE_TYPES = base.INTERFACE_TYPES


@dataclasses.dataclass
class HardwareTypeInfo:
    """What a hardware type offers under the current configuration."""

    name: str
    obj: Any
    #: {interface type: enabled and supported names, preferred first}
    enabled: dict[str, list[str]]
    #: {interface type: default name or None when the configured default is
    #: not supported (then a node must name one explicitly)}
    defaults: dict[str, str | None]


def _load(namespace: str, names: list[str], what: str) -> dict[str, Any]:
    """Load the named entry points of ``namespace``; fail on any problem."""
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    if not names:
        return {}

    def missing(missing_names):
        raise exception.DriverLoadError(
            driver=", ".join(sorted(missing_names)),
            reason=f"no such {what} in the '{namespace}' entry points")

    def failed(_manager, entrypoint, err):
        raise exception.DriverLoadError(driver=entrypoint.name,
                                        reason=f"{type(err).__name__}: {err}")

    mgr = stevedore.NamedExtensionManager(
        namespace, names, invoke_on_load=True, name_order=True,
        on_missing_entrypoints_callback=missing,
        on_load_failure_callback=failed, propagate_map_exceptions=True)
    return {ext.name: ext for ext in mgr}


class Registry:
    """The loaded plugins and what they mean for nodes; immutable."""

    def __init__(self, conf: Any = CONF) -> None:
        self._conf = conf
        self.interfaces: dict[str, dict[str, base.BaseInterface]] = {}
        # {interface type: {class: [entry point names]}}
        self._names_of: dict[str, dict[type, list[str]]] = {}
        for kind in INTERFACE_TYPES:
            exts = _load(INTERFACE_NAMESPACE % kind,
                         getattr(conf, f"enabled_{kind}_interfaces"),
                         f"{kind} interface")
            self._check_kind(kind, exts)
            self.interfaces[kind] = {n: e.obj for n, e in exts.items()}
            names: dict[type, list[str]] = {}
            for name, ext in exts.items():
                names.setdefault(ext.plugin, []).append(name)
            self._names_of[kind] = names
        self._check_defaults_enabled()
        types = _load(TYPES_NAMESPACE, conf.enabled_hardware_types,
                      "hardware type")
        if not types:
            raise exception.DriverLoadError(
                driver="(none)",
                reason="enabled_hardware_types must name at least one "
                       "hardware type")
        self.hardware_types = {name: self._describe(name, ext.obj)
                               for name, ext in types.items()}

    @staticmethod
    def _check_kind(kind: str, exts: dict) -> None:
        for name, ext in exts.items():
            if not isinstance(ext.obj, base.BaseInterface) or \
                    ext.obj.interface_type != kind:
                raise exception.DriverLoadError(
                    driver=name, reason=f"the entry point does not give a "
                                        f"{kind} interface")

    def _check_defaults_enabled(self) -> None:
        for kind in INTERFACE_TYPES:
            default = getattr(self._conf, f"default_{kind}_interface")
            if default and default not in self.interfaces[kind]:
                raise exception.DriverLoadError(
                    driver=default,
                    reason=f"default_{kind}_interface is not in "
                           f"enabled_{kind}_interfaces "
                           f"({', '.join(self.interfaces[kind]) or 'empty'})")

    def _describe(self, name: str, hw: Any) -> HardwareTypeInfo:
        enabled: dict[str, list[str]] = {}
        defaults: dict[str, str | None] = {}
        for kind in INTERFACE_TYPES:
            names = self._supported_names(hw, kind)
            if not names:
                raise exception.DriverLoadError(
                    driver=name,
                    reason=f"none of its {kind} interfaces "
                           f"({self._class_names(hw, kind)}) is enabled; "
                           f"enabled_{kind}_interfaces is "
                           f"{list(self.interfaces[kind])}")
            enabled[kind] = names
            configured = getattr(self._conf, f"default_{kind}_interface")
            if configured:
                defaults[kind] = configured if configured in names else None
            else:
                # The hardware type's first choice among the enabled ones,
                # for every interface, the network too (``flat`` before
                # ``noop``), as Ironic 39 computes it whatever the DHCP
                # provider.
                defaults[kind] = names[0]
        return HardwareTypeInfo(name, hw, enabled, defaults)

    def _supported_names(self, hw: Any, kind: str) -> list[str]:
        names: list[str] = []
        for cls in hw.supported(kind):
            names.extend(self._names_of[kind].get(cls, []))
        if hw.accepts_any_enabled:
            names.extend(self.interfaces[kind])
        return list(dict.fromkeys(names))

    @staticmethod
    def _class_names(hw: Any, kind: str) -> str:
        return ", ".join(c.__name__ for c in hw.supported(kind)) or "none"

    # --- queries ---------------------------------------------------------------

    def hardware_type(self, name: str) -> HardwareTypeInfo:
        try:
            return self.hardware_types[name]
        except KeyError:
            raise exception.DriverNotFound(driver_name=name) from None

    def records(self) -> list[dict]:
        """Rows for ``conductor_hardware_interfaces``, one per name."""
        rows = []
        for hw in self.hardware_types.values():
            for kind in INTERFACE_TYPES:
                for name in hw.enabled[kind]:
                    rows.append({"hardware_type": hw.name,
                                 "interface_type": kind,
                                 "interface_name": name,
                                 "default": name == hw.defaults[kind]})
        return rows

    def catalog(self) -> Any:
        return interface_catalog.Catalog.from_records(self.records())

    def periodic_tasks(self) -> list:
        """[(bound method, PeriodicInfo)] of every interface used."""
        used = {id(obj): obj for kind in INTERFACE_TYPES
                for hw in self.hardware_types.values()
                for name, obj in self.interfaces[kind].items()
                if name in hw.enabled[kind]}
        tasks = []
        for obj in used.values():
            tasks.extend(obj.periodic_tasks())
        return tasks

    def build_driver(self, node: Any) -> base.BareDriver:
        """The composition of a node's interfaces.

        An interface the node names but this conductor does not offer for
        its hardware type is None; ``disabled`` says why, and node
        validation reports it while the other interfaces keep working.
        """
        hw = self.hardware_type(node.driver)
        chosen: dict[str, base.BaseInterface | None] = {}
        disabled: dict[str, str] = {}
        for kind in INTERFACE_TYPES:
            name = getattr(node, interfaces.FIELDS[kind], None) \
                or hw.defaults[kind]
            if name in hw.enabled[kind]:
                chosen[kind] = self.interfaces[kind][name]
            else:
                chosen[kind] = None
                disabled[kind] = (
                    f"The {kind} interface {name!r} is not enabled for "
                    f"hardware type {hw.name} on this conductor; enabled: "
                    f"{', '.join(hw.enabled[kind])}")
        return base.BareDriver(hw.obj, chosen, disabled)


_REGISTRY: Registry | None = None
_LOCK = threading.Lock()


def load() -> Registry:
    """Load (once) and check the plugins; DriverLoadError on a problem."""
    global _REGISTRY
    with _LOCK:
        if _REGISTRY is None:
            _REGISTRY = Registry(CONF)
            LOG.info("Loaded hardware types: %s",
                     ", ".join(_REGISTRY.hardware_types))
        return _REGISTRY


def reset() -> None:
    """Forget the loaded plugins (configuration changed; tests)."""
    global _REGISTRY
    with _LOCK:
        _REGISTRY = None


def build_driver(node: Any) -> base.BareDriver:
    return load().build_driver(node)


def build_driver_for_task(task: Task) -> None:
    """Give ``task`` the driver of its node (``task.driver``)."""
    task.driver = load().build_driver(task.node)


def validate_driver_interfaces(task: Task) -> dict[str, dict]:
    """{interface type: {"result": bool[, "reason": str]}} for a node;
    as in Ironic 39, an interface that passes has no ``reason``.

    Vendor is left out: it is validated per passthru call.
    """
    driver = task.driver
    report = {}
    for kind in INTERFACE_TYPES:
        if kind == "vendor":
            continue
        iface = getattr(driver, kind)
        if iface is None:
            report[kind] = {"result": False,
                            "reason": driver.disabled.get(kind)}
            continue
        try:
            iface.validate(task)
        except (exception.Invalid, exception.UnsupportedDriverExtension) \
                as e:
            report[kind] = {"result": False, "reason": str(e)}
        except Exception as e:  # noqa: BLE001 - reported, not raised
            LOG.exception("Unexpected failure validating the %s interface "
                          "of node %s", kind, task.node.uuid)
            report[kind] = {"result": False,
                            "reason": f"Unexpected error: {e}"}
        else:
            report[kind] = {"result": True}
    return report


# --- static descriptions, for the API ----------------------------------------
# The API describes interfaces (driver_info properties, passthru methods)
# without a Registry: it loads just the classes it is asked about.

_CLASSES: dict[tuple[str, str], type] = {}
_INSTANCES: dict[tuple[str, str], base.BaseInterface] = {}


def interface_class(kind: str, name: str) -> type[Any]:
    """The class behind entry point ``name`` of interface type ``kind``."""
    key = (kind, name)
    if key not in _CLASSES:
        try:
            mgr = stevedore.DriverManager(INTERFACE_NAMESPACE % kind, name,
                                          invoke_on_load=False)
        except (stevedore.exception.NoMatches, ImportError) as e:
            raise exception.InterfaceNotFoundInEntrypoint(
                interface_type=kind, iface=name, valid="(see /v1/drivers)"
            ) from e
        _CLASSES[key] = mgr.driver
    return _CLASSES[key]


def interface_instance(kind: str, name: str) -> base.BaseInterface:
    """A describing instance (interfaces keep no state; cheap to make)."""
    key = (kind, name)
    if key not in _INSTANCES:
        _INSTANCES[key] = interface_class(kind, name)()
    return _INSTANCES[key]


def properties_of(defaults: dict[str, str | None]) -> dict[str, str]:
    """driver_info keys of a driver made of the ``defaults`` interfaces."""
    props: dict[str, str] = {}
    for kind in INTERFACE_TYPES:
        name = defaults.get(kind)
        if name:
            props.update(interface_instance(kind, name).get_properties())
    return props


# --- registration -------------------------------------------------------------

def register_hardware(conductor_id: int, hostname: str,
                      registry: Registry | None = None) -> None:
    """Record what this conductor serves; warn about differing peers.

    Other conductors may serve the same hardware type with other
    interfaces during a rolling upgrade; that is worth a warning, not a
    refusal (seed 003).
    """
    registry = registry or load()
    mine = registry.records()
    Conductor.record_hardware_interfaces(conductor_id, mine)
    _warn_differences(mine, hostname, Conductor.live_hardware())


def _offers(rows: list[dict]) -> dict[tuple[str | None, str], dict]:
    """{(hostname, hardware type): {"names": {(interface type, name)},
    "defaults": {interface type: default name}}}."""
    out: dict[tuple[str | None, str], dict] = {}
    for r in rows:
        offer = out.setdefault((r.get("hostname"), r["hardware_type"]),
                               {"names": set(), "defaults": {}})
        offer["names"].add((r["interface_type"], r["interface_name"]))
        if r.get("default"):
            offer["defaults"][r["interface_type"]] = r["interface_name"]
    return out


def _default_changes(own: dict[str, str], peer: dict[str, str]
                     ) -> list[str]:
    return [f"{kind}: {own.get(kind)} here, {peer.get(kind)} there"
            for kind in sorted(set(own) | set(peer))
            if own.get(kind) != peer.get(kind)]


def _warn_differences(mine: list[dict], hostname: str,
                      live: list[dict]) -> None:
    """Warn about peers serving a hardware type of ours with other enabled
    interfaces or other defaults: nodes would get different interfaces
    depending on the conductor that creates or serves them."""
    own = {hw: offer for (_h, hw), offer in _offers(mine).items()}
    for (peer, hw), offer in _offers(live).items():
        if peer == hostname or hw not in own:
            continue
        names, defaults = own[hw]["names"], own[hw]["defaults"]
        if offer["names"] != names:
            LOG.warning(
                "Conductor %s serves hardware type %s with other "
                "interfaces than this one (%s): only here %s, only "
                "there %s. Conductors should enable the same "
                "interfaces.", peer, hw, hostname,
                sorted(names - offer["names"]),
                sorted(offer["names"] - names))
        changes = _default_changes(defaults, offer["defaults"])
        if changes:
            LOG.warning(
                "Conductor %s gives new %s nodes other default interfaces "
                "than this one (%s): %s. Conductors should have the same "
                "default_*_interface options.", peer, hw, hostname,
                "; ".join(changes))
