"""Options of the [DEFAULT] group."""

import socket

from oslo_config import cfg
from oslo_utils import netutils

from ironic import interfaces

service_opts = [
    cfg.StrOpt("host", default=socket.gethostname(), sample_default="localhost",
               help="Name of this node, used as the conductor's hostname. "
                    "It must be unique among conductors."),
    cfg.StrOpt("my_ip", default=netutils.get_my_ipv4(),
               sample_default="127.0.0.1",
               help="IP address of this host as other machines reach it: "
                    "the default TFTP server address and API address "
                    "handed to network-booted ramdisks."),
    cfg.StrOpt("state_path", default="/var/lib/ironic",
               help="Directory where the service keeps its state "
                    "(the embedded sqlite database by default)."),
    cfg.StrOpt("auth_strategy", default="keystone",
               choices=[("noauth", "no authentication"),
                        ("keystone", "Identity service tokens"),
                        ("http_basic", "HTTP basic auth from an htpasswd file")],
               help="Authentication used by the API."),
    cfg.StrOpt("http_basic_auth_user_file", default="/etc/ironic/htpasswd",
               help="htpasswd file (bcrypt hashes) read when "
                    "auth_strategy is http_basic."),
    cfg.BoolOpt("rbac_service_role_elevated_access", default=False,
                help="Let callers with the service role in the project "
                     "named by rbac_service_project_name act on every node "
                     "as system-scoped callers do (the 'service_role' "
                     "policy rule); otherwise a service account sees only "
                     "its own project's nodes."),
    cfg.StrOpt("rbac_service_project_name", default="service",
               help="The project of the service accounts other services "
                    "use (see rbac_service_role_elevated_access)."),
    cfg.StrOpt("rpc_transport", default="oslo",
               choices=[("oslo", "oslo.messaging over transport_url"),
                        ("json-rpc", "JSON RPC over HTTP"),
                        ("none", "direct in-process calls (all-in-one only)")],
               help="How the API reaches the conductors."),
    cfg.StrOpt("default_portgroup_mode", default="active-backup",
               help="Bonding mode of new port groups that name none."),
    cfg.BoolOpt("debug_tracebacks_in_api", default=False,
                help="Return server tracebacks in API errors (debugging "
                     "only)."),
]

cluster_opts = [
    cfg.IntOpt("hash_partition_exponent", default=5, min=1, max=16,
               help="Each conductor takes 2**exponent points on the hash "
                    "ring; more points spread nodes more evenly."),
    cfg.IntOpt("hash_distribution_replicas", default=1, min=1,
               help="Conductors that can take over a node at once (the "
                    "first one owns it)."),
    cfg.IntOpt("hash_ring_reset_interval", default=15, min=0,
               help="Seconds a hash ring is cached before the conductors "
                    "table is read again."),
]

image_opts = [
    cfg.StrOpt("isolinux_bin", default="/usr/lib/syslinux/isolinux.bin",
               help="ISOLINUX boot loader put into ISO images built for "
                    "legacy BIOS virtual media boot. At its default, "
                    "Debian's /usr/lib/ISOLINUX/isolinux.bin (package "
                    "isolinux) is used when this one is missing."),
    cfg.StrOpt("ldlinux_c32",
               help="ldlinux.c32 module ISOLINUX loads; unset: looked for "
                    "in /usr/lib/syslinux/modules/bios and "
                    "/usr/share/syslinux."),
    cfg.StrOpt("grub_config_path", default="EFI/BOOT/grub.cfg",
               help="Path, inside the ISO images built for UEFI virtual "
                    "media boot, of the GRUB configuration the boot loader "
                    "of the EFI system partition image reads."),
    cfg.StrOpt("esp_image",
               help="Path of an EFI system partition image used when "
                    "neither the node nor [conductor]bootloader names "
                    "one."),
]

driver_opts = [
    cfg.ListOpt("enabled_hardware_types",
                default=["ipmi", "redfish"],
                help="Hardware types the conductors load and serve."),
    cfg.BoolOpt("force_raw_images", default=True, mutable=True,
                help="Convert an instance image the conductor serves to "
                     "the agent itself (file:// sources, "
                     "image_download_source local) to raw before serving "
                     "it, with qemu-img; the agent then streams it to the "
                     "disk. Only with [agent]stream_raw_images."),
]


def _interface_opts(kind: str, enabled: list[str], default_help: str
                    ) -> list[cfg.Opt]:
    return [
        cfg.ListOpt(f"enabled_{kind}_interfaces", default=enabled,
                    help=f"Enabled {kind} interface implementations. Every "
                         f"hardware type needs at least one it supports."),
        cfg.StrOpt(f"default_{kind}_interface",
                   help=f"{kind.capitalize()} interface given to new nodes "
                        f"that name none. {default_help}"),
    ]


_COMPUTED = ("When unset, the first enabled interface the node's hardware "
             "type supports, in the hardware type's order of preference.")

# The public defaults: a fresh install serves IPMI and Redfish machines.
# A conductor refuses to start while one of these cannot be loaded, so
# deployments without them (tests, fake-hardware labs) list their own.
_ENABLED_DEFAULTS = {
    "bios": ["no-bios", "redfish"],
    "boot": ["ipxe", "pxe", "redfish-virtual-media"],
    "console": ["no-console"],
    "deploy": ["direct", "ramdisk"],
    "firmware": ["no-firmware", "redfish"],
    "inspect": ["agent", "no-inspect", "redfish"],
    "management": ["ipmitool", "redfish"],
    "network": ["flat", "noop"],
    "power": ["ipmitool", "redfish"],
    "raid": ["agent", "no-raid", "redfish"],
    "rescue": ["no-rescue"],
    "storage": ["noop"],
    "vendor": ["ipmitool", "redfish", "no-vendor"],
}

for _kind in interfaces.TYPES:
    driver_opts.extend(_interface_opts(_kind, _ENABLED_DEFAULTS[_kind],
                                       _COMPUTED))


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(service_opts)
    conf.register_opts(driver_opts)
    conf.register_opts(image_opts)
    conf.register_opts(cluster_opts)
