"""Options of the [service_catalog] group: how ramdisks reach the API.

Only ``endpoint_override``: this service takes no endpoint from a Keystone
catalog; the URL given to the ramdisk agent (``ipa-api-url``) and used by
it to look up and heartbeat is this option when set.
"""

from oslo_config import cfg

group = cfg.OptGroup("service_catalog",
                     title="The Bare Metal API as ramdisks reach it")

opts = [
    cfg.URIOpt("endpoint_override", schemes=["http", "https"],
               help="URL of the Bare Metal API given to ramdisk agents "
                    "(ipa-api-url, the virtual media parameters), which "
                    "they call back for lookup, heartbeats and inspection "
                    "data. Unset: [api]public_endpoint, else the address "
                    "the API listens on ([DEFAULT]my_ip for a wildcard "
                    "address)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
