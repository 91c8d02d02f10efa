"""Options of the [redfish] group."""

from oslo_config import cfg

group = cfg.OptGroup("redfish", title="Redfish options")

opts = [
    cfg.IntOpt("connection_attempts", default=5, min=1,
               help="How many times to try reaching a Redfish BMC before "
                    "giving up."),
    cfg.IntOpt("connection_retry_interval", default=4, min=0,
               help="Seconds between two attempts to reach a BMC."),
    cfg.IntOpt("connection_cache_size", default=1000, min=0,
               help="Most BMC sessions kept open for reuse; 0 disables the "
                    "cache."),
    cfg.StrOpt("auth_type", default="auto",
               choices=[("basic", "HTTP basic auth on every request"),
                        ("session", "Redfish session tokens"),
                        ("auto", "sessions when the BMC has them, else "
                                 "basic")],
               help="Default Redfish authentication, overridable per node "
                    "by driver_info/redfish_auth_type."),
    cfg.BoolOpt("use_swift", default=True, mutable=True,
                help="Upload the ISO images built for virtual media to "
                     "Swift. This service has no Swift client: set it to "
                     "false so images are served from [deploy]http_root "
                     "(nodes that need a built ISO fail validation while "
                     "it is true)."),
    cfg.StrOpt("swift_container", default="ironic_redfish_container",
               mutable=True,
               help="Swift container of the built images (only with "
                    "use_swift, which this service does not support)."),
    cfg.IntOpt("swift_object_expiry_timeout", default=900, mutable=True,
               help="Seconds after which Swift objects expire (only with "
                    "use_swift, which this service does not support)."),
    cfg.StrOpt("kernel_append_params", default="nofb nomodeset vga=normal",
               mutable=True,
               help="Kernel command line of the ramdisks booted from the "
                    "ISO images this service builds for virtual media, "
                    "before the agent's own parameters. A node's "
                    "driver_info/kernel_append_params replaces it "
                    "(%default% in it stands for this value)."),
    cfg.IntOpt("file_permission", default=0o644,
               help="Permission bits (octal, e.g. 0o644) of the ISO images "
                    "published under [deploy]http_root; the web server "
                    "must be able to read them."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
