"""Node actions that go through a conductor: provision and power state,
boot device, interface validation.

Each handler validates the request (JSON schema, microversion rules, the
state machine for an early 400), then sends one RPC call to the conductor
that owns the node; the conductor takes the lock (409 when it cannot), does
the synchronous checks and answers before the long work starts (202).
"""

from __future__ import annotations

from typing import Any

import pecan
from automaton import exceptions as fsm_exc

from ironic import interfaces
from ironic.api import features, method, schemas
from ironic.api.controllers.v1 import (
    answers,
    node_indicators,
    node_sub,
)
from ironic.api.controllers.v1 import utils as api_utils
from ironic.api.method import api_method, expose
from ironic.common import exception, policy, states
from ironic.conductor import rpcapi
from ironic.objects.base import ANY, ARRAY, BOOLEAN, INTEGER, OBJECT, Field
from ironic.objects.node import Node

# The bodies of the actions, declared once: the handlers check them with
# ``.schema``, and ``/v1/openapi.json`` shows them (each field from its
# ``since``).
_STEP_FIELDS: dict[str, Field] = {
    "interface": Field(nullable=False, schema={"enum": list(
        interfaces.TYPES)}, doc="The interface running the step."),
    "step": Field(nullable=False, min_length=1, max_length=255,
                  doc="The step's name."),
    "args": Field(type=OBJECT, nullable=False, doc="Its arguments."),
    "priority": Field(type=INTEGER, nullable=False, schema={"minimum": 0},
                      doc="Its priority among the steps."),
}
_STEP = schemas.Body(_STEP_FIELDS, required=("interface", "step"))
_DEPLOY_STEP = schemas.Body(_STEP_FIELDS, required=(
    "interface", "step", "args", "priority"))
# A configdrive given as its parts (1.56; vendor_data from 1.59).
_CONFIGDRIVE_PARTS = schemas.Body({
    "meta_data": Field(type=OBJECT, doc="The instance's metadata."),
    "network_data": Field(type=OBJECT, doc="Its network configuration."),
    "user_data": Field(type=OBJECT, body_also=("array", "string"),
                       doc="What cloud-init runs."),
    "vendor_data": Field(type=OBJECT, doc="Vendor metadata."),
})


def _steps(since: features.Since, step: schemas.Body, doc: str) -> Field:
    return Field(since.minor, type=ARRAY, nullable=False,
                 schema={"items": step.schema}, doc=doc)


_PROVISION = schemas.Body({
    "target": Field(nullable=False, doc="The provision state verb."),
    "configdrive": Field(type=ANY, schema={"anyOf": [
        {"type": ["string", "null"]}, _CONFIGDRIVE_PARTS.schema]},
        doc="A config drive: an image (URL or gzip+base64) or its parts."),
    "clean_steps": _steps(features.MANUAL_CLEANING, _STEP,
                          "The steps of a manual cleaning."),
    "deploy_steps": _steps(features.DEPLOY_STEPS, _DEPLOY_STEP,
                           "Steps added to the deployment."),
    "service_steps": _steps(features.SERVICE, _STEP,
                            "The steps of a servicing."),
    "rescue_password": Field(features.RESCUE.minor, nullable=False,
                             min_length=1, max_length=255,
                             doc="The password of the rescue ramdisk."),
    "disable_ramdisk": Field(features.DISABLE_RAMDISK.minor, type=BOOLEAN,
                             nullable=False,
                             doc="Run the steps without the ramdisk."),
    "runbook": Field(features.RUNBOOKS.minor, nullable=False, min_length=1,
                     max_length=255, doc="A runbook giving the steps."),
}, required=("target",), arguments=True)
# Which verbs accept each optional field, and since which minor version.
_FIELD_RULES = {
    "configdrive": ({"active", "deploy", "rebuild"}, features.ALWAYS),
    "clean_steps": ({"clean"}, features.MANUAL_CLEANING),
    "deploy_steps": ({"active", "deploy", "rebuild"}, features.DEPLOY_STEPS),
    "service_steps": ({"service"}, features.SERVICE),
    "rescue_password": ({"rescue"}, features.RESCUE),
    "disable_ramdisk": ({"clean", "service"}, features.DISABLE_RAMDISK),
    "runbook": ({"clean", "service"}, features.RUNBOOKS),
}
_REQUIRED_FIELD = {"clean": "clean_steps", "service": "service_steps",
                   "rescue": "rescue_password"}

