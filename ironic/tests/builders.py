"""Builders of database rows with sensible defaults, for tests."""

from __future__ import annotations

from typing import Any

from ironic.common import states
from ironic.objects.node import Node


def make_node(**values: Any) -> Node:
    values.setdefault("driver", "fake-hardware")
    values.setdefault("provision_state", states.ENROLL)
    values.setdefault("power_state", states.POWER_OFF)
    node = Node(**values)
    node.create()
    return node
