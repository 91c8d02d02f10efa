"""Errors that mean a dependency is away, not that something is wrong.

The database and the message bus go away now and then (a restart, a
fail-over, a network cut). What they raise then is an outage: the API
answers 503 and the client retries; a conductor waits for them with bounded
retries (``ironic.conductor.dependencies``) and keeps a node's state rather
than record a failure the node does not have.
"""

from __future__ import annotations

import sys

DATABASE = "database"
MESSAGE_BUS = "message bus"


def dependency_outage(e: BaseException) -> str | None:
    """"database" or "message bus" when ``e`` says that one does not answer
    (the API then answers 503 with the error body, not 500); None for any
    other error.

    Only modules already imported are looked at: the API without the
    ``oslo`` transport never loads oslo.messaging.
    """
    from oslo_db import exception as db_exc
    from sqlalchemy import exc as sa_exc

    if isinstance(e, (db_exc.DBConnectionError, sa_exc.TimeoutError)):
        # Also a full connection pool: the database is not keeping up.
        return DATABASE
    inner = getattr(e, "inner_exception", None)
    for err in (e, inner):
        if isinstance(err, sa_exc.OperationalError) or (
                isinstance(err, sa_exc.DBAPIError)
                and err.connection_invalidated):
            return DATABASE
    for driver in ("pymysql", "psycopg", "psycopg2", "sqlite3"):
        # Raw DB-API errors (a connection opened outside SQLAlchemy's
        # error handling).
        module = sys.modules.get(driver)
        if module is not None and isinstance(
                e, getattr(module, "OperationalError", ())):
            return DATABASE
    messaging = sys.modules.get("oslo_messaging")
    if messaging is not None and isinstance(e, messaging.MessagingException) \
            and not isinstance(e, messaging.RemoteError):
        # Delivery failures, timeouts; a conductor's own error (RemoteError)
        # is not an outage.
        return MESSAGE_BUS
    kombu = sys.modules.get("kombu.exceptions")
    if kombu is not None and isinstance(e, kombu.KombuError):
        return MESSAGE_BUS
    return None


def current() -> str | None:
    """``dependency_outage`` of the exception being handled, if any."""
    error = sys.exc_info()[1]
    return dependency_outage(error) if error is not None else None


def current_error() -> BaseException:
    """The exception being handled (``current()`` said it is an outage)."""
    error = sys.exc_info()[1]
    if error is None:
        raise RuntimeError("current_error() called with no exception "
                           "being handled")
    return error
