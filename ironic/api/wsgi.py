"""WSGI entry point for mod_wsgi, uwsgi or gunicorn.

Reads the configuration from the usual places (or ``IRONIC_CONFIG_FILE``)
the first time the module is imported.
"""

import os

from ironic.api import app as api_app
from ironic.common import service


def _build():
    config_files = os.environ.get("IRONIC_CONFIG_FILE")
    argv = ["--config-file", config_files] if config_files else []
    service.prepare_service("ironic-api", argv)
    app = api_app.setup_app()
    service.freeze_startup_objects()
    return app


application = _build()
