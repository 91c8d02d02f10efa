"""Hardware components that carry indicators, as the Bare Metal API names
them (``/v1/nodes/{node}/management/indicators/{indicator}@{component}``)."""

SYSTEM = "system"
"""The computer system (its front panel)."""
CHASSIS = "chassis"
"""The enclosure holding the system."""
DISK = "disk"
"""A storage drive."""
POWER = "power"
"""A power supply."""
NIC = "nic"
"""A network adapter."""

ALL = (SYSTEM, CHASSIS, DISK, POWER, NIC)
