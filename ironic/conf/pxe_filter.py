"""Options of the [pxe_filter] group: the ``ironic-pxe-filter`` process
that keeps a dnsmasq host directory in step with in-band inspection."""

from oslo_config import cfg

group = cfg.OptGroup("pxe_filter", title="PXE filter (dnsmasq) options")

opts = [
    cfg.StrOpt("dhcp_hostsdir",
               help="Directory of dnsmasq host files the PXE filter owns "
                    "(dnsmasq's dhcp-hostsdir). One file per MAC address "
                    "allows or ignores that NIC. Required by "
                    "ironic-pxe-filter; the directory must exist and be "
                    "writable by it."),
    cfg.ListOpt("supported_inspect_interfaces", default=["agent"],
                mutable=True,
                help="Inspect interfaces whose nodes in inspection may "
                     "boot from the filtered dnsmasq; other nodes' MACs "
                     "stay ignored."),
    cfg.IntOpt("sync_period", default=45, min=1, mutable=True,
               help="Seconds between two full synchronisations of the "
                    "host directory with the database. With "
                    "rpc_transport = none this is the longest time a "
                    "change of inspection takes to reach dnsmasq."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
