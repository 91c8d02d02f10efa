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

LOG = logging.getLogger(__name__)

_UUID = {"type": "string", "format": "uuid",
         "pattern": "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                    "[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"}
_NETWORK_EVENT = {
    "type": "object",
    "properties": {
        "event": {"type": "string",
                  "enum": ["network.bind_port", "network.unbind_port",
                           "network.delete_port"]},
        "port_id": _UUID,
        "mac_address": {"type": "string",
                        "pattern": "^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$"},
        "status": {"type": "string"},
        "device_id": _UUID,
        "binding:host_id": _UUID,
        "binding:vnic_type": {"type": "string"},
    },
    "required": ["event", "port_id", "mac_address", "status"],
    "additionalProperties": False,
}
SCHEMA = {
    "type": "object",
    "properties": {"events": {"type": "array", "minItems": 1,
                              "items": _NETWORK_EVENT}},
    "required": ["events"],
    "additionalProperties": False,
}


class EventsController(rest.RestController):
    @expose()
    @api_method(features.EVENTS, status=204)
    def post(self):
        policy.authorize("baremetal:events:post", method.context())
        body = method.json_body()
        api_utils.validate(SCHEMA, body, "events")
        for event in body["events"]:
            LOG.info("External event %s for port %s (status %s)",
                     event["event"], event["port_id"], event["status"])
