"""Sample documents the tests feed the service (data, not code).

``ipa_inspection_data.json`` is what the real ironic-python-agent posted to
``/v1/continue_inspection`` after inspecting a small virtual machine (one
virtio disk, one NIC with an address, BIOS boot).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def ipa_inspection_data() -> dict:
    """A fresh copy of the sample inspection data (tests may mutate it)."""
    with open(_HERE / "ipa_inspection_data.json", encoding="utf-8") as f:
        return copy.deepcopy(json.load(f))
