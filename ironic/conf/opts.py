"""Option listing for oslo-config-generator (entry point oslo.config.opts)."""

from oslo_config import cfg

from ironic import conf


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    return [
        ("DEFAULT", conf.default.service_opts + conf.default.driver_opts
         + conf.default.cluster_opts + conf.default.image_opts),
        ("agent", conf.agent.opts),
        ("agent_containers", conf.agent_containers.opts),
        ("api", conf.api.opts),
        ("auto_discovery", conf.auto_discovery.opts),
        ("conductor", conf.conductor.opts),
        ("console", conf.console.opts),
        ("coordination", conf.coordination.opts),
        # oslo.db's own options come from its namespace in the generator
        # config; listing them here too would print each of them twice.
        ("database", conf.database.opts),
        ("deploy", conf.deploy.opts),
        ("dhcp", conf.dhcp.opts),
        ("dnsmasq", conf.dnsmasq.opts),
        ("fake", conf.fake.opts),
        ("inspection_rules", conf.inspection_rules.opts),
        ("inspector", conf.inspector.opts),
        ("ipmi", conf.ipmi.opts),
        ("metrics", conf.metrics.opts),
        ("metrics_statsd", conf.metrics.statsd_opts),
        ("oci", conf.oci.opts),
        ("pxe", conf.pxe.opts),
        ("pxe_filter", conf.pxe_filter.opts),
        ("redfish", conf.redfish.opts),
        ("service_catalog", conf.service_catalog.opts),
        ("ssl", conf.ssl.opts),
    ]


def update_opt_defaults() -> None:
    """Library defaults the service changes (oslo.config.opts.defaults).

    The sample generator calls this so the sample shows what the service
    really uses, not the library's own default.
    """
    import oslo_messaging

    oslo_messaging.set_transport_defaults(control_exchange="ironic")
