"""The Bare Metal API error body, and the last line of defence.

Every error leaves the service as::

    {"error_message": "{\"faultcode\": ..., \"faultstring\": ...,
                        \"debuginfo\": null}"}

(the inner document is itself a JSON string), which is what openstacksdk
and python-ironicclient parse. ``ErrorMiddleware`` turns anything that
escaped the application into a 500 of that shape, so no client ever sees an
HTML page or a traceback.
"""

from __future__ import annotations

import json
import logging
from http import HTTPStatus

from ironic.common import exception
from ironic.common.outages import dependency_outage

LOG = logging.getLogger(__name__)


def error_body(status: int, message: str,
               debuginfo: str | None = None) -> bytes:
    faultcode = "Client" if 400 <= status < 500 else "Server"
    # In the order Ironic 39 writes them.
    inner = json.dumps({"faultcode": faultcode, "faultstring": message,
                        "debuginfo": debuginfo})
    return json.dumps({"error_message": inner}).encode()


def plain_error_body(status: int, message: str) -> bytes:
    """The body of a plain HTTP error (``code``, ``title``,
    ``description``), which Ironic 39 answers where its framework, not the
    API's error handling, refuses a request; clients read both."""
    inner = json.dumps({"code": status, "title": HTTPStatus(status).phrase,
                        "description": message})
    return json.dumps({"error_message": inner}).encode()


def status_line(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Error"


def error_app_response(start_response, status: int, message: str,
                       extra_headers: list | None = None) -> list[bytes]:
    body = error_body(status, message)
    headers = [("Content-Type", "application/json"),
               ("Content-Length", str(len(body)))]
    headers.extend(extra_headers or [])
    start_response(status_line(status), headers)
    return [body]


def log_outage(what: str, e: BaseException) -> None:
    """One line, no traceback: an outage is expected, not a bug."""
    LOG.warning("Answering 503: the %s is unavailable (%s: %s)", what,
                type(e).__name__, str(e).splitlines()[0][:300] if str(e)
                else "")


class ErrorMiddleware:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        started = []

        def _start(status, headers, exc_info=None):
            started.append(True)
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, _start)
        except RecursionError:
            # Input nested past every depth check: the client's fault.
            LOG.warning("Request nested too deeply: %s %s",
                        environ.get("REQUEST_METHOD"),
                        environ.get("PATH_INFO"))
            if started:
                raise
            return error_app_response(
                start_response, 400,
                "The request nests too deeply to be processed.")
        except Exception as e:  # noqa: BLE001 - the whole point
            outage = dependency_outage(e)
            if outage and not started:
                log_outage(outage, e)
                return error_app_response(
                    start_response, 503, _outage_message(outage))
            LOG.exception("Unhandled error serving %s %s",
                          environ.get("REQUEST_METHOD"),
                          environ.get("PATH_INFO"))
            if started:
                raise
            return error_app_response(
                start_response, 500,
                "An internal error occurred; the operator can find the "
                "details in the service log.")


def _outage_message(what: str) -> str:
    return exception.DependencyUnavailable(dependency=what).message
