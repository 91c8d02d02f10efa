"""Values of a node's ``fault`` field: why Ironic itself put it in
maintenance (None when it did not)."""

POWER_FAILURE = "power failure"
"""The power state could not be read from the BMC, repeatedly."""

CLEAN_FAILURE = "clean failure"
"""Cleaning failed badly enough that the node must not be used."""

RESCUE_ABORT_FAILURE = "rescue abort failure"
"""Cleaning up after an aborted rescue failed."""

SERVICE_FAILURE = "service failure"
"""A service operation failed."""