_POWER = schemas.Body({
    "target": Field(nullable=False, doc="The power state wanted."),
    "timeout": Field(features.SOFT_POWER.minor, type=INTEGER,
                     nullable=False,
                     doc="Seconds to wait for it (positive)."),
}, required=("target",), arguments=True)
_SOFT_POWER = {states.SOFT_REBOOT, states.SOFT_POWER_OFF}

_BOOT_DEVICE = schemas.Body({
    "boot_device": Field(nullable=False, min_length=1,
                         doc="pxe, disk, cdrom..."),
    "persistent": Field(type=BOOLEAN, nullable=False,
                        doc="Whether it stays past the next boot."),
}, required=("boot_device",), arguments=True)

_CONSOLE = schemas.Body({"enabled": Field(
    type=BOOLEAN, nullable=False, doc="Whether the console is wanted.")},
    required=("enabled",), arguments=True)
_BOOT_MODES = ("bios", "uefi")
_BOOT_MODE = schemas.Body({"target": Field(
    features.SET_BOOT_MODE.minor, nullable=False,
    doc="The boot mode wanted: bios or uefi.")},
    required=("target",), arguments=True)
_SECURE_BOOT = schemas.Body({"target": Field(
    features.SET_BOOT_MODE.minor, type=BOOLEAN, nullable=False,
    doc="Whether secure boot is wanted.")},
    required=("target",), arguments=True)


def _states_location(node: Node) -> None:
    pecan.response.location = (f"{method.public_url()}/v1/nodes/"
                               f"{node.uuid}/states")


def _check_stable(node: Node) -> None:
    """409 while an operation that may rely on the boot settings runs."""
    if node.provision_state in states.UNSTABLE_STATES:
        raise exception.Conflict(
            f"Node {node.uuid} is in state {node.provision_state}; its boot "
            f"settings can not change until that operation ends.")


def _check_verb(node: Node, verb: str, ver: int) -> str:
    """The state machine event of ``verb``, checked for this node now."""
    event = states.VERBS.get(verb)
    if event is None:
        raise exception.InvalidStateRequested(
            action=verb, node=node.uuid, state=node.provision_state)
    if verb in _STATE_BEFORE_VERSION:
        _check_transition(node, verb, event)
    since = VERB_FEATURES[verb]
    if not since.available(ver):
        raise exception.NotAcceptable(
            f"The provision state target \"{verb}\" needs API version "
            f"{since.version} or newer.")
    _check_abort(node, verb, ver)
    _check_transition(node, verb, event)
    return event


#: The feature that brought each provisioning verb (the same versions as
#: ``states.VERB_SINCE``; a unit test keeps them equal).
VERB_FEATURES = {
    "active": features.ALWAYS, "deleted": features.ALWAYS,
    "rebuild": features.ALWAYS, "manage": features.MANAGE,
    "provide": features.MANAGE, "inspect": features.INSPECT,
    "abort": features.ABORT, "clean": features.MANUAL_CLEANING,
    "adopt": features.ADOPT, "rescue": features.RESCUE,
    "unrescue": features.RESCUE, "deploy": features.DEPLOY_ALIASES,
    "undeploy": features.DEPLOY_ALIASES, "unhold": features.UNHOLD,
    "service": features.SERVICE,
}

#: Verbs whose state is checked before their version, as the reference
#: checks them (a node that cannot be serviced is 400 at any version).
_STATE_BEFORE_VERSION = frozenset({"service", "unhold"})


def _check_transition(node: Node, verb: str, event: str) -> None:
    try:
        states.next_state(node.provision_state, event)
    except (fsm_exc.NotFound, fsm_exc.InvalidState) as e:
        raise exception.InvalidStateRequested(
            action=verb, node=node.uuid, state=node.provision_state) from e


