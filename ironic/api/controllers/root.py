"""``/``: the list of major API versions."""

from __future__ import annotations

from ironic.api import method
from ironic.api.controllers.v1 import index as v1_index
from ironic.api.controllers.v1 import versions
from ironic.api.method import api_method, expose


def v1_version_doc(url: str) -> dict:
    return {
        "id": "v1",
        "links": [{"href": f"{url}/v1/", "rel": "self"}],
        "status": "CURRENT",
        "min_version": versions.MIN_VERSION_STRING,
        "version": versions.MAX_VERSION_STRING,
    }


class RootController:
    """Serves the version list and routes /v1."""

    v1 = v1_index.V1Controller()

    @expose()
    @api_method()
    def index(self):
        url = method.public_url()
        doc = v1_version_doc(url)
        return {
            "name": "OpenStack Ironic API",
            "description": "Ironic is an OpenStack project which enables "
                           "the provision and management of baremetal "
                           "machines.",
            "default_version": doc,
            "versions": [doc],
        }
