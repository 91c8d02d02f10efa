"""The service's exceptions.

Every error a user can cause is an ``IronicException`` subclass carrying the
HTTP status the API answers with; the API's error middleware turns them into
the Bare Metal API error body. Messages are built from a template and keyword
arguments so that callers never format user-facing text themselves.
"""

from http import HTTPStatus


class IronicException(Exception):
    """Base of every error the service reports to a client."""

    _msg_fmt = "An unknown error occurred."
    code: int = HTTPStatus.INTERNAL_SERVER_ERROR
    # Safe to show to an API client even when it is a 500.
    safe = False

    def __init__(self, message: str | None = None, **kwargs):
        self.kwargs = kwargs
        if message is None:
            try:
                message = self._msg_fmt % kwargs
            except (KeyError, TypeError, ValueError):
                message = self._msg_fmt
        self.message = str(message)
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


class Invalid(IronicException):
    _msg_fmt = "Invalid request: %(reason)s"
    code = HTTPStatus.BAD_REQUEST
    safe = True


class InvalidParameterValue(Invalid):
    _msg_fmt = "%(err)s"


class MissingParameterValue(Invalid):
    _msg_fmt = "%(err)s"


class InvalidUUID(Invalid):
    _msg_fmt = "Expected a UUID but received %(uuid)s."


class InvalidUuidOrName(Invalid):
    _msg_fmt = "Expected a logical name or UUID but received %(name)s."


class InvalidName(Invalid):
    _msg_fmt = "Expected a logical name but received %(name)s."


class InvalidMAC(Invalid):
    _msg_fmt = "Expected a MAC address but received %(mac)s."


class IncompleteLookup(Invalid):
    _msg_fmt = ("At least one of 'addresses' and 'node_uuid' parameters "
                "is required")


class InvalidStateRequested(Invalid):
    _msg_fmt = ("The requested action \"%(action)s\" can not be performed "
                "on node \"%(node)s\" while it is in state \"%(state)s\".")


class NodeIsRetired(Invalid):
    _msg_fmt = ("The %(op)s operation can not be performed on node %(node)s "
                "because it is retired; unset 'retired' first.")


class PatchError(Invalid):
    _msg_fmt = "Couldn't apply patch '%(patch)s'. Reason: %(reason)s"


class RequestTooLarge(IronicException):
    _msg_fmt = "Request body is larger than %(limit)d bytes."
    code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    safe = True


class NotAuthorized(IronicException):
    _msg_fmt = "Not authorized."
    code = HTTPStatus.FORBIDDEN
    safe = True


class OperationNotPermitted(NotAuthorized):
    _msg_fmt = "Operation not permitted."


class MalformedRequestURI(IronicException):
    _msg_fmt = "Malformed request URI."
    code = HTTPStatus.BAD_REQUEST
    safe = True


class HTTPForbidden(NotAuthorized):
    _msg_fmt = "Access was denied to the following resource: %(resource)s"


class NotAuthenticated(IronicException):
    _msg_fmt = "Authentication required."
    code = HTTPStatus.UNAUTHORIZED
    safe = True


class NotAcceptable(IronicException):
    _msg_fmt = "Request not acceptable."
    code = HTTPStatus.NOT_ACCEPTABLE
    safe = True


class NotFound(IronicException):
    _msg_fmt = "Resource could not be found."
    code = HTTPStatus.NOT_FOUND
    safe = True


class NodeNotFound(NotFound):
    _msg_fmt = "Node %(node)s could not be found."


class PortNotFound(NotFound):
    _msg_fmt = "Port %(port)s could not be found."


class PortgroupNotFound(NotFound):
    _msg_fmt = "Portgroup %(portgroup)s could not be found."


class ChassisNotFound(NotFound):
    _msg_fmt = "Chassis %(chassis)s could not be found."


class ConductorNotFound(NotFound):
    _msg_fmt = "Conductor %(conductor)s could not be found."


class DriverNotFound(NotFound):
    _msg_fmt = "Could not find the following driver(s) or hardware type(s): %(driver_name)s."


