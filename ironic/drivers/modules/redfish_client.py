"""Reaching a Redfish BMC with sushy: validated driver_info, reused sessions.

One sushy client is kept per (BMC URL, credentials, TLS and auth settings)
so a conductor does not log in again for every call; the cache is bounded
by ``[redfish]connection_cache_size`` and drops the least recently used.
"""

from __future__ import annotations

import collections
import dataclasses
import threading
import time
from typing import Any, Callable
from urllib.parse import urlparse

import sushy
from oslo_utils import strutils

from ironic.common import exception
from ironic.conf import CONF
from ironic.task import Task

AUTH_TYPES = ("basic", "session", "auto")

#: The driver_info fields of every Redfish interface that reaches the BMC.
PROPERTIES = {
    "redfish_address": "URL of the BMC (https:// is assumed when no scheme "
                       "is given). Required.",
    "redfish_system_id": "Path of the ComputerSystem, e.g. "
                         "/redfish/v1/Systems/1. Optional when the BMC has "
                         "one system.",
    "redfish_username": "BMC user name. Optional.",
    "redfish_password": "BMC password. Optional.",
    "redfish_verify_ca": "true, false or the path of a CA bundle. Optional "
                         "(true).",
    "redfish_auth_type": "basic, session or auto. Optional "
                         "([redfish]auth_type).",
}


@dataclasses.dataclass(frozen=True)
class RedfishTarget:
    address: str
    system_id: str | None
    username: str | None
    password: str | None
    verify_ca: bool | str
    auth_type: str

    @property
    def cache_key(self) -> tuple:
        return (self.address, self.username, self.password, self.verify_ca,
                self.auth_type)


class RedfishConnectionError(exception.IronicException):
    _msg_fmt = "Unable to reach the Redfish BMC %(bmc)s: %(error)s"


def _address(info: dict) -> str | None:
    address = info.get("redfish_address")
    if address is None or address == "":
        return None
    if not isinstance(address, str):
        raise exception.InvalidParameterValue(
            err=f"driver_info/redfish_address must be an http(s) URL, got "
                f"{address!r}.")
    if "://" not in address:
        address = f"https://{address}"
    try:
        parsed = urlparse(address)
        port_ok = parsed.port is None or parsed.port > 0
    except ValueError:
        parsed, port_ok = None, False
    if parsed is None or parsed.scheme not in ("http", "https") or \
            not parsed.hostname or not port_ok:
        raise exception.InvalidParameterValue(
            err=f"driver_info/redfish_address {address!r} is not an http(s) "
                f"URL.")
    return address.rstrip("/")


def _verify(info: dict) -> bool | str:
    value = info.get("redfish_verify_ca", True)
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError:
            if value.startswith("/"):
                return value  # a CA bundle path
    raise exception.InvalidParameterValue(
        err=f"driver_info/redfish_verify_ca must be a boolean or the path "
            f"of a CA bundle, got {value!r}.")


def _text(info: dict, name: str) -> str | None:
    value = info.get(name)
    if value is not None and not isinstance(value, str):
        raise exception.InvalidParameterValue(
            err=f"driver_info/{name} must be a string.")
    return value


