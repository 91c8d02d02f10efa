"""/v1/events (1.54): external events, such as Neutron port changes.

The events are validated and logged; like the reference service, nothing
else acts on them yet, so a valid post answers 204.
"""

from __future__ import annotations

import logging

from pecan import rest

from ironic.api import features, method
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import policy
from ironic.objects.base import ARRAY, UUID, Body, Field

LOG = logging.getLogger(__name__)

_UUID = {"format": "uuid",
         "pattern": "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                    "[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"}


def _uuid(doc: str) -> Field:
    return Field(type=UUID, nullable=False, schema=_UUID, doc=doc)


_NETWORK_EVENT = Body({
    "event": Field(nullable=False, schema={"enum": [
        "network.bind_port", "network.unbind_port", "network.delete_port"]},
        doc="What happened to the port."),
    "port_id": _uuid("The Neutron port."),
    "mac_address": Field(nullable=False, schema={
        "pattern": "^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$"},
        doc="The port's MAC address."),
    "status": Field(nullable=False, doc="The port's status."),
    "device_id": _uuid("The device the port is bound to."),
    "binding:host_id": _uuid("The host it is bound on."),
    "binding:vnic_type": Field(nullable=False, doc="baremetal..."),
}, required=("event", "port_id", "mac_address", "status"))
#: The body of a POST, declared once (checked here, shown in the OpenAPI
#: document).
EVENTS = Body({"events": Field(type=ARRAY, nullable=False, schema={
    "minItems": 1, "items": _NETWORK_EVENT.schema},
    doc="The events.")}, required=("events",))


class EventsController(rest.RestController):
    @expose()
    @api_method(features.EVENTS, status=204)
    def post(self):
        policy.authorize("baremetal:events:post", method.context())
        body = method.json_body(what=None)
        api_utils.validate(EVENTS, body, None)
        for event in body["events"]:
            LOG.info("External event %s for port %s (status %s)",
                     event["event"], event["port_id"], event["status"])
