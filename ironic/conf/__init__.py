"""All configuration options, registered on one global ConfigOpts.

Each option group lives in its own module; importing this package registers
all of them so any module can simply ``from ironic.conf import CONF``.
"""

from oslo_config import cfg
from oslo_log import log

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

CONF = cfg.CONF

log.register_options(CONF)

default.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
console.register_opts(CONF)
coordination.register_opts(CONF)
database.register_opts(CONF)
dhcp.register_opts(CONF)
dnsmasq.register_opts(CONF)
auto_discovery.register_opts(CONF)
pxe_filter.register_opts(CONF)
deploy.register_opts(CONF)
pxe.register_opts(CONF)
ipmi.register_opts(CONF)
redfish.register_opts(CONF)
fake.register_opts(CONF)
service_catalog.register_opts(CONF)
oci.register_opts(CONF)
inspector.register_opts(CONF)
inspection_rules.register_opts(CONF)
agent.register_opts(CONF)
agent_containers.register_opts(CONF)
metrics.register_opts(CONF)
ssl.register_opts(CONF)
