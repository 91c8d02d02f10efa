"""Indicator state mapping and drive discovery (sushy mocked)."""

from unittest import mock

import pytest
import sushy

from ironic.common import components, exception
from ironic.drivers.modules import redfish_indicators


@pytest.mark.parametrize("led,state", [
    (sushy.INDICATOR_LED_LIT, "ON"), (sushy.INDICATOR_LED_OFF, "OFF"),
    (sushy.INDICATOR_LED_BLINKING, "BLINKING"),
    (sushy.INDICATOR_LED_UNKNOWN, "UNKNOWN")])
def test_states_map_to_the_api_names(led, state):
    assert redfish_indicators.state_of(mock.Mock(indicator_led=led)) == state


def test_set_sends_the_redfish_value():
    resource = mock.Mock()
    redfish_indicators.set_state(resource, "BLINKING")
    resource.set_indicator_led.assert_called_once_with(
        sushy.INDICATOR_LED_BLINKING)
    with pytest.raises(exception.InvalidParameterValue):
        redfish_indicators.set_state(resource, "UNKNOWN")


def test_resources_without_led_and_failing_storage_are_skipped():
    system = mock.Mock(indicator_led=None, chassis=[])
    system.storage.get_members.side_effect = sushy.exceptions.SushyError()
    assert redfish_indicators.supported(system, None) == {}
    assert redfish_indicators.resources(system, components.NIC) == []
