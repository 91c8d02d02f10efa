"""redfish_vmedia.describe (API 1.93's GET), sushy mocked."""

from unittest import mock

import pytest
import sushy

from ironic.common import exception
from ironic.drivers.modules import redfish_vmedia


def _system(*drives):
    system = mock.Mock()
    system.virtual_media.get_members.return_value = list(drives)
    return system


def test_media_types_by_their_redfish_names():
    cd = mock.Mock(media_types=[sushy.VIRTUAL_MEDIA_CD,
                                sushy.VIRTUAL_MEDIA_DVD],
                   inserted=True, image="http://x/boot.iso")
    usb = mock.Mock(media_types=None, inserted=None, image=None)
    assert redfish_vmedia.describe(_system(cd, usb)) == [
        {"media_types": ["CD", "DVD"], "inserted": True,
         "image": "http://x/boot.iso"},
        {"media_types": [], "inserted": False, "image": ""}]


def test_a_bmc_without_virtual_media_is_the_callers_problem():
    system = mock.Mock()
    type(system).virtual_media = mock.PropertyMock(
        side_effect=sushy.exceptions.MissingAttributeError(
            attribute="VirtualMedia", resource="/redfish/v1/Systems/1"))
    with pytest.raises(exception.InvalidParameterValue):
        redfish_vmedia.describe(system)


def test_a_failing_bmc_is_reported():
    system = mock.Mock()
    system.virtual_media.get_members.side_effect = \
        sushy.exceptions.ConnectionError(url="u", error="down")
    with pytest.raises(exception.IronicException, match="listing failed"):
        redfish_vmedia.describe(system)
