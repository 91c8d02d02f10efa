"""``/v1/nodes/{node}/vmedia`` (1.89): attach and detach virtual media;
from 1.93 GET lists the node's virtual drives and what they hold.

POST inserts an image into one virtual device of the node; DELETE ejects
the media of the given device types (``device_types``, a comma-separated
list in the query string or the JSON body, as clients send it), or of
every device. Both answer 204 once the conductor holding the node accepted
the request; the BMC work follows, a failure shows in ``last_error``.
"""

from __future__ import annotations

import pecan

from ironic.api import features, method, query, schemas
from ironic.api.controllers.v1 import node_sub
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import boot_devices, exception
from ironic.conductor import rpcapi
from ironic.objects.base import Field

DEVICE_TYPES = [boot_devices.CDROM, boot_devices.FLOPPY, boot_devices.DISK]
DOWNLOAD_SOURCES = ["http", "local", "swift"]

#: The body of an attach, declared once (checked here, shown in the
#: OpenAPI document).
ATTACH = schemas.Body({
    "device_type": Field(nullable=False, schema={"enum": [
        boot_devices.DISK, boot_devices.CDROM, boot_devices.FLOPPY]},
                         doc="The kind of virtual device."),
    "image_url": Field(nullable=False, min_length=1,
                       doc="The image to insert."),
    "image_download_source": Field(
        nullable=False, schema={"enum": DOWNLOAD_SOURCES},
        doc="Where the BMC gets the image from."),
}, required=("device_type", "image_url"))


def parse_device_types(value) -> list[str] | None:
    """A comma-separated string or a list of device types; None = all."""
    if value is None or value == "" or value == []:
        return None
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str)
                                              for i in items):
        raise exception.InvalidParameterValue(
            err="device_types must be a comma-separated list of device "
                "types.")
    items = [i.strip() for i in items if i.strip()]
    unknown = sorted(set(items) - set(DEVICE_TYPES))
    if unknown:
        raise exception.InvalidParameterValue(
            err=f"Unknown virtual media device types: {', '.join(unknown)}; "
                f"known: {', '.join(DEVICE_TYPES)}.")
    return items or None


def _body_device_types():
    raw = pecan.request.body
    if not raw or not raw.strip():
        return None
    doc = method.json_body(object)
    if not isinstance(doc, dict) or set(doc) - {"device_types"}:
        raise exception.InvalidParameterValue(
            err="The body may only hold device_types.")
    return doc.get("device_types")


class VmediaController(node_sub._NodeSub):
    @expose()
    @api_method(features.VMEDIA_GET)
    def get_all(self, **params):
        """The node's virtual drives, as its BMC reports them now: a JSON
        list of {"media_types", "inserted", "image"}."""
        query.refuse_unexpected(params, ())
        node = self._node("baremetal:node:vmedia:get")
        return rpcapi.get_api().get_virtual_media(method.context(), node)

    @expose()
    @api_method(features.VMEDIA, status=204)
    def post(self):
        body = method.json_body(what="vmedia")
        api_utils.validate(ATTACH, body, "vmedia")
        if body.get("image_download_source") == "swift":
            raise exception.InvalidParameterValue(
                err="image_download_source 'swift' needs object storage, "
                    "which this service does not use; use 'http'.")
        node = self._node("baremetal:node:vmedia:attach")
        rpcapi.get_api().attach_virtual_media(
            method.context(), node, body["device_type"], body["image_url"],
            body.get("image_download_source", "local"))

    @expose()
    @api_method(features.VMEDIA, status=204)
    def delete(self, **params):
        query.refuse_unexpected(params, ("device_types",))
        raw = params.get("device_types")
        if raw is None:
            raw = _body_device_types()
        device_types = parse_device_types(raw)
        node = self._node("baremetal:node:vmedia:detach")
        rpcapi.get_api().detach_virtual_media(method.context(), node,
                                              device_types)
