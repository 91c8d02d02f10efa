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
from urllib.parse import urlparse

import sushy
from oslo_utils import strutils

from ironic.common import exception
from ironic.conf import CONF

AUTH_TYPES = ("basic", "session", "auto")


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


def _address(info: dict) -> str:
    address = info.get("redfish_address")
    if not address or not isinstance(address, str):
        raise exception.MissingParameterValue(
            err="driver_info/redfish_address is required to manage the "
                "node over Redfish.")
    if "://" not in address:
        address = f"https://{address}"
    parsed = urlparse(address)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
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


def parse_driver_info(info: dict) -> RedfishTarget:
    """Validate ``driver_info``; errors name the field that is wrong."""
    system_id = info.get("redfish_system_id")
    if system_id is not None and not isinstance(system_id, str):
        raise exception.InvalidParameterValue(
            err="driver_info/redfish_system_id must be a string.")
    auth_type = info.get("redfish_auth_type", CONF.redfish.auth_type)
    if auth_type not in AUTH_TYPES:
        raise exception.InvalidParameterValue(
            err=f"driver_info/redfish_auth_type must be one of "
                f"{', '.join(AUTH_TYPES)}, got {auth_type!r}.")
    return RedfishTarget(address=_address(info), system_id=system_id,
                         username=info.get("redfish_username"),
                         password=info.get("redfish_password"),
                         verify_ca=_verify(info), auth_type=auth_type)


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
