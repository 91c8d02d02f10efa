"""The ``example-hw`` hardware type: our power switch, ironic's fakes.

It reuses in-tree interfaces by class (the fake ones, so it runs without
hardware) and adds its own power interface.
"""

from __future__ import annotations

from ironic.drivers import fake_hardware
from ironic_example_hw import power


class ExampleHardware(fake_hardware.FakeHardware):
    # Only what is listed: no "any enabled interface" shortcut here.
    accepts_any_enabled = False
    supported_power_interfaces = [power.ExamplePower]
