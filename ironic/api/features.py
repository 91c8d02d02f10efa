"""Named microversion features: what each part of the API needs.

A controller asks ``features.RESCUE.available(ver)`` instead of comparing
the request's minor version with a number, and a handler is bounded with
``@api_method(features.RUNBOOKS)``. Each feature names the minor version
that introduced it (and, for the few later removed, the last version that
still has it); ``versions.HISTORY`` lists every feature under the version
that introduced it (and the one that removed it), and unit tests keep the
two in step and find version comparisons written anywhere else.
"""

from __future__ import annotations

import dataclasses
import functools


@dataclasses.dataclass(frozen=True, eq=False)
class Since:
    """A feature of the API from minor version ``minor`` on, up to
    ``until`` (included) when a later version removed it again."""

    minor: int
    until: int | None = None

    def __post_init__(self) -> None:
        if self.minor < 1 or (self.until is not None
                              and self.until < self.minor):
            raise ValueError(f"Invalid microversion range {self.minor}.."
                             f"{self.until}")

    def available(self, version: int) -> bool:
        """Whether a request negotiated at minor ``version`` has it."""
        if version < self.minor:
            return False
        return self.until is None or version <= self.until

    @property
    def minors(self) -> tuple[int, ...]:
        """The versions that changed it: introduced, and removed if so."""
        if self.until is None:
            return (self.minor,)
        return (self.minor, self.until + 1)

    @property
    def version(self) -> str:
        """The introducing version as clients write it (``1.61``)."""
        return f"1.{self.minor}"


#: Every version has it (the handler is not bounded).
ALWAYS = Since(1)
#: The base version 1.1 only, which a request without a version header
#: gets: some endpoints keep an older form there (continue_inspection's
#: Inspector answer).
BASE_VERSION = Since(1, until=1)

# Nodes: states and identifiers.
AVAILABLE_STATE = Since(2)
NODE_NAMES = Since(5)
RFC3986_NAMES = Since(10)
ENROLL_ON_CREATE = Since(11)
INSPECT_WAIT = Since(39)
JSON_SUFFIX_IS_NAME = Since(91)

# Nodes: fields and sub-resources.
FIELDS_SELECTION = Since(8)
RAID = Since(12)
SUBRESOURCE_LINKS = Since(14)
TRAITS = Since(37)
UNSET_CHASSIS = Since(25)
SOFT_POWER = Since(27)
VIFS = Since(28)
INJECT_NMI = Since(29)
VOLUME = Since(32)
BIOS = Since(40)
RESET_INTERFACES = Since(45)
NODE_CONDUCTOR = Since(49)
NODE_ALLOCATION = Since(52)
INDICATORS = Since(63)
VIF_ATTACH_TO_PORT = Since(67)
BIOS_REGISTRY = Since(74)
BOOT_MODE = Since(75)
SET_BOOT_MODE = Since(76)
NODE_HISTORY = Since(78)
INVENTORY = Since(81)
CHILD_NODES = Since(83)
FIRMWARE = Since(86)
VMEDIA = Since(89)
VMEDIA_GET = Since(93)
HISTORY_PROJECT = Since(113)
FIRMWARE_IDENTITY = Since(114)
HISTORY_STATE = Since(115)

# Node list filters.
PROVISION_STATE_FILTER = Since(9)
DRIVER_FILTER = Since(16)
RESOURCE_CLASS = Since(21)
FAULT = Since(42)
CONDUCTOR_GROUP = Since(46)
OWNER = Since(50)
LESSEE = Since(65)
SHARDS = Since(82)
INSTANCE_NAME = Since(104)

# Provisioning verbs and their bodies.
MANAGE = Since(4)
INSPECT = Since(6)
ABORT = Since(13)
ADOPT = Since(17)
DEPLOY_ALIASES = Since(73)
UNHOLD = Since(85)
MANUAL_CLEANING = Since(15)
REBUILD_CONFIGDRIVE = Since(35)
RESCUE = Since(38)
ABORT_INSPECT_WAIT = Since(41)
BUILD_CONFIGDRIVE = Since(56)
CONFIGDRIVE_VENDOR_DATA = Since(59)
DEPLOY_STEPS = Since(69)
DISABLE_RAMDISK = Since(70)
SERVICE = Since(87)
RUNBOOKS = Since(92)
DISABLE_RAMDISK_SERVICE = Since(108)
ABORT_DEPLOY_WAIT = Since(110)
RUNBOOK_TRAITS = Since(112)

# Ports and portgroups.
LOCAL_LINK_CONNECTION = Since(19)
PORTGROUPS = Since(23)
PORTGROUP_SUBRESOURCES = Since(24)
DETAIL_PARAM = Since(43)
SMARTNIC = Since(53)
LLC_NETWORK_TYPE = Since(64)
PORT_NAME = Since(88)
LLC_VTEP = Since(90, until=104)
PORT_NODE_NAME = Since(94)
CONDUCTOR_GROUPS_FILTER = Since(99)
PORTGROUP_SHARD_FILTER = Since(106)

# Drivers.
HARDWARE_TYPES = Since(30)
STORAGE_INTERFACE = Since(33)
DRIVER_FIELDS = Since(77)

# Other resources.
CONDUCTORS = Since(49)
ALLOCATIONS = Since(52)
EVENTS = Since(54)
DEPLOY_TEMPLATES = Since(55)
ALLOCATION_UPDATE = Since(57)
ALLOCATION_BACKFILL = Since(58)
ALLOCATION_OWNER = Since(60)
INSPECTION_RULES = Since(96)

# The ramdisk's endpoints.
RAMDISK_LOOKUP = Since(22)
AGENT_VERSION = Since(36)
AGENT_TOKEN = Since(62)
AGENT_VERIFY_CA = Since(68)
AGENT_STATUS = Since(72)
CONTINUE_INSPECTION = Since(84)
AUTO_DISCOVERY = Since(84)


@functools.cache
def of_field(minor: int) -> Since:
    """The feature of a field its object declares by number (``since``):
    the field exists from that minor version on."""
    return Since(minor)


def all_features() -> dict[str, Since]:
    """Every named feature of this module, by name."""
    return {name: value for name, value in globals().items()
            if isinstance(value, Since) and name.isupper()}
