"""Option listing for oslo-config-generator (entry point oslo.config.opts)."""

from oslo_config import cfg

from ironic.conf import (
    agent,
    agent_containers,
    api,
    auto_discovery,
    conductor,
    console,
    coordination,
    database,
    default,
    deploy,
    dhcp,
    dnsmasq,
    fake,
    inspection_rules,
    inspector,
    ipmi,
    metrics,
    oci,
    pxe,
    pxe_filter,
    redfish,
    service_catalog,
    ssl,
)


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    return [
        ("DEFAULT", default.service_opts + default.driver_opts
         + default.cluster_opts + default.image_opts),
        ("agent", agent.opts),
        ("agent_containers", agent_containers.opts),
        ("api", api.opts),
        ("auto_discovery", auto_discovery.opts),
        ("conductor", conductor.opts),
        ("console", console.opts),
        ("coordination", coordination.opts),
        # oslo.db's own options come from its namespace in the generator
        # config; listing them here too would print each of them twice.
        ("database", database.opts),
        ("deploy", deploy.opts),
        ("dhcp", dhcp.opts),
        ("dnsmasq", dnsmasq.opts),
        ("fake", fake.opts),
        ("inspection_rules", inspection_rules.opts),
        ("inspector", inspector.opts),
        ("ipmi", ipmi.opts),
        ("metrics", metrics.opts),
        ("metrics_statsd", metrics.statsd_opts),
        ("oci", oci.opts),
        ("pxe", pxe.opts),
        ("pxe_filter", pxe_filter.opts),
        ("redfish", redfish.opts),
        ("service_catalog", service_catalog.opts),
        ("ssl", ssl.opts),
    ]


def update_opt_defaults() -> None:
    """Library defaults the service changes (oslo.config.opts.defaults).

    The sample generator calls this so the sample shows what the service
    really uses, not the library's own default.
    """
    import oslo_messaging

    oslo_messaging.set_transport_defaults(control_exchange="ironic")
