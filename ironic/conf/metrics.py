"""Options of the [metrics] and [metrics_statsd] groups.

The service's own metrics (statsd timers under Ironic's names, and the
Prometheus endpoint), and what the ramdisk agent receives on lookup to
report its metrics.
"""

from oslo_config import cfg

group = cfg.OptGroup("metrics", title="Metrics options")
statsd_group = cfg.OptGroup("metrics_statsd", title="statsd metrics options")

_NAME_FORMAT = ("Metric names have the form "
                "[global_prefix.][host_name.]prefix.metric_name.")

service_opts = [
    cfg.StrOpt("backend", default="noop",
               choices=[("noop", "Send no statsd metrics."),
                        ("statsd", "Send timers and gauges to the statsd "
                                   "daemon of [metrics_statsd].")],
               help="Where the service sends its timers. The Prometheus "
                    "endpoint ([metrics]prometheus_port) works with either."),
    cfg.BoolOpt("prepend_host", default=False,
                help="Put this service's [DEFAULT]host in front of every "
                     "statsd metric name. " + _NAME_FORMAT),
    cfg.BoolOpt("prepend_host_reverse", default=True,
                help="With prepend_host, write the host name's labels in "
                     "reverse order (com.example.conductor1), as statsd "
                     "hierarchies usually group them."),
    cfg.StrOpt("global_prefix",
               help="A prefix for every statsd metric name. " + _NAME_FORMAT),
    cfg.PortOpt("prometheus_port",
                help="Serve Prometheus metrics (node counts per state, API, "
                     "RPC, step, lock and BMC call latencies, power sync "
                     "cycles) on this port at /metrics. Unset: no "
                     "listener. Each process needs a port of its own: on "
                     "one host, give ironic-api and each ironic-conductor "
                     "a different value."),
    cfg.HostAddressOpt("prometheus_host", default="127.0.0.1",
                       help="Address the Prometheus listener binds to. "
                            "The default keeps it on loopback; the "
                            "endpoint has no authentication."),
]

agent_opts = [
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

opts = service_opts + agent_opts

statsd_opts = [
    cfg.StrOpt("statsd_host", default="localhost",
               help="Host of the statsd daemon the service sends to "
                    "(UDP), with [metrics]backend = statsd."),
    cfg.PortOpt("statsd_port", default=8125,
                help="UDP port of that statsd daemon."),
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
