"""Options of the [dhcp] group."""

from oslo_config import cfg

group = cfg.OptGroup("dhcp", title="DHCP provider options")

opts = [
    # Ironic's default is 'neutron', a provider this service does not
    # have: with it, every network boot failed until the option was set.
    cfg.StrOpt("dhcp_provider", default="none",
               help="DHCP provider plugin (ironic.dhcp entry point): "
                    "'dnsmasq' (an external dnsmasq reading host files "
                    "written by the conductor) or 'none' (the DHCP server "
                    "is configured by other means). 'neutron' is accepted "
                    "only when a plugin of that name is installed."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
