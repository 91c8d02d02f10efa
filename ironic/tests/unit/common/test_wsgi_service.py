"""The built-in API server: its thread count comes from the
configuration, and the all-in-one tells an operator that it does not fork
the API workers their ironic.conf asks for (ironic-api does: see
functional/test_api_workers.py)."""

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


def test_request_threads_come_from_the_configuration(config):
    config("api", server_threads=3)
    server = wsgi_service.make_server(lambda env, start: [], "127.0.0.1", 0)
    assert server.threads == 3
    assert wsgi_service.make_server(lambda env, start: [], "127.0.0.1", 0,
                                    threads=5).threads == 5
