"""PCI devices as the ramdisk reports them, for the hooks that read them.

The ``pci-devices`` collector of the agent puts a list of
``{"vendor_id", "product_id", "class", "revision", "bus"}`` (hex strings
without ``0x``) into the plugin data; out-of-band inspection may put the
same list into the inventory. Malformed entries are skipped.
"""

from __future__ import annotations

from typing import Any


def _hex_id(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower().removeprefix("0x")
    try:
        int(text, 16)
    except ValueError:
        return None
    return text


def devices(inventory: dict, plugin_data: dict) -> list[dict]:
    """Well-formed PCI devices, ids normalised to lower-case hex."""
    raw = plugin_data.get("pci_devices") or inventory.get("pci_devices")
    found = []
    for dev in raw if isinstance(raw, list) else ():
        if not isinstance(dev, dict):
            continue
        vendor = _hex_id(dev.get("vendor_id"))
        product = _hex_id(dev.get("product_id"))
        if vendor and product:
            found.append(dict(dev, vendor_id=vendor, product_id=product))
    return found