# --- driver composition ---------------------------------------------------

class UnsupportedDriverExtension(Invalid):
    _msg_fmt = ("Driver %(driver)s does not support %(extension)s "
                "(disabled or not implemented).")


class InterfaceNotFoundInEntrypoint(Invalid):
    _msg_fmt = ("Could not find the following interface in the "
                "'ironic.hardware.interfaces.%(interface_type)s' entrypoint: "
                "%(iface)s. Valid interfaces are %(valid)s.")


class IncompatibleInterface(Invalid):
    _msg_fmt = ("%(interface_type)s interface implementation '%(iface)s' "
                "is not supported by hardware type %(hardware_type)s. "
                "Supported and enabled: %(valid)s.")


class NoValidDefaultForInterface(Invalid):
    _msg_fmt = ("No default value found for %(interface_type)s interface "
                "for %(node_info)s with hardware type %(driver)s.")


class NoValidHostForDriver(Invalid):
    """No live conductor of conductor group ``group`` serves hardware type
    ``driver`` (an unknown driver is the same answer, in group "")."""
    # The client can list the drivers, so an unserved one is its mistake.
    _msg_fmt = ('No valid host was found. Reason: No conductor service '
                'registered which supports driver %(driver)s for conductor '
                'group "%(group)s". Ensure the driver is valid and enabled.')


class VendorPassthruException(Invalid):
    _msg_fmt = "%(err)s"


class DriverLoadError(IronicException):
    # Raised at start-up only; the service refuses to start.
    _msg_fmt = ("Driver, hardware type or interface %(driver)s could not be "
                "loaded. Reason: %(reason)s.")
    safe = True


class AllocationNotFound(NotFound):
    _msg_fmt = "Allocation %(allocation)s could not be found."


class NodeTraitNotFound(NotFound):
    _msg_fmt = "Node %(node)s doesn't have a trait '%(trait)s'"


class Conflict(IronicException):
    _msg_fmt = "Conflict."
    code = HTTPStatus.CONFLICT
    safe = True


class DuplicateName(Conflict):
    _msg_fmt = "A node with name %(name)s already exists."


class NodeAlreadyExists(Conflict):
    _msg_fmt = "A node with UUID %(uuid)s already exists."


class InstanceAssociated(Conflict):
    _msg_fmt = ("Instance %(instance_uuid)s is already associated with a "
                "node, it cannot be associated with this other node %(node)s")


class MACAlreadyExists(Conflict):
    _msg_fmt = "A port with MAC address %(mac)s already exists."


class PortAlreadyExists(Conflict):
    _msg_fmt = "A port with UUID %(uuid)s already exists."


class PortgroupAlreadyExists(Conflict):
    _msg_fmt = "A portgroup with UUID %(uuid)s already exists."


class PortgroupDuplicateName(Conflict):
    _msg_fmt = "A portgroup with name %(name)s already exists."


class PortgroupMACAlreadyExists(Conflict):
    _msg_fmt = "A portgroup with MAC address %(mac)s already exists."


class PortgroupNotEmpty(Invalid):
    _msg_fmt = ("Cannot complete the requested action because portgroup "
                "%(portgroup)s contains ports.")


class ChassisAlreadyExists(Conflict):
    _msg_fmt = "A chassis with UUID %(uuid)s already exists."


class ChassisNotEmpty(Invalid):
    _msg_fmt = "Cannot complete the requested action because chassis %(chassis)s contains nodes."


class AllocationDuplicateName(Conflict):
    _msg_fmt = "An allocation with name %(name)s already exists."


class AllocationAlreadyExists(Conflict):
    _msg_fmt = "An allocation with UUID %(uuid)s already exists."


class AllocationFailed(Invalid):
    _msg_fmt = "Failed to process allocation %(uuid)s: %(error)s."


class NodeLocked(Conflict):
    _msg_fmt = ("Node %(node)s is locked by host %(host)s, please retry "
                "after the current operation is completed.")


