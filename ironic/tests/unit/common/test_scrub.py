"""Secrets masked in text before it is logged, stored or shown."""

from __future__ import annotations

import logging

from ironic.common import scrub


def test_agent_token_in_a_command_url_is_masked():
    text = ("HTTPSConnectionPool(host='127.0.0.1', port=9999): Max retries "
            "exceeded with url: /v1/commands/?wait=true&agent_token=Ab-9_x "
            "(Caused by NewConnectionError)")
    masked = scrub.text(text)
    assert "Ab-9_x" not in masked
    assert "agent_token=***" in masked


def test_passwords_in_json_and_urls_are_masked():
    assert "pw1" not in scrub.text('{"redfish_password": "pw1"}')
    masked = scrub.text("cannot reach https://admin:pw2@10.0.0.1/redfish")
    assert "pw2" not in masked and "https://admin:***@10.0.0.1" in masked


def test_plain_text_is_untouched():
    assert scrub.text("node 42 failed: timeout") == "node 42 failed: timeout"


def test_the_log_filter_masks_messages_and_tracebacks(caplog):
    logger = logging.getLogger("ironic.tests.scrub")
    handler = logging.Handler()
    seen = []
    handler.emit = lambda record: seen.append(
        (record.getMessage(), record.exc_text))
    logger.addHandler(handler)
    scrub.install_log_filter(logger)
    try:
        try:
            raise RuntimeError("url ?agent_token=tok3n")
        except RuntimeError:
            logger.exception("failed: %s", "?agent_token=tok3n&x=1")
    finally:
        logger.removeHandler(handler)
    message, trace = seen[0]
    assert "tok3n" not in message and "tok3n" not in trace
    assert "RuntimeError" in trace
