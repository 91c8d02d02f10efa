"""Secrets out of text that is logged, stored or shown.

An exception's text can carry what the failed call was given: the agent
token in ``.../v1/commands/?wait=true&agent_token=<token>``, a BMC
password in a URL or a JSON document. ``text()`` masks them (oslo.utils'
``mask_password`` patterns, plus the user-info part of URLs) before the
text is formatted into a log line, ``last_error`` or a history entry;
``LogFilter`` is the net under every log line of the process.
"""

from __future__ import annotations

import logging
import re

from oslo_utils import strutils

MASK = "***"
# scheme://user:password@host - the password part.
_URL_PASSWORD = re.compile(r"(?P<head>[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]*:)"
                           r"[^/\s@]+(?=@)")


def text(value: object) -> str:
    """``str(value)`` with every secret it may hold masked."""
    result = strutils.mask_password(str(value), MASK)
    if "://" in result:
        result = _URL_PASSWORD.sub(rf"\g<head>{MASK}", result)
    return result


class LogFilter(logging.Filter):
    """Masks secrets in a record's message and traceback, on a handler."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            return True
        masked = text(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = text(
                logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = text(record.exc_text)
        return True


def install_log_filter(logger: logging.Logger | None = None) -> None:
    """Put ``LogFilter`` on every handler of ``logger`` (default: root)."""
    for handler in (logger or logging.getLogger()).handlers:
        if not any(isinstance(f, LogFilter) for f in handler.filters):
            handler.addFilter(LogFilter())
