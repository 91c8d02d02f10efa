"""The HTTPS API's certificate files and the context built from them.

Kept apart from ``server`` because a spawned API worker unpickles the
context factory before it can answer its supervisor's health checks:
this module must stay cheap to import.
"""

from __future__ import annotations

import os
import ssl

from ironic.conf import CONF


def tls_files() -> tuple[str | None, str | None]:
    return (CONF.api.cert_file or CONF.ssl.cert_file,
            CONF.api.key_file or CONF.ssl.key_file)


def check_tls_files() -> None:
    """RuntimeError naming what is missing, before anything listens."""
    cert, key = tls_files()
    if not cert or not key:
        raise RuntimeError("[api]enable_ssl_api needs a certificate and a "
                           "key: set [api]cert_file and [api]key_file (or "
                           "[ssl]cert_file and [ssl]key_file)")
    for path in (cert, key, CONF.ssl.ca_file):
        if path and not os.access(path, os.R_OK):
            raise RuntimeError(f"cannot read the TLS file {path}")


class TLSContextFactory:
    """Builds the HTTPS API's context from the options read now: spawned
    workers unpickle it, and build their context before they read any
    configuration themselves."""

    def __init__(self):
        self.cert, self.key = tls_files()
        self.ca = CONF.ssl.ca_file
        self.tls13 = CONF.api.server_tls_minimum_version == "1.3"
        self.ciphers = CONF.api.server_tls_ciphers

    def __call__(self, _config, _default) -> ssl.SSLContext:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = (ssl.TLSVersion.TLSv1_3 if self.tls13
                               else ssl.TLSVersion.TLSv1_2)
        assert self.cert is not None  # check_tls_files() ran first
        ctx.load_cert_chain(self.cert, self.key)
        if self.ciphers:
            ctx.set_ciphers(self.ciphers)
        if self.ca:
            ctx.verify_mode = ssl.CERT_REQUIRED
            ctx.load_verify_locations(self.ca)
        return ctx
