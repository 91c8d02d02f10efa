"""Options of the [pxe] group: network boot with PXE and iPXE.

The names are the public ones, so an existing ironic.conf keeps its
meaning. Templates left unset use the ones shipped in
``ironic/drivers/modules/*.template``.
"""

from oslo_config import cfg

group = cfg.OptGroup("pxe", title="PXE and iPXE boot options")

_TEMPLATE_HELP = (
    " Unset uses the built-in template. Templates are text with "
    "placeholders in double braces ({{kernel}}): kernel, ramdisk (as the "
    "boot loader fetches them), ramdisk_name, kernel_params, fetch_options "
    "(iPXE download options) and node_uuid; an unknown placeholder is an "
    "error.")

opts = [
    cfg.StrOpt("kernel_append_params", default="nofb vga=normal",
               deprecated_name="pxe_append_params", mutable=True,
               help="Kernel command line parameters added to every "
                    "network-booted kernel, before the parameters of the "
                    "agent."),
    cfg.StrOpt("tftp_server", default="$my_ip",
               help="Address of the TFTP server serving tftp_root, handed "
                    "to the machines by DHCP."),
    cfg.StrOpt("tftp_root", default="/tftpboot",
               help="Directory the TFTP server serves. The conductor "
                    "writes per-node boot files and PXE configurations "
                    "here and must be able to write to it."),
    cfg.StrOpt("tftp_master_path", default="/tftpboot/master_images",
               help="Cache of downloaded kernels and ramdisks that the "
                    "per-node files of the pxe boot interface are linked "
                    "from (ipxe keeps its cache in master_images under "
                    "[deploy]http_root, on the file system of its links). "
                    "Empty disables both caches: every node gets its own "
                    "download."),
    cfg.StrOpt("instance_master_path", default="$state_path/master_images",
               help="Cache of the instance images the conductor downloads, "
                    "checks and converts before serving them to the agent "
                    "(file:// sources, image_download_source local); "
                    "bounded by image_cache_size and image_cache_ttl. On "
                    "the file system of [deploy]http_root, the served "
                    "images are links, not copies."),
    cfg.IntOpt("image_cache_size", default=20480, min=0,
               help="Upper bound, in MiB, of each boot image cache (the "
                    "files in use count too). Unused images are evicted, "
                    "least recently used first, when it is exceeded."),
    cfg.IntOpt("image_cache_ttl", default=10080, min=0,
               help="Minutes after which an unused cached image is "
                    "evicted even when the cache is not full."),
    cfg.StrOpt("pxe_config_template", mutable=True,
               help="Template of the PXELINUX configuration written for a "
                    "node booting in legacy BIOS mode." + _TEMPLATE_HELP),
    cfg.StrOpt("uefi_pxe_config_template", mutable=True,
               help="Template of the GRUB configuration written for a node "
                    "booting in UEFI mode." + _TEMPLATE_HELP),
    cfg.StrOpt("ipxe_config_template", mutable=True,
               help="Template of the per-node iPXE script." +
                    _TEMPLATE_HELP),
    cfg.StrOpt("ipxe_boot_script",
               help="Template of the boot.ipxe script written to "
                    "[deploy]http_root, which iPXE firmware fetches first "
                    "and which chains to the script of the booting NIC's "
                    "MAC address. Unset uses the built-in one; "
                    "placeholders: {{config_dir}}, {{fallback}}."),
    cfg.StrOpt("ipxe_fallback_script",
               help="File name, under [deploy]http_root, of an iPXE "
                    "script boot.ipxe chains to when no script exists for "
                    "any NIC of the booting machine (e.g. inspector.ipxe "
                    "for unknown machines). Unset: the machine reboots."),
    cfg.IntOpt("ipxe_timeout", default=0, min=0,
               help="Seconds iPXE may spend downloading one kernel or "
                    "ramdisk; 0 means no limit."),
    cfg.StrOpt("pxe_config_subdir", default="pxelinux.cfg",
               help="Directory, under tftp_root (PXE) or http_root "
                    "(iPXE), of the per-MAC-address links to the node "
                    "configurations."),
    cfg.StrOpt("pxe_bootfile_name", default="pxelinux.0",
               help="Boot file DHCP hands to PXE firmware in legacy BIOS "
                    "mode."),
    cfg.StrOpt("uefi_pxe_bootfile_name", default="bootx64.efi",
               help="Boot file DHCP hands to PXE firmware in UEFI mode."),
    cfg.StrOpt("ipxe_bootfile_name", default="undionly.kpxe",
               help="iPXE image DHCP hands to PXE firmware in legacy "
                    "BIOS mode (chainloading iPXE)."),
    cfg.StrOpt("uefi_ipxe_bootfile_name", default="snponly.efi",
               help="iPXE image DHCP hands to PXE firmware in UEFI mode "
                    "(chainloading iPXE)."),
    cfg.IntOpt("dir_permission",
               help="Mode (octal, e.g. 0o755) given to the directories "
                    "created under tftp_root and http_root. Unset leaves "
                    "it to the process umask."),
    cfg.IntOpt("file_permission", default=0o644,
               help="Mode (octal) given to the boot files and "
                    "configurations written for the TFTP and HTTP "
                    "servers, which usually run as another user."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
