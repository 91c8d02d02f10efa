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
    conductor,
    console,
    database,
    default,
    deploy,
    dhcp,
    fake,
    inspection_rules,
    inspector,
    ipmi,
    metrics,
    pxe,
    redfish,
)

CONF = cfg.CONF

log.register_options(CONF)

default.register_opts(CONF)
api.register_opts(CONF)
conductor.register_opts(CONF)
console.register_opts(CONF)
database.register_opts(CONF)
dhcp.register_opts(CONF)
deploy.register_opts(CONF)
pxe.register_opts(CONF)
ipmi.register_opts(CONF)
redfish.register_opts(CONF)
fake.register_opts(CONF)
inspector.register_opts(CONF)
inspection_rules.register_opts(CONF)
agent.register_opts(CONF)
agent_containers.register_opts(CONF)
metrics.register_opts(CONF)
