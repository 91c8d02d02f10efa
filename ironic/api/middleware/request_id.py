"""Give every request an id and report it in the response headers.

The id (``req-<uuid>``) is stored in ``environ['openstack.request_id']``
for the request context and logs, and returned as ``openstack-request-id``
and, as API 1.107 documents, also as ``x-openstack-request-id``. Headers
are not versioned, so every response carries both.
"""

from __future__ import annotations

import os

ENV_KEY = "openstack.request_id"


def new_request_id() -> str:
    """``req-`` and a random (version 4) UUID, written out directly:
    building a uuid.UUID only to format it took twice as long."""
    raw = bytearray(os.urandom(16))
    raw[6] = raw[6] & 0x0F | 0x40  # version 4
    raw[8] = raw[8] & 0x3F | 0x80  # RFC 9562 variant
    h = raw.hex()
    return f"req-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class RequestIdMiddleware:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        req_id = new_request_id()
        environ[ENV_KEY] = req_id
        extra = [("openstack-request-id", req_id),
                 ("x-openstack-request-id", req_id)]

        def _start(status, headers, exc_info=None):
            return start_response(status, headers + extra, exc_info)

        return self.app(environ, _start)
