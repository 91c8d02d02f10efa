"""Small validators and helpers used across layers."""

import ipaddress
import re
import uuid
from typing import Any

import jsonschema

from ironic.conf import CONF

# Whole strings only (fullmatch): "$" would also accept a trailing newline.
_UUID_RE = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
    r"[0-9a-fA-F]{12}")
_CANONICAL_UUID_RE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
# RFC 3986 unreserved characters (API 1.10 and later).
_NAME_RE = re.compile(r"[A-Za-z0-9\-._~]+")
_MAC_RE = re.compile(r"([0-9a-f]{2}[:-]){5}[0-9a-f]{2}", re.IGNORECASE)
_INFINIBAND_MAC_RE = re.compile(r"([0-9a-f]{2}:){19}[0-9a-f]{2}",
                                re.IGNORECASE)


def is_uuid_like(value) -> bool:
    return isinstance(value, str) and bool(_UUID_RE.fullmatch(value))


def normalize_uuid(value: str) -> str:
    if _CANONICAL_UUID_RE.fullmatch(value):
        # Already in the canonical form: no need to parse it.
        return value
    return str(uuid.UUID(value))


def is_valid_logical_name(value) -> bool:
    return (isinstance(value, str) and 0 < len(value) <= 255
            and bool(_NAME_RE.fullmatch(value)) and not is_uuid_like(value))


def is_valid_mac(value) -> bool:
    return isinstance(value, str) and bool(
        _MAC_RE.fullmatch(value) or _INFINIBAND_MAC_RE.fullmatch(value))


def normalize_mac(value: str) -> str:
    return value.lower().replace("-", ":")


def parse_ip(value: str
             ) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address of an interface as the agent reports it, which may
    carry a prefix length ("/24") or an IPv6 zone ("%eth0"); None when
    ``value`` is no address."""
    try:
        return ipaddress.ip_address(value.split("/")[0].split("%")[0])
    except ValueError:
        return None


def ramdisk_api_url() -> str:
    """The Bare Metal API as a ramdisk booted on a node reaches it.

    ``[service_catalog]endpoint_override`` when set, else
    ``[api]public_endpoint``; otherwise the address the API listens on,
    with ``[DEFAULT]my_ip`` standing in for a wildcard address, which a
    node cannot call.
    """
    if CONF.service_catalog.endpoint_override:
        return CONF.service_catalog.endpoint_override.rstrip("/")
    if CONF.api.public_endpoint:
        return CONF.api.public_endpoint.rstrip("/")
    host = CONF.api.host_ip
    if host in ("", "0.0.0.0", "::"):
        host = CONF.my_ip
    if ":" in host:
        host = f"[{host}]"
    scheme = "https" if CONF.api.enable_ssl_api else "http"
    return f"{scheme}://{host}:{CONF.api.port}"


def schema_refusal(error: Any) -> str:
    """A jsonschema error in the reference's words: its message and, when
    that only says no alternative fitted, the refusal deepest under it
    that jsonschema ranks first ("Possible root cause: ...")."""
    reason = error.message
    cause = None
    while error.context:
        error = jsonschema.exceptions.best_match(error.context)
        cause = error.message
    if cause is not None:
        reason = f"{reason}. Possible root cause: {cause}"
    return reason
