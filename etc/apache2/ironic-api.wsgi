# The WSGI script file of etc/apache2/ironic.conf.
#
# mod_wsgi's SetEnv only reaches each request's WSGI environ, not the
# process environment the application reads its configuration file from
# when it is built: name the file here.
import os

os.environ.setdefault("IRONIC_CONFIG_FILE", "/etc/ironic/ironic.conf")

from ironic.wsgi import application  # noqa: E402,F401
