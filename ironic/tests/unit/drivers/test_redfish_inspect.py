"""redfish_inspect: the boot mode found goes into the capabilities."""

from ironic.drivers.modules import redfish_inspect


def test_boot_mode_is_added_to_capabilities():
    assert redfish_inspect._with_boot_mode(None, "uefi") == "boot_mode:uefi"
    assert redfish_inspect._with_boot_mode("secure_boot:true", "bios") == \
        "secure_boot:true,boot_mode:bios"


def test_boot_mode_set_by_the_operator_is_kept():
    caps = "boot_mode:bios,iscsi_boot:true"
    assert redfish_inspect._with_boot_mode(caps, "uefi") == caps
