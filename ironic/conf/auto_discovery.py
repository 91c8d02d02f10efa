"""Options of the [auto_discovery] group: enrolling machines that post
inspection data but match no node."""

from oslo_config import cfg

group = cfg.OptGroup("auto_discovery", title="Auto-discovery options")

opts = [
    cfg.BoolOpt("enabled", default=False, mutable=True,
                help="Enroll a new node for inspection data that matches "
                     "no node at all. Any machine able to reach the "
                     "inspection callback is then enrolled; [auto_discovery]"
                     "driver must be set too."),
    cfg.StrOpt("driver", mutable=True,
               help="Hardware type of auto-discovered nodes; required when "
                    "auto-discovery is enabled."),
    cfg.StrOpt("inspection_scope",
               help="Accepted for compatibility: the inspection scope of "
                    "auto-discovered nodes. Nothing reads it yet."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
