"""Rule actions: what happens to the node, its ports and the plugin data
when a rule's conditions hold.

Paths name a field and keys below it, as ``"/properties/cpu_arch"`` or
``"properties.cpu_arch"``; plugin data paths use dots. Every change to the
node or a port is saved at once, so the next rule sees it.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

import os_traits
import requests
from urllib3.util import retry as urllib3_retry

from ironic.common import exception
from ironic.inspection_rules import interpolation, plugin
from ironic.inspection_rules.plugin import ArgumentError
from ironic.objects.port import Port

LOG = logging.getLogger(__name__)

#: Node fields only the service itself changes (state, locks, identity).
PROTECTED_NODE_FIELDS = frozenset({
    "uuid", "created_at", "updated_at", "provision_state",
    "target_provision_state", "provision_updated_at", "power_state",
    "target_power_state", "reservation", "conductor_affinity", "traits",
    "chassis_id", "allocation_id", "inspection_started_at",
    "inspection_finished_at", "clean_step", "deploy_step", "service_step",
})
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


class Failure(Exception):
    """An action that could not be carried out."""


class Action(plugin.Plugin):
    # Each action takes the scope and its own named arguments.
    def __call__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError


def _string(args: dict, name: str) -> None:
    if not isinstance(args[name], str) or not args[name]:
        raise ArgumentError(f"'{name}' must be a non-empty string")


def _parts(path: Any) -> list[str]:
    if not isinstance(path, str) or not path.strip("/."):
        raise Failure(f"invalid path {path!r}")
    return interpolation.split_path(path)


# -- generic changes of an object's (nested) field ---------------------------

def _set(obj: Any, parts: list[str], value: Any) -> None:
    if len(parts) == 1:
        setattr(obj, parts[0], value)
        return
    root = copy.deepcopy(getattr(obj, parts[0]) or {})
    target = root
    for key in parts[1:-1]:
        target = target.setdefault(key, {})
    target[parts[-1]] = value
    setattr(obj, parts[0], root)


def _extend(obj: Any, parts: list[str], value: Any, unique: bool) -> None:
    if len(parts) == 1:
        current = list(getattr(obj, parts[0]) or [])
        root = None
    else:
        root = copy.deepcopy(getattr(obj, parts[0]) or {})
        target = root
        for key in parts[1:-1]:
            target = target.setdefault(key, {})
        current = target.setdefault(parts[-1], [])
    if not isinstance(current, list):
        raise Failure(f"{'/'.join(parts)} is not a list")
    if not unique or value not in current:
        current.append(value)
    setattr(obj, parts[0], current if root is None else root)


def _delete(obj: Any, parts: list[str], default: Any) -> None:
    if len(parts) == 1:
        setattr(obj, parts[0], copy.deepcopy(default))
        return
    root = copy.deepcopy(getattr(obj, parts[0]) or {})
    target = root
    for key in parts[1:-1]:
        target = target[key]
    del target[parts[-1]]
    setattr(obj, parts[0], root)


def _apply(what: str, change: Any, obj: Any, parts: list[str],
           *args: Any) -> None:
    try:
        change(obj, parts, *args)
    except Failure:
        raise
    except (AttributeError, KeyError, TypeError, IndexError) as e:
        raise Failure(f"cannot change {'/'.join(parts)} of {what}: "
                      f"{type(e).__name__}: {e}") from e
    obj.save()


# -- the node ----------------------------------------------------------------

def _node_path(scope: plugin.Scope, path: Any) -> tuple[Any, list[str]]:
    parts = _parts(path)
    node = scope.task.node
    if parts[0] not in type(node).fields:
        raise Failure(f"the node has no field {parts[0]!r}")
    if parts[0] in PROTECTED_NODE_FIELDS:
        raise Failure(f"the node field {parts[0]!r} is managed by the "
                      f"service and cannot be changed by a rule")
    return node, parts


def _check_kind(obj: Any, parts: list[str], value: Any) -> None:
    """A whole document field (properties, extra, ...) stays a document."""
    default = type(obj).fields[parts[0]].default
    if len(parts) == 1 and isinstance(default, (dict, list)) and \
            not isinstance(value, type(default)):
        raise Failure(f"{parts[0]} must be a {type(default).__name__}, "
                      f"not {type(value).__name__}")


class SetAttribute(Action):
    required = ("path", "value")
    formatted = ("value",)

    def __call__(self, scope: plugin.Scope, path: Any, value: Any) -> None:
        node, parts = _node_path(scope, path)
        _check_kind(node, parts, value)
        _apply("the node", _set, node, parts, value)


class ExtendAttribute(Action):
    required = ("path", "value")
    optional = {"unique": False}
    formatted = ("value",)

    def __call__(self, scope: plugin.Scope, path: Any, value: Any,
                 unique: bool = False) -> None:
        node, parts = _node_path(scope, path)
        _apply("the node", _extend, node, parts, value, unique)


class DelAttribute(Action):
    required = ("path",)

    def __call__(self, scope: plugin.Scope, path: Any) -> None:
        node, parts = _node_path(scope, path)
        default = type(node).fields[parts[0]].default
        _apply("the node", _delete, node, parts, default)


def _capabilities(node: Any) -> dict[str, str]:
    raw = (node.properties or {}).get("capabilities") or ""
    if isinstance(raw, dict):
        return {str(k): str(v) for k, v in raw.items()}
    caps = {}
    for pair in str(raw).split(","):
        key, sep, value = pair.partition(":")
        if sep and key.strip():
            caps[key.strip()] = value.strip()
    return caps


def _save_capabilities(node: Any, caps: dict[str, str]) -> None:
    props = dict(node.properties or {})
    if caps:
        props["capabilities"] = ",".join(f"{k}:{v}" for k, v in caps.items())
    else:
        props.pop("capabilities", None)
    node.properties = props
    node.save()


class SetCapability(Action):
    required = ("name", "value")
    formatted = ("value",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not in_loop:
            _string(args, "name")

    def __call__(self, scope: plugin.Scope, name: Any, value: Any) -> None:
        node = scope.task.node
        caps = _capabilities(node)
        caps[str(name)] = str(value)
        _save_capabilities(node, caps)


class UnsetCapability(Action):
    required = ("name",)

    def __call__(self, scope: plugin.Scope, name: Any) -> None:
        node = scope.task.node
        caps = _capabilities(node)
        if caps.pop(str(name), None) is not None:
            _save_capabilities(node, caps)


def _check_trait(name: Any) -> None:
    if not isinstance(name, str) or not 0 < len(name) <= 255 or not (
            os_traits.is_custom(name) or
            os_traits.check_traits([name])[0] == {name}):
        raise ArgumentError(f"invalid trait {name!r}: a trait is a standard "
                            f"trait or CUSTOM_ and upper case letters, "
                            f"digits and underscores")


class AddTrait(Action):
    required = ("name",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        if not in_loop:
            _check_trait(args["name"])

    def __call__(self, scope: plugin.Scope, name: Any) -> None:
        try:
            _check_trait(name)
        except ArgumentError as e:
            raise Failure(str(e)) from e
        scope.task.node.add_trait(name)


class RemoveTrait(Action):
    required = ("name",)

    def __call__(self, scope: plugin.Scope, name: Any) -> None:
        try:
            scope.task.node.remove_trait(str(name))
        except exception.NodeTraitNotFound:
            LOG.info("Node %s has no trait %s to remove",
                     scope.task.node.uuid, name)


# -- plugin data -------------------------------------------------------------

def _data_keys(path: Any) -> list[str]:
    if isinstance(path, list) and path:
        return [str(p) for p in path]
    if not isinstance(path, str) or not path.strip("."):
        raise Failure(f"invalid plugin data path {path!r}")
    return path.split(".")


def _data_parent(data: Any, keys: list[str], create: bool) -> Any:
    """The object holding ``keys[-1]``; None when absent (not creating)."""
    for key in keys[:-1]:
        if not isinstance(data, dict):
            break
        data = data.setdefault(key, {}) if create else data.get(key)
    if isinstance(data, dict):
        return data
    if create:
        raise Failure(f"plugin data at {'.'.join(keys)} is not inside an "
                      f"object")
    return None


class SetPluginData(Action):
    required = ("path", "value")
    formatted = ("value",)
    ignored = ("plugin_data",)

    def __call__(self, scope: plugin.Scope, path: Any, value: Any) -> None:
        keys = _data_keys(path)
        _data_parent(scope.plugin_data, keys, True)[keys[-1]] = value


class ExtendPluginData(Action):
    required = ("path", "value")
    optional = {"unique": False}
    formatted = ("value",)
    ignored = ("plugin_data",)

    def __call__(self, scope: plugin.Scope, path: Any, value: Any,
                 unique: bool = False) -> None:
        keys = _data_keys(path)
        parent = _data_parent(scope.plugin_data, keys, True)
        current = parent.setdefault(keys[-1], [])
        if not isinstance(current, list):
            raise Failure(f"plugin data at {'.'.join(keys)} is not a list")
        if not unique or value not in current:
            current.append(value)


class UnsetPluginData(Action):
    required = ("path",)
    ignored = ("plugin_data",)

    def __call__(self, scope: plugin.Scope, path: Any) -> None:
        keys = _data_keys(path)
        parent = _data_parent(scope.plugin_data, keys, False)
        if parent is None or keys[-1] not in parent:
            LOG.info("Node %s: no plugin data at %s to unset",
                     scope.task.node.uuid, ".".join(keys))
            return
        del parent[keys[-1]]


# -- ports -------------------------------------------------------------------

def _port(scope: plugin.Scope, port_id: Any, path: Any
          ) -> tuple[Any, list[str]]:
    try:
        port = Port.get(str(port_id))
    except exception.NotFound:
        port = None
    if port is None or port.node_id != scope.task.node.id:
        raise Failure(f"node {scope.task.node.uuid} has no port {port_id}")
    parts = _parts(path)
    if parts[0] not in Port.fields or parts[0] in (
            "uuid", "node_id", "created_at", "updated_at"):
        raise Failure(f"ports have no changeable field {parts[0]!r}")
    return port, parts


class SetPortAttribute(Action):
    required = ("port_id", "path", "value")
    formatted = ("value",)

    def __call__(self, scope: plugin.Scope, port_id: Any, path: Any,
                 value: Any) -> None:
        port, parts = _port(scope, port_id, path)
        _check_kind(port, parts, value)
        _apply(f"port {port.uuid}", _set, port, parts, value)


class ExtendPortAttribute(Action):
    required = ("port_id", "path", "value")
    optional = {"unique": False}
    formatted = ("value",)

    def __call__(self, scope: plugin.Scope, port_id: Any, path: Any,
                 value: Any, unique: bool = False) -> None:
        port, parts = _port(scope, port_id, path)
        _apply(f"port {port.uuid}", _extend, port, parts, value, unique)


class DelPortAttribute(Action):
    required = ("port_id", "path")

    def __call__(self, scope: plugin.Scope, port_id: Any,
                 path: Any) -> None:
        port, parts = _port(scope, port_id, path)
        default = Port.fields[parts[0]].default
        _apply(f"port {port.uuid}", _delete, port, parts, default)


# -- other -------------------------------------------------------------------

class Fail(Action):
    required = ("msg",)

    def __call__(self, scope: plugin.Scope, msg: Any) -> None:
        raise exception.HardwareInspectionFailure(error=str(msg))


class Log(Action):
    required = ("msg",)
    optional = {"level": "info"}
    formatted = ("msg",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        level = args["level"]
        if not (in_loop and isinstance(level, str)) and \
                str(level).lower() not in LOG_LEVELS:
            raise ArgumentError(f"invalid log level {level!r}; choose from "
                                f"{', '.join(LOG_LEVELS)}")

    def __call__(self, scope: plugin.Scope, msg: Any,
                 level: Any = "info") -> None:
        level = str(level).lower()
        if level not in LOG_LEVELS:
            raise Failure(f"invalid log level {level!r}")
        getattr(LOG, level)("Node %s: %s", scope.task.node.uuid, msg)


class ApiCall(Action):
    """GET a URL (a web hook); an error status fails the rule."""

    required = ("url",)
    optional = {"headers": None, "proxies": None, "timeout": 5,
                "retries": 3, "backoff_factor": 0.3}
    formatted = ("url",)

    def check_literals(self, args: dict, in_loop: bool) -> None:
        try:
            self._numbers(args)
        except Failure as e:
            if not in_loop:
                raise ArgumentError(str(e)) from e
        for name in ("headers", "proxies"):
            if args[name] is not None and not isinstance(args[name], dict):
                raise ArgumentError(f"'{name}' must be an object")

    @staticmethod
    def _numbers(args: dict) -> tuple[float, int, float]:
        try:
            timeout = float(args["timeout"])
            retries = int(args["retries"])
            backoff = float(args["backoff_factor"])
        except (TypeError, ValueError) as e:
            raise Failure(f"invalid api-call parameter: {e}") from e
        if timeout <= 0 or retries < 0 or backoff < 0:
            raise Failure("api-call needs a positive timeout and "
                          "non-negative retries and backoff_factor")
        return timeout, retries, backoff

    def __call__(self, scope: plugin.Scope, url: Any, **args: Any) -> None:
        timeout, retries, backoff = self._numbers(args)
        policy = urllib3_retry.Retry(
            total=retries, backoff_factor=backoff, allowed_methods=["GET"],
            status_forcelist=[429, 500, 502, 503, 504],
            raise_on_status=False)
        with requests.Session() as session:
            adapter = requests.adapters.HTTPAdapter(max_retries=policy)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            try:
                resp = session.get(str(url), timeout=timeout,
                                   headers=args["headers"] or None,
                                   proxies=args["proxies"] or None)
                resp.raise_for_status()
            except requests.RequestException as e:
                raise Failure(f"request to {url} failed: {e}") from e


ACTIONS: dict[str, type[Action]] = {
    "fail": Fail, "log": Log, "set-attribute": SetAttribute,
    "extend-attribute": ExtendAttribute, "del-attribute": DelAttribute,
    "set-capability": SetCapability, "unset-capability": UnsetCapability,
    "add-trait": AddTrait, "remove-trait": RemoveTrait,
    "set-plugin-data": SetPluginData,
    "extend-plugin-data": ExtendPluginData,
    "unset-plugin-data": UnsetPluginData,
    "set-port-attribute": SetPortAttribute,
    "extend-port-attribute": ExtendPortAttribute,
    "del-port-attribute": DelPortAttribute,
    "api-call": ApiCall,
}


def get(op: str) -> Action:
    if op not in ACTIONS:
        raise ArgumentError(f"unsupported action {op!r}")
    return ACTIONS[op]()


def run(action: dict, scope: plugin.Scope) -> None:
    """Carry out ``action`` (once per loop item when it loops)."""
    act = get(action["op"])
    items = plugin.loop_items(action)
    for item in ([()] if items is None else ((i,) for i in items)):
        args = act.bind(action, scope, *item)
        try:
            act(scope, **args)
        except ArgumentError as e:
            raise Failure(str(e)) from e
