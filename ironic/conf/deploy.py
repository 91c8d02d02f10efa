"""Options of the [deploy] group: what deployments share.

Only what the service uses so far, under the public names.
"""

from oslo_config import cfg

group = cfg.OptGroup("deploy", title="Deployment options")

opts = [
    cfg.URIOpt("http_url", schemes=["http", "https"],
               help="Base URL of the conductor host's HTTP server, which "
                    "serves http_root (e.g. http://192.0.2.1:8080). iPXE "
                    "downloads its scripts, kernels and ramdisks from it."),
    cfg.StrOpt("http_root", default="/httpboot",
               help="Directory the conductor host's HTTP server serves; "
                    "the conductor writes iPXE scripts and per-node boot "
                    "files here and must be able to write to it."),
    cfg.StrOpt("default_boot_mode", default="uefi",
               choices=[("uefi", "UEFI firmware"),
                        ("bios", "legacy BIOS")],
               help="Boot mode assumed for a node that names none (in "
                    "instance_info/deploy_boot_mode, its boot_mode "
                    "capability or its detected boot_mode)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