def _credential(info: dict, name: str) -> str | None:
    # A numeric password written as a JSON number is still a password.
    value = info.get(name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return _text(info, name)


def _values(info: dict) -> dict:
    """Every field present, checked; none required."""
    auth_type = info.get("redfish_auth_type") or CONF.redfish.auth_type
    if auth_type not in AUTH_TYPES:
        raise exception.InvalidParameterValue(
            err=f"driver_info/redfish_auth_type must be one of "
                f"{', '.join(AUTH_TYPES)}, got {auth_type!r}.")
    return {"address": _address(info),
            "system_id": _text(info, "redfish_system_id"),
            "username": _credential(info, "redfish_username"),
            "password": _credential(info, "redfish_password"),
            "verify_ca": _verify(info), "auth_type": auth_type}


def check_driver_info(info: dict) -> None:
    """Reject malformed values (naming the field) without talking to the
    BMC; required fields may still be missing, as on enrollment."""
    _values(info or {})


def parse_driver_info(info: dict) -> RedfishTarget:
    """Validate ``driver_info``; errors name the field that is wrong."""
    values = _values(info)
    if values["address"] is None:
        raise exception.MissingParameterValue(
            err="driver_info/redfish_address is required to manage the "
                "node over Redfish.")
    return RedfishTarget(**values)


class DriverInfoChecks:
    """The driver_info side of an interface that needs only the BMC's
    address and credentials (power, management)."""

    def get_properties(self) -> dict[str, str]:
        return dict(PROPERTIES)

    def check_driver_info(self, driver_info: dict) -> None:
        """Malformed values only (the API, on create and update)."""
        check_driver_info(driver_info)

    def validate(self, task: Task) -> None:
        parse_driver_info(task.node.driver_info or {})


def _make_auth(target: RedfishTarget):
    cls = {"basic": sushy.auth.BasicAuth,
           "session": sushy.auth.SessionAuth,
           "auto": sushy.auth.SessionOrBasicAuth}[target.auth_type]
    return cls(username=target.username, password=target.password)


class _Cache:
    def __init__(self):
        self._clients: collections.OrderedDict = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, target: RedfishTarget) -> sushy.Sushy:
        with self._lock:
            client = self._clients.get(target.cache_key)
            if client is not None:
                self._clients.move_to_end(target.cache_key)
                return client
        # sushy's own retry loop would multiply ours; attempts and the
        # interval between them are ours to bound ([redfish] options).
        client = sushy.Sushy(f"{target.address}/redfish/v1",
                             verify=target.verify_ca,
                             auth=_make_auth(target),
                             server_side_retries=1,
                             server_side_retries_delay=1,
                             connect_timeout=10)
        size = CONF.redfish.connection_cache_size
        with self._lock:
            if size:
                self._clients[target.cache_key] = client
                while len(self._clients) > size:
                    self._clients.popitem(last=False)
        return client

    def forget(self, target: RedfishTarget) -> None:
        with self._lock:
            self._clients.pop(target.cache_key, None)

    def __len__(self) -> int:
        return len(self._clients)


SESSIONS = _Cache()


def get_system(target: RedfishTarget):
    """The sushy System of the node, retrying unreachable BMCs."""
    attempts = CONF.redfish.connection_attempts
    last_error: Exception | None = None
    for attempt in range(attempts):
        try:
            client = SESSIONS.get(target)
            if target.system_id:
                return client.get_system(target.system_id)
            return client.get_system()
        except sushy.exceptions.AccessError as e:
            SESSIONS.forget(target)
            raise RedfishConnectionError(bmc=target.address,
                                         error=f"access denied: {e}") from e
        except sushy.exceptions.ResourceNotFoundError as e:
            raise exception.InvalidParameterValue(
                err=f"driver_info/redfish_system_id {target.system_id!r} "
                    f"was not found on {target.address}.") from e
        except (sushy.exceptions.ConnectionError,
                sushy.exceptions.ServerSideError) as e:
            SESSIONS.forget(target)
            last_error = e
            if attempt + 1 < attempts:
                time.sleep(CONF.redfish.connection_retry_interval)
    raise RedfishConnectionError(bmc=target.address, error=str(last_error))


def system_of(task: Task):
    """The sushy System of the task's node."""
    return get_system(parse_driver_info(task.node.driver_info or {}))


def call(what: str, func: Callable[..., Any], *args: Any,
         **kwargs: Any) -> Any:
    """``func(*args, **kwargs)``, a sushy error becoming ours, saying
    "Redfish <what> failed"."""
    try:
        return func(*args, **kwargs)
    except sushy.exceptions.SushyError as e:
        raise exception.IronicException(
            f"Redfish {what} failed: {e}") from e