# Waits that ``abort`` stops only from a later version (406 before, as
# the public API answers).
_ABORT_SINCE = {states.INSPECTWAIT: features.ABORT_INSPECT_WAIT,
                states.DEPLOYWAIT: features.ABORT_DEPLOY_WAIT}


def _check_abort(node: Node, verb: str, ver: int) -> None:
    since = _ABORT_SINCE.get(node.provision_state)
    if verb == "abort" and since is not None and not since.available(ver):
        raise exception.NotAcceptable(
            f"Aborting a node in \"{node.provision_state}\" needs API "
            f"version {since.version} or newer.")


def _check_fields(body: dict, verb: str, ver: int) -> None:
    for field, (verbs, since) in _FIELD_RULES.items():
        if field not in body:
            continue
        if not since.available(ver):
            raise exception.NotAcceptable(
                f"The field \"{field}\" needs API version {since.version} "
                f"or newer.")
        if verb not in verbs:
            raise exception.InvalidParameterValue(
                err=f"\"{field}\" can only be given with the provision "
                    f"target(s) {', '.join(sorted(verbs))}, not "
                    f"\"{verb}\".")
    if verb == "service" and "disable_ramdisk" in body and \
            not features.DISABLE_RAMDISK_SERVICE.available(ver):
        raise exception.NotAcceptable(
            f"\"disable_ramdisk\" with \"service\" needs API version "
            f"{features.DISABLE_RAMDISK_SERVICE.version} or newer.")
    if verb == "rebuild" and "configdrive" in body and \
            not features.REBUILD_CONFIGDRIVE.available(ver):
        raise exception.NotAcceptable(
            "A configdrive with \"rebuild\" needs API version 1.35 or "
            "newer.")
    _check_configdrive(body.get("configdrive"), ver)
    required = _REQUIRED_FIELD.get(verb)
    if required and body.get("runbook"):
        if required in body:
            raise exception.InvalidParameterValue(
                err=f"\"runbook\" and \"{required}\" are mutually "
                    f"exclusive.")
        return
    if required and not body.get(required):
        raise exception.MissingParameterValue(
            err=f"\"{required}\" is required when setting the provision "
                f"state to \"{verb}\".")


def _check_configdrive(configdrive: Any, ver: int) -> None:
    """A configdrive object is built by the conductor from 1.56; its
    vendor_data is accepted from 1.59 (400 before, as the public API)."""
    if not isinstance(configdrive, dict):
        return
    if not features.BUILD_CONFIGDRIVE.available(ver):
        raise exception.InvalidParameterValue(
            err=f"A configdrive given as a JSON object needs API version "
                f"{features.BUILD_CONFIGDRIVE.version} or newer.")
    if "vendor_data" in configdrive and \
            not features.CONFIGDRIVE_VENDOR_DATA.available(ver):
        raise exception.InvalidParameterValue(
            err=f"configdrive vendor_data needs API version "
                f"{features.CONFIGDRIVE_VENDOR_DATA.version} or newer.")


def _dispatch(node: Node, verb: str, body: dict) -> None:
    api = rpcapi.get_api()
    ctx = method.context()
    if body.get("runbook"):
        body = dict(body, **runbook_steps(node, verb, body["runbook"]))
    if verb in ("active", "deploy", "rebuild"):
        api.do_node_deploy(ctx, node, rebuild=verb == "rebuild",
                           configdrive=body.get("configdrive"),
                           deploy_steps=body.get("deploy_steps"))
    elif verb in ("deleted", "undeploy"):
        api.do_node_tear_down(ctx, node)
    elif verb == "clean":
        api.do_node_clean(ctx, node, body["clean_steps"],
                          body.get("disable_ramdisk", False))
    elif verb == "service":
        api.do_node_service(ctx, node, body["service_steps"],
                            body.get("disable_ramdisk", False))
    elif verb == "rescue":
        api.do_node_rescue(ctx, node, body["rescue_password"])
    elif verb == "unrescue":
        api.do_node_unrescue(ctx, node)
    else:
        api.do_provisioning_action(ctx, node, states.VERBS[verb])


