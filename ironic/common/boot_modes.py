"""Boot mode names of the Bare Metal API."""

LEGACY_BIOS = "bios"
UEFI = "uefi"
