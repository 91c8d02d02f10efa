"""Microversion negotiation.

Reads the requested version from ``OpenStack-API-Version: baremetal 1.N``
or ``X-OpenStack-Ironic-API-Version`` ("latest" allowed), answers 406 for
a malformed one or one out of range (on every path, as the reference
service does), stores the chosen minor number in
``environ['ironic.api_version']`` and adds the version headers to every
response: the minimum and maximum, and the chosen version on ``/`` and
``/v1``. Those are the headers the reference service sends and its clients
read; the ``OpenStack-API-*`` forms are accepted but not sent back.
"""

from __future__ import annotations

import functools
import re

from ironic.api.controllers.v1 import versions
from ironic.api.middleware import errors, paths

LEGACY_HEADER = "HTTP_X_OPENSTACK_IRONIC_API_VERSION"
STANDARD_HEADER = "HTTP_OPENSTACK_API_VERSION"
ENV_KEY = "ironic.api_version"
# Ironic 39 reads a version as two signed integers (``01.5`` is 1.5,
# ``1.-1`` a minor version out of range).
_VERSION_RE = re.compile(r"^([+-]?[0-9]+)\.([+-]?[0-9]+)$")
# Longer numbers are out of range without converting them (int() refuses
# more than 4,300 digits, and converting fewer still costs quadratic time).
_MAX_DIGITS = 6


class VersionNegotiationError(Exception):
    def __init__(self, status: int, message: str, with_range: bool = True):
        super().__init__(message)
        self.status = status
        self.message = message
        #: Whether the answer names the supported range in its headers
        #: (Ironic 39 leaves them out when the header is not a version).
        self.with_range = with_range


def requested_version(environ) -> str | None:
    """The version asked for; the standard header wins over the legacy one
    when a client sends both (as the reference service does)."""
    std = environ.get(STANDARD_HEADER)
    if std:
        for part in std.split(","):
            words = part.split()
            if len(words) == 2 and words[0].lower() == "baremetal":
                return words[1]
    value = (environ.get(LEGACY_HEADER) or "").strip()
    # An empty header asks for nothing, as if it were absent.
    return value or None


def _number(digits: str) -> int:
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return sign * (versions.MAX_VERSION + 1)
    return sign * int(digits)


def negotiate(value: str | None) -> int:
    if value is None:
        return versions.MIN_VERSION
    if value.lower() == "latest":
        return versions.MAX_VERSION
    match = _VERSION_RE.fullmatch(value)
    if not match:
        # Not a version at all is "not acceptable" too (406), like a
        # version out of range: clients treat both the same way.
        raise VersionNegotiationError(
            406, "Invalid value for X-OpenStack-Ironic-API-Version header",
            with_range=False)
    supported = (f"The supported version range is: "
                 f"[{versions.MIN_VERSION_STRING}, "
                 f"{versions.MAX_VERSION_STRING}].")
    if _number(match.group(1)) != 1:
        raise VersionNegotiationError(
            406, f"Mutually exclusive versions requested. Version {value} "
                 f"requested but not supported by this service. {supported}")
    minor = _number(match.group(2))
    if not versions.MIN_VERSION <= minor <= versions.MAX_VERSION:
        raise VersionNegotiationError(
            406, f"Version {value} was requested but the minor version is "
                 f"not supported by this service. {supported}")
    return minor


def _refusal_body(path: str, status: int, message: str) -> bytes:
    """Ironic 39 refuses a version on the root with its usual error body,
    and everywhere else with the body of a plain HTTP error (``code``,
    ``title``, ``description``), which clients read as well."""
    if path in ("", "/"):
        return errors.error_body(status, message)
    return errors.plain_error_body(status, message)


@functools.lru_cache(maxsize=None)
def _headers(minor: int | None) -> list[tuple[str, str]]:
    # The same few lists for every response (callers never change them).
    headers = [
        ("X-OpenStack-Ironic-API-Minimum-Version",
         versions.MIN_VERSION_STRING),
        ("X-OpenStack-Ironic-API-Maximum-Version",
         versions.MAX_VERSION_STRING),
    ]
    if minor is not None:
        headers.append(("X-OpenStack-Ironic-API-Version", f"1.{minor}"))
    return headers


class VersionMiddleware:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        try:
            minor = negotiate(requested_version(environ))
        except VersionNegotiationError as e:
            body = _refusal_body(environ.get("PATH_INFO", ""), e.status,
                                 e.message)
            headers = [("Content-Type", "application/json"),
                       ("Content-Length", str(len(body)))]
            if e.with_range:
                headers += _headers(None)
            start_response(errors.status_line(e.status), headers)
            return [body]
        environ[ENV_KEY] = minor
        path = environ.get("PATH_INFO", "")
        extra = _headers(minor if paths.names_version(path) else None)

        def _start(status, headers, exc_info=None):
            return start_response(status, headers + extra, exc_info)

        return self.app(environ, _start)
