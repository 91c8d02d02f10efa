"""The built-in API server tells an operator that it does not fork the
API workers their ironic.conf asks for."""

from __future__ import annotations

import logging

from ironic.common import wsgi_service


def test_several_api_workers_are_reported_as_unsupported(config, caplog):
    config("api", api_workers=4)
    with caplog.at_level(logging.WARNING, logger="ironic.common"):
        assert wsgi_service.warn_unsupported_workers()
    assert "api_workers = 4 is not supported" in caplog.text


def test_one_or_unset_api_workers_is_silent(config, caplog):
    for workers in (None, 1):
        config("api", api_workers=workers)
        with caplog.at_level(logging.WARNING, logger="ironic.common"):
            assert not wsgi_service.warn_unsupported_workers()
    assert "api_workers" not in caplog.text