def runbook_steps(node: Node, verb: str, ident: str) -> dict:
    """The request fields a runbook stands for (1.92): its steps in their
    ``order`` as ``clean_steps``/``service_steps``, and its
    ``disable_ramdisk``.

    A runbook may run on a node only when one of the node's traits is the
    runbook's name (or, from 1.112, one of the runbook's own traits), and
    a project's runbook only on nodes that project owns or leases.
    """
    from ironic.api.controllers.v1 import runbook as runbook_api
    try:
        book = runbook_api._get(ident)
    except exception.NotFound as e:
        raise exception.InvalidParameterValue(
            err=f"Runbook {ident} was not found.") from e
    if not book.public:
        # A public runbook is for anyone who may clean or service the node.
        policy.authorize("baremetal:runbook:use", method.context(),
                         {"runbook.owner": book.owner})
    node_traits = set(node.load_traits())
    book_traits = set(runbook_api.traits_of(book))
    if book.name not in node_traits and not (book_traits & node_traits):
        raise exception.InvalidParameterValue(
            err=f"Runbook {book.name} has not been approved for node "
                f"{node.uuid}: the node has no trait {book.name}.")
    if book.owner and book.owner not in (node.owner, node.lessee):
        raise exception.InvalidParameterValue(
            err=f"Runbook {book.name} belongs to project {book.owner}, "
                f"which neither owns nor leases node {node.uuid}.")
    steps = [{"interface": s["interface"], "step": s["step"],
              "args": dict(s.get("args") or {})}
             for s in sorted(book.steps or [], key=lambda s: s["order"])]
    return {_REQUIRED_FIELD[verb]: steps,
            "disable_ramdisk": bool(book.disable_ramdisk)}


class StatesController(node_sub.StatesController):
    """/v1/nodes/{node}/states: the summary plus provision and power."""

    _custom_actions = {"provision": ["PUT"], "power": ["PUT"],
                       "raid": ["PUT"], "console": ["GET", "PUT"],
                       "boot_mode": ["PUT"], "secure_boot": ["PUT"]}

    @expose()
    @api_method(status=202)
    def provision(self):
        ver = method.version()
        body = method.json_body(arguments=True)
        api_utils.validate(_PROVISION, body, None)
        node = self._node("baremetal:node:set_provision_state")
        verb = body["target"]
        _check_verb(node, verb, ver)
        _check_fields(body, verb, ver)
        if verb == "provide" and node.retired:
            raise exception.NodeIsRetired(op="provide", node=node.uuid)
        _dispatch(node, verb, body)
        _states_location(node)

    @expose()
    @api_method(status=202)
    def power(self):
        ver = method.version()
        body = method.json_body(arguments=True)
        api_utils.validate(_POWER, body, None)
        if body.get("timeout") is not None and body["timeout"] < 1:
            raise exception.InvalidParameterValue(
                err="timeout has to be positive integer")
        node = self._node("baremetal:node:set_power_state")
        target = body["target"]
        if target not in states.POWER_TARGETS:
            raise exception.InvalidStateRequested(
                action=target, node=node.uuid, state=node.power_state)
        if (target in _SOFT_POWER or "timeout" in body) and \
                not features.SOFT_POWER.available(ver):
            raise exception.NotAcceptable(
                "Soft power actions and timeouts need API version 1.27 or "
                "newer.")
        rpcapi.get_api().change_node_power_state(
            method.context(), node, target, body.get("timeout"))
        _states_location(node)


    @expose()
    # Unlike most newer endpoints, this one answered 406 (not 404) to
    # older versions from the start, once the node is found.
    @api_method(features.RAID, status=204, too_old=406, late=True)
    def put_raid(self):
        node = self._node("baremetal:node:set_raid_state")
        method.check_bound()
        body = method.json_body(object)
        if not isinstance(body, dict):
            raise exception.InvalidParameterValue(
                err=f"Expected types <class 'dict'> for target_raid_config: "
                    f"{body}")
        try:
            rpcapi.get_api().set_target_raid_config(method.context(), node,
                                                    body)
        except exception.UnsupportedDriverExtension as e:
            # RAID is optional hardware: "not supported" reads as absent.
            raise exception.NotFound(str(e)) from e

    @expose()
    @api_method()
    def get_console(self):
        node = self._node("baremetal:node:get_console")
        return rpcapi.get_api().get_console_information(method.context(),
                                                        node)

    @expose()
    @api_method(status=202)
    def put_console(self):
        body = method.json_body(arguments=True)
        api_utils.validate(_CONSOLE, body, None)
        node = self._node("baremetal:node:set_console_state")
        rpcapi.get_api().set_console_mode(method.context(), node,
                                          body["enabled"])
        _states_location(node)

    @expose()
    @api_method(features.SET_BOOT_MODE, status=202)
    def put_boot_mode(self):
        body = method.json_body(arguments=True)
        api_utils.validate(_BOOT_MODE, body, None)
        if body["target"] not in _BOOT_MODES:
            raise exception.InvalidParameterValue(
                err=f"Invalid boot mode {body['target']} requested for "
                    f"node. Allowed boot modes are: "
                    f"{', '.join(_BOOT_MODES)}")
        node = self._node("baremetal:node:set_boot_mode")
        _check_stable(node)
        rpcapi.get_api().set_boot_mode(method.context(), node,
                                       body["target"])
        _states_location(node)

    @expose()
    @api_method(features.SET_BOOT_MODE, status=202)
    def put_secure_boot(self):
        body = method.json_body(arguments=True)
        api_utils.validate(_SECURE_BOOT, body, None)
        node = self._node("baremetal:node:set_secure_boot")
        target = body["target"]
        _check_stable(node)
        rpcapi.get_api().set_secure_boot_state(method.context(), node,
                                               target)
        _states_location(node)


