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
from ironic.api.middleware import paths
from ironic.api.middleware.errors import error_app_response

LEGACY_HEADER = "HTTP_X_OPENSTACK_IRONIC_API_VERSION"
STANDARD_HEADER = "HTTP_OPENSTACK_API_VERSION"
ENV_KEY = "ironic.api_version"
_VERSION_RE = re.compile(r"^1\.(0|[1-9][0-9]*)$")


class VersionNegotiationError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


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
            406, f"Invalid value for X-OpenStack-Ironic-API-Version header: "
                 f"{value}. It must be of the form 1.N or 'latest'.")
    digits = match.group(1)
    # No supported minor number has more than a few digits; longer ones are
    # out of range without converting them (int() refuses more than 4,300
    # digits, and converting fewer still costs quadratic time).
    minor = int(digits) if len(digits) <= 6 else versions.MAX_VERSION + 1
    if not versions.MIN_VERSION <= minor <= versions.MAX_VERSION:
        raise VersionNegotiationError(
            406, f"Version {value} was requested but the minor version is "
                 f"not supported by this service. The supported version "
                 f"range is: [{versions.MIN_VERSION_STRING}, "
                 f"{versions.MAX_VERSION_STRING}].")
    return minor


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
            return error_app_response(start_response, e.status,
                                      e.message, _headers(None))
        environ[ENV_KEY] = minor
        path = environ.get("PATH_INFO", "")
        extra = _headers(minor if paths.names_version(path) else None)

        def _start(status, headers, exc_info=None):
            return start_response(status, headers + extra, exc_info)

        return self.app(environ, _start)
