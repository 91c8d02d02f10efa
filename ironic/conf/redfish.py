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
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