class InvalidState(Conflict):
    _msg_fmt = "Invalid resource state."


class NodeNotLocked(Conflict):
    _msg_fmt = "Node %(node)s is not locked by host %(host)s."


class ConductorAlreadyRegistered(Conflict):
    _msg_fmt = "Conductor %(conductor)s is already registered and alive."


class NodeAssociated(Conflict):
    _msg_fmt = "Node %(node)s is associated with instance %(instance)s."


class NodeInWrongPowerState(Conflict):
    _msg_fmt = ("Can not change instance association while node %(node)s "
                "is in power state %(pstate)s.")


class NodeProtected(NotAuthorized):
    # Forbidden, not a conflict: the node is fine, the operator said no.
    _msg_fmt = ("Node %(node)s is protected and cannot be undeployed, "
                "rebuilt or deleted")


class VifAlreadyAttached(Conflict):
    _msg_fmt = ("Unable to attach the VIF: VIF %(vif)s is already attached "
                "to %(object_type)s %(object_uuid)s.")


class NoFreePhysicalPorts(Invalid):
    _msg_fmt = ("Unable to attach VIF %(vif)s: the node has no free port "
                "or port group left.")


class VifNotAttached(Invalid):
    _msg_fmt = ("Unable to detach VIF %(vif)s from node %(node)s: it is not "
                "attached to it.")


class TemporaryFailure(IronicException):
    _msg_fmt = "Resource temporarily unavailable, please retry."
    code = HTTPStatus.SERVICE_UNAVAILABLE
    safe = True


class NoFreeConductorWorker(TemporaryFailure):
    _msg_fmt = "Requested action cannot be performed due to lack of free conductor workers."


class ConcurrentActionLimit(TemporaryFailure):
    # The limit itself is not told: it would help whoever floods it.
    _msg_fmt = ("Unable to process request at this time. The concurrent "
                "action limit for %(task_type)s has been reached. Please "
                "contact your administrator and try again later.")


class NoValidHost(TemporaryFailure):
    _msg_fmt = "No conductor is available to handle %(reason)s."


class ConductorUnreachable(NoValidHost):
    """A conductor did not answer a call, nor the liveness check after it:
    taken for dead until its next heartbeat."""

    _msg_fmt = ("Conductor %(host)s did not answer within %(seconds)s "
                "seconds and is taken for dead; retry the request.")


class DependencyUnavailable(TemporaryFailure):
    """The database or the message bus does not answer (an outage)."""

    _msg_fmt = ("The %(dependency)s is unavailable at the moment; retry "
                "the request later.")


class HardwareInspectionFailure(IronicException):
    _msg_fmt = "Failed to inspect hardware. Reason: %(error)s"


class InspectionRuleNotFound(NotFound):
    _msg_fmt = "Rule %(rule)s could not be found."


class InspectionRuleAlreadyExists(Conflict):
    _msg_fmt = "A rule with UUID %(uuid)s already exists."


class InvalidInspectionRule(Invalid):
    """A rule (from the API or the built-in rules file) is malformed."""

    _msg_fmt = "%(reason)s"


class InspectionRuleExecutionFailure(HardwareInspectionFailure):
    """A rule could not be evaluated or applied during inspection."""

    _msg_fmt = "Inspection rule execution failed. Reason: %(reason)s"


class PowerStateFailure(IronicException):
    _msg_fmt = "Failed to set node power state to %(pstate)s."


class ConfigInvalid(IronicException):
    _msg_fmt = "Invalid configuration file. %(error_msg)s"


class DBError(IronicException):
    _msg_fmt = "Database error: %(reason)s"


class ConsoleError(IronicException):
    """A node's serial console could not be started or stopped."""

    _msg_fmt = "%(error)s"
    # Built from our own text and the console program's error output,
    # which never holds the BMC password (it travels in the environment).
    safe = True


class ConsoleSubprocessFailed(ConsoleError):
    _msg_fmt = "Console subprocess failed to start. %(error)s"