class BootDeviceController(node_sub._NodeSub):
    path_arg = "node_ident"

    _custom_actions = {"supported": ["GET"]}

    @expose()
    @api_method()
    def get_all(self):
        node = self._node("baremetal:node:get_boot_device")
        return rpcapi.get_api().get_boot_device(method.context(), node)

    @expose()
    @api_method(status=204)
    def put(self):
        body = method.json_body(arguments=True)
        api_utils.validate(_BOOT_DEVICE, body, None)
        node = self._node("baremetal:node:set_boot_device")
        rpcapi.get_api().set_boot_device(method.context(), node,
                                         body["boot_device"],
                                         body.get("persistent", False))

    @expose()
    @api_method()
    def supported(self):
        node = self._node("baremetal:node:get_boot_device")
        devices = rpcapi.get_api().get_supported_boot_devices(
            method.context(), node)
        return answers.SUPPORTED_BOOT_DEVICES.render(devices,
                                                     method.version())


#: A body taking nothing (an action's call without arguments).
_NO_ARGUMENTS = schemas.Body({}, extra=False, arguments=True)


class InjectNmiController(node_sub._NodeSub):
    path_arg = "node_ident"

    """PUT sends a non-maskable interrupt to the node now (1.29)."""

    @expose()
    @api_method(features.INJECT_NMI, status=204)
    def put(self):
        if node_sub._has_body():
            api_utils.validate(_NO_ARGUMENTS,
                               method.json_body(arguments=True), None)
        node = self._node("baremetal:node:inject_nmi")
        rpcapi.get_api().inject_nmi(method.context(), node)


class ManagementController(node_sub._NodeSub):
    path_arg = "node_ident"

    _children = {"boot_device": BootDeviceController,
                 "inject_nmi": InjectNmiController,
                 "indicators": node_indicators.IndicatorsController}

    @expose()
    def _lookup(self, sub=None, *remainder):
        child = self._children.get(sub)
        if child is None:
            # As Ironic 39: the management root serves no method itself.
            raise method.MethodNotAllowed()
        return child(self.node_ident), remainder


class ValidateController(node_sub._NodeSub):
    @expose()
    @api_method()
    def get_all(self):
        node = self._node("baremetal:node:validate")
        return rpcapi.get_api().validate_driver_interfaces(
            method.context(), node)


SUBCONTROLLERS = {"states": StatesController,
                  "management": ManagementController,
                  "validate": ValidateController}
__all__ = ["SUBCONTROLLERS"]
