"""Options of the [metrics] and [metrics_statsd] groups.

So far only the agent's share: the ramdisk receives these on lookup and
reports its own metrics accordingly.
"""

from oslo_config import cfg

group = cfg.OptGroup("metrics", title="Metrics options")
statsd_group = cfg.OptGroup("metrics_statsd", title="statsd metrics options")

opts = [
    cfg.StrOpt("agent_backend", default="noop", choices=["noop", "statsd"],
               help="Metrics backend of the ramdisk agent."),
    cfg.BoolOpt("agent_prepend_host", default=False,
                help="Prefix the agent's metric names with its host name."),
    cfg.BoolOpt("agent_prepend_uuid", default=False,
                help="Prefix the agent's metric names with the node UUID."),
    cfg.BoolOpt("agent_prepend_host_reverse", default=True,
                help="Reverse the host name's labels when it prefixes the "
                     "agent's metric names."),
    cfg.StrOpt("agent_global_prefix",
               help="Prefix of every metric name the agent reports."),
]

statsd_opts = [
    cfg.StrOpt("agent_statsd_host", default="localhost",
               help="statsd host the agent reports to."),
    cfg.PortOpt("agent_statsd_port", default=8125,
                help="statsd port the agent reports to."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
    conf.register_group(statsd_group)
    conf.register_opts(statsd_opts, group=statsd_group)
