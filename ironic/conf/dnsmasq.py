"""Options of the [dnsmasq] group: the ``dnsmasq`` DHCP provider
(``[dhcp]dhcp_provider = dnsmasq``) writing files an external dnsmasq
reads."""

from oslo_config import cfg

group = cfg.OptGroup("dnsmasq", title="dnsmasq DHCP provider options")

opts = [
    cfg.StrOpt("dhcp_optsdir", default="/etc/dnsmasq.d/optsdir.d",
               help="Directory the provider writes one option file per "
                    "node into (boot file, TFTP server); dnsmasq's "
                    "dhcp-optsdir must name the same directory."),
    cfg.StrOpt("dhcp_hostsdir", default="/etc/dnsmasq.d/hostsdir.d",
               help="Directory the provider writes one host file per boot "
                    "NIC into, tagging the NIC with its node; dnsmasq's "
                    "dhcp-hostsdir must name the same directory."),
    cfg.StrOpt("dhcp_leasefile", default="/var/lib/dnsmasq/dnsmasq.leases",
               help="dnsmasq's lease file (dhcp-leasefile), read to find "
                    "the IP addresses of a node's NICs."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
