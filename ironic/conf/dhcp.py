"""Options of the [dhcp] group."""

from oslo_config import cfg

group = cfg.OptGroup("dhcp", title="DHCP provider options")

opts = [
    cfg.StrOpt("dhcp_provider", default="neutron",
               help="DHCP provider plugin (ironic.dhcp entry point), e.g. "
                    "'neutron', 'dnsmasq' or 'none'."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
