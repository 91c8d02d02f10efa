"""WSGI entry point for mod_wsgi, uwsgi or gunicorn (also importable as
``ironic.wsgi:application``, Ironic's name for it).

Reads the configuration from the usual places (or ``IRONIC_CONFIG_FILE``)
the first time the module is imported.
"""

import logging
import os

from ironic import service
from ironic.api import app as api_app

LOG = logging.getLogger(__name__)


def _build():
    config_files = os.environ.get("IRONIC_CONFIG_FILE")
    argv = ["--config-file", config_files] if config_files else []
    service.prepare_service("ironic-api", argv)
    app = api_app.setup_app()
    service.freeze_startup_objects()
    LOG.info("WSGI application ready in process %d (configuration: %s)",
             os.getpid(), config_files or "the default locations")
    return app


application = _build()
