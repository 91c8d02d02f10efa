"""The ramdisk agent's endpoints, all unauthenticated.

``GET /v1/lookup`` and ``POST /v1/heartbeat/{node}`` (1.22): lookup finds
the node of a booting agent by its MAC addresses (or UUID) and answers a
restricted view of it with the agent's configuration; from 1.62 the
conductor issues the agent token on the first lookup and it is shown that
one time only. A heartbeat is checked here for shape and version, then
handed to the node's conductor, which checks the token under the node's
lock.

``POST /v1/continue_inspection`` takes the inspection data the ramdisk
collected (``inventory`` plus free-form plugin data), finds the node it
belongs to - by MACs, BMC addresses or, from 1.84, a ``node_uuid`` query -
and hands the data to the node's conductor. Only a node in ``inspect wait``
accepts it; every failure to match looks the same (404). Besides 1.84 and
later, the base version 1.1 is served too, as the Inspector-compatible form
the ramdisk uses (it sends no version header): it answers ``{"uuid": ...}``.
From 1.84 the answer is the one of a lookup (``node`` and ``config``, with
the agent token issued on first contact). Data matching no node at all,
with ``[auto_discovery]enabled``, is handed to a conductor that enrolls
the machine (``ironic.conductor.discovery``) and answered the same way.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any
from urllib.parse import urlparse

import pecan
from pecan import rest

from ironic.api import features, method, query, rest_routes, schemas
from ironic.api.controllers.v1 import node_lookup, node_view
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import agent_token, exception, policy, states, utils
from ironic.conductor import fast_track, inspection_lookup, rpcapi
from ironic.conf import CONF
from ironic.objects.base import ARRAY, OBJECT, UUID, Field
from ironic.objects.node import Node

LOG = logging.getLogger(__name__)

AGENT_STATUSES = ("start", "end", "error")
# Management interfaces that know the BMC address: the agent need not
# look for it.
_OUT_OF_BAND_MANAGEMENT = ("redfish", "idrac-redfish")


def agent_config(token: str | None, management_interface: str | None
                 ) -> dict[str, Any]:
    """The ``config`` part of a lookup answer: what the agent should do."""
    containers = CONF.agent_containers
    return {
        "metrics": {
            "backend": CONF.metrics.agent_backend,
            "prepend_host": CONF.metrics.agent_prepend_host,
            "prepend_uuid": CONF.metrics.agent_prepend_uuid,
            "prepend_host_reverse": CONF.metrics.agent_prepend_host_reverse,
            "global_prefix": CONF.metrics.agent_global_prefix,
        },
        "metrics_statsd": {
            "statsd_host": CONF.metrics_statsd.agent_statsd_host,
            "statsd_port": CONF.metrics_statsd.agent_statsd_port,
        },
        "heartbeat_timeout": CONF.api.ramdisk_heartbeat_timeout,
        "agent_containers": {
            "allow_arbitrary_containers":
                containers.allow_arbitrary_containers,
            "allowed_containers": containers.allowed_containers,
            "container_steps_file": containers.container_steps_file,
            "runner": containers.runner,
            "pull_options": containers.pull_options,
            "run_options": containers.run_options,
        },
        "agent_token": token,
        # Tokens are always required here; agents lock that in.
        "agent_token_required": True,
        "agent_md5_checksum_enable": CONF.agent.allow_md5_checksum,
        "disable_deep_image_inspection":
            CONF.conductor.disable_deep_image_inspection,
        "permitted_image_formats": CONF.conductor.permitted_image_formats,
        "agent_skip_bmc_detect":
            management_interface in _OUT_OF_BAND_MANAGEMENT,
        "enable_bios_bootloader_install":
            CONF.agent.enable_bios_bootloader_install,
        "tls_min_version": CONF.agent.tls_minimum_version,
        "tls_cipher_suites": CONF.agent.tls_ciphers,
    }


def lookup_view(fields: dict[str, Any], token: str | None) -> dict:
    """``{"node": ..., "config": ...}`` from the node's lookup fields.

    Nothing secret leaves: the stored token digest, instance secrets and
    the image URL (it may embed a temporary credential) are masked.
    """
    info = fields.get("driver_internal_info") or {}
    if token is None and info.get("agent_secret_token"):
        token = api_utils.MASK
    instance_info = api_utils.mask_secrets(fields.get("instance_info"))
    for key in ("image_url", "configdrive"):
        if instance_info.get(key):
            instance_info = dict(instance_info, **{key: api_utils.MASK})
    node = {
        "uuid": fields["uuid"],
        "properties": fields.get("properties") or {},
        "instance_info": instance_info,
        "driver_internal_info": node_view.mask_internal(info),
        "links": api_utils.link("nodes", fields["uuid"]),
    }
    return {"node": node,
            "config": agent_config(token, fields.get("management_interface"))}


def _lookup_fields(node: Node) -> dict[str, Any]:
    return {name: getattr(node, name) for name in (
        "uuid", "properties", "instance_info", "driver_internal_info",
        "management_interface")}


def _addresses(value: Any) -> list[str]:
    """Valid MAC addresses of ``addresses`` (invalid ones are ignored)."""
    if value is None:
        return []
    parts = value if isinstance(value, list) else [value]
    given = [a.strip() for part in parts for a in str(part).split(",")
             if a.strip()]
    valid = [utils.normalize_mac(a) for a in given if utils.is_valid_mac(a)]
    if len(valid) != len(given):
        LOG.warning("Lookup ignores invalid MAC addresses: %s",
                    ", ".join(a for a in given if not utils.is_valid_mac(a)))
    return valid


def _find_node(addresses: list[str], node_uuid: str | None) -> Node:
    """The node looked up; one answer (404) for every kind of miss."""
    try:
        if node_uuid:
            node = Node.get(utils.normalize_uuid(node_uuid))
        else:
            node = Node.get_by_port_addresses(addresses)
    except exception.NotFound as e:
        LOG.warning("Lookup found no node: %s", e)
        raise exception.NotFound() from e
    allowed = fast_track.LOOKUP_ALLOWED_STATES \
        if fast_track.keeps_agent(node) else states.LOOKUP_ALLOWED_STATES
    if CONF.api.restrict_lookup and node.provision_state not in allowed:
        LOG.warning("Lookup of node %s refused in provision state %s",
                    node.uuid, node.provision_state)
        raise exception.NotFound()
    return node


def _rpc() -> Any:
    return rpcapi.get_api()


def _no_host_is_bad_request(e: exception.NoValidHost) -> exception.Invalid:
    # The public API answers 400 when no conductor serves the node.
    return exception.InvalidParameterValue(err=str(e))


#: The query parameters of a lookup, declared once (checked here, shown
#: in the OpenAPI document).
LOOKUP_QUERY: dict[str, Field] = {
    "addresses": Field(doc="Comma-separated MAC addresses of the node."),
    "node_uuid": Field(type=UUID, doc="The node's UUID, if known."),
}


class LookupController(rest.RestController):

    @pecan.expose()
    def _route(self, args, request):
        """``GET /v1/lookup`` (or ``/v1/lookup/``) straight to ``get_all``,
        where pecan's RestController routes it after several signature
        inspections (see ``ironic.api.rest_routes``); anything else is
        routed by pecan."""
        return rest_routes.direct_get(self, args, request) or \
            super()._route(args, request)

    @expose()
    @api_method(features.RAMDISK_LOOKUP)
    def get_all(self, **params):
        query.refuse_unexpected(params, LOOKUP_QUERY)
        policy.authorize("baremetal:driver:ipa_lookup", method.context())
        addresses, node_uuid = params.get("addresses"), \
            params.get("node_uuid") or None
        if isinstance(addresses, query.Repeated):
            # Ironic 39 takes the addresses of every repetition.
            addresses = ",".join(addresses.values)
        if node_uuid is not None and not utils.is_uuid_like(node_uuid):
            raise query.expected("UUID", "node_uuid", node_uuid)
        valid = _addresses(addresses)
        if not valid and not node_uuid:
            raise exception.IncompleteLookup()
        node = _find_node(valid, node_uuid)
        if not features.AGENT_TOKEN.available(method.version()) or \
                agent_token.has_token(node):
            # Nothing to issue: answered from the database (the token, if
            # any, shows masked), no conductor involved.
            return lookup_view(_lookup_fields(node), None)
        try:
            found = _rpc().get_node_with_token(method.context(), node)
        except exception.NoValidHost as e:
            raise _no_host_is_bad_request(e) from e
        return lookup_view(found["node"], found["agent_token"])


#: A heartbeat, declared once (checked here, shown in the OpenAPI
#: document).
HEARTBEAT = schemas.Body({
    "callback_url": Field(nullable=False, max_length=2048,
                          doc="Where the agent listens."),
    "agent_token": Field(max_length=255, doc="The node's agent token."),
    "agent_version": Field(features.AGENT_VERSION.minor, max_length=255,
                           doc="The agent's version."),
    "agent_verify_ca": Field(features.AGENT_VERIFY_CA.minor,
                             max_length=64 * 1024,
                             doc="The CA of the agent's certificate."),
    "agent_status": Field(features.AGENT_STATUS.minor,
                          doc="start, end or error."),
    "agent_status_message": Field(features.AGENT_STATUS.minor,
                                  max_length=4096,
                                  doc="What the status is about."),
}, required=("callback_url",), arguments=True)
# Body fields newer than 1.22, with the version that added them.
_FIELD_SINCE = {"agent_version": features.AGENT_VERSION,
                "agent_verify_ca": features.AGENT_VERIFY_CA,
                "agent_status": features.AGENT_STATUS,
                "agent_status_message": features.AGENT_STATUS}


def plainly_valid(body: dict) -> bool:
    """Whether ``body`` certainly meets ``HEARTBEAT``'s schema: only its
    properties, ``callback_url`` among them, each a string within its
    length or a null where the schema allows one. The agent's heartbeats
    are such bodies; anything else is judged by jsonschema, whose
    message the answer carries."""
    if "callback_url" not in body:
        return False
    properties = HEARTBEAT.schema["properties"]
    for name, value in body.items():
        rule = properties.get(name)
        if rule is None:
            return False
        if value is None:
            if rule["type"] == "string" or "null" not in rule["type"]:
                return False
        elif type(value) is not str or \
                len(value) > rule.get("maxLength", len(value)):
            return False
    return True


def validate_heartbeat(body: dict, ver: int) -> None:
    """400 for a body this version does not accept (the field named)."""
    for name, since in _FIELD_SINCE.items():
        if body.get(name) is not None and not since.available(ver):
            raise exception.InvalidParameterValue(
                err=f'Field "{name}" not recognised in API version 1.{ver};'
                    f' it needs {since.version} or newer.')
    if not plainly_valid(body):
        api_utils.validate(HEARTBEAT, body, "heartbeat")
    _check_callback_url(body["callback_url"])
    if body.get("agent_token") is None:
        raise exception.InvalidParameterValue(
            err="Agent token is required for heartbeat processing.")
    status = body.get("agent_status")
    if status is not None and status not in AGENT_STATUSES:
        raise exception.InvalidParameterValue(
            err=f"Agent status is invalid. Valid states are "
                f"{', '.join(AGENT_STATUSES)}.")


def _check_callback_url(url: str) -> None:
    # An empty URL is a one-way heartbeat (ramdisks without an API).
    if url == "":
        return
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or \
            not parsed.hostname:
        raise exception.InvalidParameterValue(
            err='An issue with the supplied "callback_url" has been '
                'detected.')


_NOT_ACCEPTED = "Invalid or missing agent token received."


def _authenticated_node(ident: str, token: str) -> Node:
    """The node of a heartbeat that carries its agent token.

    Heartbeats need no credentials: an unknown node, an identifier that
    cannot be one and a wrong token get the very same answer, so that
    nobody learns node names from them (the conductor checks the token
    again under the node's lock).
    """
    try:
        node = node_lookup.get_node(ident)
    except (exception.NotFound, exception.Invalid):
        node = None
    if node is None or not agent_token.matches(node, token):
        raise exception.InvalidParameterValue(err=_NOT_ACCEPTED)
    return node


class HeartbeatController(rest.RestController):

    @pecan.expose()
    def _route(self, args, request):
        """``POST /v1/heartbeat/<node>`` straight to ``post``.

        pecan's RestController routes it there too, but only after
        inspecting four signatures (each inspection builds a class: the
        biggest cost of routing a heartbeat, the API's most frequent
        request). A POST whose first segment names nothing on this
        controller, without a ``_method`` override, always ends at
        ``post(*segments)`` there (no sub-controllers, custom actions or
        ``_lookup`` here); everything else is routed by pecan as before.
        """
        if request.method == "POST" and args and args[0] and \
                not hasattr(self, args[0]) and \
                "_method" not in request.params:
            return self.post, args
        return super()._route(args, request)

    @expose()
    @api_method(features.RAMDISK_LOOKUP, status=202)
    def post(self, node_ident):
        ver = method.version()
        body = method.json_body(arguments=True)
        validate_heartbeat(body, ver)
        policy.authorize("baremetal:node:ipa_heartbeat", method.context())
        node = _authenticated_node(node_ident, body["agent_token"])
        try:
            _rpc().heartbeat(
                method.context(), node, body["callback_url"],
                agent_version=body.get("agent_version"),
                agent_token=body["agent_token"],
                agent_verify_ca=body.get("agent_verify_ca"),
                agent_status=body.get("agent_status"),
                agent_status_message=body.get("agent_status_message"))
        except exception.NoValidHost as e:
            raise _no_host_is_bad_request(e) from e
        return method.ACCEPTED


# -- continue_inspection ------------------------------------------------------

#: What the agent sends, declared once (checked here, shown in the
#: OpenAPI document): an inventory naming its network interfaces, and
#: anything the agent's collectors add.
_INTERFACE = schemas.Body({"mac_address": Field(
    nullable=False, doc="The interface's MAC address.")},
    required=("mac_address",), extra=None)
_INVENTORY = schemas.Body({
    "bmc_address": Field(doc="The BMC's IPv4 address."),
    "bmc_v6address": Field(doc="The BMC's IPv6 address."),
    "interfaces": Field(type=ARRAY, nullable=False, schema={
        "minItems": 1, "items": _INTERFACE.schema},
        doc="The network interfaces found."),
}, required=("interfaces",), extra=None)
DATA = schemas.Body({"inventory": Field(
    type=OBJECT, nullable=False, schema=_INVENTORY.schema,
    doc="The hardware found.")}, required=("inventory",), extra=None)


def _bmc_addresses(inventory: dict) -> list[str]:
    found = []
    for key in ("bmc_address", "bmc_v6address"):
        value = inventory.get(key)
        ip = utils.parse_ip(value) if value else None
        if ip is not None and not ip.is_unspecified:
            found.append(str(ip))
    return found


def _macs(inventory: dict) -> list[str]:
    return sorted({utils.normalize_mac(i["mac_address"])
                   for i in inventory["interfaces"]
                   if utils.is_valid_mac(i["mac_address"])})


def _discover(inventory: dict, plugin_data: dict, ver: int) -> dict:
    """An unknown machine: a conductor enrolls it (auto-discovery) and
    the answer is the one of a found node."""
    try:
        found = _rpc().discover_node(
            method.context(), str(uuid.uuid4()), inventory, plugin_data,
            issue_token=features.CONTINUE_INSPECTION.available(ver))
    except exception.NoValidHost as e:
        # Nothing is disclosed to the machine: a failed lookup.
        LOG.error("Auto-discovery: no conductor serves [auto_discovery]"
                  "driver %s: %s", CONF.auto_discovery.driver, e)
        raise inspection_lookup.LookupFailed() from e
    if features.CONTINUE_INSPECTION.available(ver):
        return lookup_view(found["node"], found["agent_token"])
    return {"uuid": found["node"]["uuid"]}


class ContinueInspectionController(rest.RestController):

    @expose()
    @api_method(status=202)
    def post(self, node_uuid: str | None = None):
        ver = method.version()
        new = features.CONTINUE_INSPECTION.available(ver)
        # The base version keeps the Inspector form (no node_uuid).
        if not new and (node_uuid is not None or
                        not features.BASE_VERSION.available(ver)):
            raise exception.NotFound(
                f"API version {features.CONTINUE_INSPECTION.version} or "
                f"newer is required.")
        policy.authorize("baremetal:driver:ipa_continue_inspection",
                         method.context())
        if node_uuid is not None:
            if not utils.is_uuid_like(node_uuid):
                raise exception.InvalidUUID(uuid=node_uuid)
            node_uuid = utils.normalize_uuid(node_uuid)
        data = method.json_body(what="data")
        api_utils.validate(DATA, data, "data")
        inventory = data.pop("inventory")
        macs, bmc = _macs(inventory), _bmc_addresses(inventory)
        if not macs and not bmc and not node_uuid:
            raise exception.InvalidParameterValue(
                err="No lookup information provided: the inventory has no "
                    "valid MAC address nor BMC address.")
        try:
            node = inspection_lookup.lookup_node(macs, bmc, node_uuid)
        except inspection_lookup.NoMatch:
            if not CONF.auto_discovery.enabled:
                raise
            return _discover(inventory, data, ver)
        api = _rpc()
        ctx = method.context()
        token = None
        if new:
            # Before the data is processed: issuing takes the node lock,
            # which processing holds for a while.
            token = api.issue_agent_token(ctx, node)
        api.continue_inspection(ctx, node, inventory, data)
        if new:
            return lookup_view(_lookup_fields(node), token)
        return {"uuid": node.uuid}
