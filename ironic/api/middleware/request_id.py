"""Give every request an id and report it in the response headers.

The id (``req-<uuid>``) is stored in ``environ['openstack.request_id']``
for the request context and logs, and returned as ``openstack-request-id``
and, as API 1.107 documents, also as ``x-openstack-request-id``. Headers
are not versioned, so every response carries both.
"""

from __future__ import annotations

import uuid

ENV_KEY = "openstack.request_id"


class RequestIdMiddleware:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        req_id = f"req-{uuid.uuid4()}"
        environ[ENV_KEY] = req_id
        extra = [("openstack-request-id", req_id),
                 ("x-openstack-request-id", req_id)]

        def _start(status, headers, exc_info=None):
            return start_response(status, headers + extra, exc_info)

        return self.app(environ, _start)
