"""A lab machine's hardware as ironic-python-agent sees it.

The agent runs on the host, so left alone it would report the host's
disks and NICs and could pick the host's own disk as the one to erase or
deploy to. This manager ranks above the generic one and reports instead:

* one disk, a regular file (IRONIC_LAB_DISK) standing in for the lab
  machine's disk: inventory, root device, cleaning and deploying all use
  it, and erasing its metadata zeroes its first and last MiB in Python
  (the stock way runs wipefs/sgdisk/dd on a block device);
* one NIC with the lab machine's MAC (IRONIC_LAB_MAC), so that lookup
  and inspection find the node whose port carries that address;
* no BMC address, which the host does not have;
* its automatic TLS certificate in the machine's directory (next to the
  disk file) instead of /run/ironic-python-agent, which several machines
  on one host would share and an unprivileged agent cannot create.
"""

import os

from ironic_python_agent import errors, hardware, netutils, tls_utils

MIB = 1024 * 1024


def _disk_path():
    return os.environ["IRONIC_LAB_DISK"]


class LabMachineHardwareManager(hardware.GenericHardwareManager):
    HARDWARE_MANAGER_NAME = "LabMachineHardwareManager"
    HARDWARE_MANAGER_VERSION = "1.0"

    def evaluate_hardware_support(self):
        return hardware.HardwareSupport.SERVICE_PROVIDER

    def initialize(self):
        # The generic initialisation assembles RAID, loads kernel modules
        # and waits for the host's disks: none of that is this machine's.
        pass

    def list_network_interfaces(self):
        # Its address is for show (the agent is reached on loopback), but
        # not a loopback one: inspection ignores loopback interfaces. From
        # TEST-NET-1 (RFC 5737), so it never routes anywhere.
        mac = os.environ["IRONIC_LAB_MAC"]
        return [hardware.NetworkInterface(
            "eth0", mac, ipv4_address=f"192.0.2.{int(mac[-2:], 16) % 254 + 1}",
            has_carrier=True)]

    def list_block_devices(self, include_partitions=False,
                           all_serial_and_wwn=False):
        path = _disk_path()
        return [hardware.BlockDevice(
            name=path, model="lab file disk", size=os.path.getsize(path),
            rotational=False, serial=os.path.basename(path),
            logical_sectors=512, physical_sectors=512)]

    def get_os_install_device(self, permit_refresh=False):
        return _disk_path()

    def get_bmc_address(self):
        return None

    def get_bmc_v6address(self):
        return None

    def get_bmc_mac(self):
        raise errors.IncompatibleHardwareMethodError()

    def generate_tls_certificate(self, ip_address):
        root = os.path.dirname(_disk_path())
        cert, key = (os.path.join(root, "agent.crt"),
                     os.path.join(root, "agent.key"))
        text = tls_utils._generate_tls_certificate(
            cert, key, netutils.get_hostname(), ip_address)
        return tls_utils.TlsCertificate(text, cert, key)

    def erase_devices_metadata(self, node, ports):
        path = _disk_path()
        size = os.path.getsize(path)
        zeros = bytes(min(MIB, size))
        with open(path, "r+b") as disk:
            disk.write(zeros)
            disk.seek(max(0, size - len(zeros)))
            disk.write(zeros)
            disk.flush()
            os.fsync(disk.fileno())
