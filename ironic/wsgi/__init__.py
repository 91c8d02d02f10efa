"""``ironic.wsgi:application``: the API for a WSGI server (Apache
mod_wsgi, uWSGI, gunicorn), where Ironic's deployment tooling looks for it.

The application is built when this module is first imported, from the file
named by the ``IRONIC_CONFIG_FILE`` environment variable of the process or,
when it is unset, from the usual places (``/etc/ironic/ironic.conf``).
mod_wsgi's ``SetEnv`` does not reach the process environment: set the
variable in the WSGI script file before the import (see the install
guide's mod_wsgi page).
"""

from ironic.api.wsgi import application

__all__ = ["application"]
