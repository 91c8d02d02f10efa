"""Options of the [inspector] group: in-band inspection (the ``agent``
inspect interface) and the inspection hooks that process its data."""

from oslo_config import cfg

group = cfg.OptGroup("inspector", title="In-band inspection options")

ADD_PORTS = {
    "all": "all MAC addresses",
    "active": "MAC addresses of NICs with IP addresses",
    "pxe": "only the MAC address of the PXE NIC",
    "disabled": "do not create any ports",
}
KEEP_PORTS = {
    "all": "keep all ports, even ones with MAC addresses that are not "
           "present in the inventory",
    "present": "keep only ports with MAC addresses present in the "
               "inventory",
    "added": "keep only ports determined by the add_ports option",
}
# CPU flag -> capability set by the cpu-capabilities hook.
CPU_CAPABILITIES = {
    "vmx": "cpu_vt", "svm": "cpu_vt", "aes": "cpu_aes",
    "pse": "cpu_hugepages", "pdpe1gb": "cpu_hugepages_1g", "smx": "cpu_txt",
}

opts = [
    cfg.StrOpt("add_ports", default="pxe",
               choices=list(ADD_PORTS.items()),
               help="Which MAC addresses to add as ports during "
                    "inspection. With 'pxe' and no PXE interface known, "
                    "interfaces with an IP address are added."),
    cfg.StrOpt("keep_ports", default="all",
               choices=list(KEEP_PORTS.items()),
               help="Which ports (already present on a node) to keep "
                    "after inspection."),
    cfg.BoolOpt("update_pxe_enabled", default=True,
                help="Whether to update the pxe_enabled field of existing "
                     "ports according to the inspection data."),
    cfg.StrOpt("default_hooks",
               default="ramdisk-error,validate-interfaces,ports,"
                       "architecture",
               help="Comma-separated inspection hooks run by default. "
                    "Operators change 'hooks' rather than this."),
    cfg.StrOpt("hooks", default="$default_hooks",
               help="Comma-separated inspection hooks to run, in order; "
                    "add hooks around the defaults like "
                    "'pre-hook,$default_hooks,post-hook'."),
    cfg.DictOpt("cpu_capabilities", default=CPU_CAPABILITIES,
                help="CPU flag to the node capability the "
                     "cpu-capabilities hook sets when the flag is present."),
    cfg.ListOpt("physical_network_cidr_map", default=[],
                sample_default="10.10.10.0/24:physnet_a,"
                               "2001:db8::/64:physnet_b",
                help="IP network (CIDR) to physical network: the "
                     "physical-network hook sets the physical_network of "
                     "ports whose interface had an address in it."),
    cfg.BoolOpt("disk_partitioning_spacing", default=True,
                help="Leave 1 GiB of the root disk out of local_gb for "
                     "partitioning (root-device hook)."),
    cfg.BoolOpt("power_off", default=True,
                help="Power the node off when in-band inspection "
                     "finishes."),
    cfg.StrOpt("extra_kernel_params", default="",
               help="Extra kernel parameters (key=value separated by "
                    "spaces) given to the inspection ramdisk."),
    cfg.BoolOpt("require_managed_boot", default=True,
                help="Require the node's boot interface to prepare the "
                     "inspection ramdisk (managed inspection). Set to "
                     "False when a separate (i)PXE environment, such as "
                     "dnsmasq with ironic-pxe-filter, boots machines the "
                     "boot interface cannot prepare (for instance nodes "
                     "without ports): inspection then only sets network "
                     "boot and powers the node on."),
    cfg.StrOpt("known_accelerators",
               help="YAML file of the PCI devices the 'accelerators' "
                    "inspection hook recognises (a 'pci_devices' list of "
                    "vendor_id, device_id, type, device_info). Defaults "
                    "to the list shipped with the service."),
    cfg.BoolOpt("extra_hardware_strict", default=False,
                help="'extra-hardware' hook: refuse extra data with a "
                     "record that is not exactly four long, and drop "
                     "the raw 'data' even when it cannot be converted."),
    cfg.MultiStrOpt("pci_device_alias", default=[],
                    help="'pci-devices' hook: a PCI device alias as JSON, "
                         '{"vendor_id": "1234", "product_id": "5678", '
                         '"name": "pci_dev1"}; nodes get the capability '
                         "<name>:<count>. Repeat the option for more "
                         "aliases."),
    cfg.StrOpt("callback_endpoint_override",
               help="Base URL of this API the ramdisk posts inspection "
                    "data to (/v1/continue_inspection is appended); "
                    "defaults to [api]public_endpoint."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
