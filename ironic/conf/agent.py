"""Options of the [agent] group: talking to the ramdisk agent (IPA).

Only what the service uses so far; the names are the public ones so that
an operator's existing ironic.conf keeps its meaning.
"""

from oslo_config import cfg

group = cfg.OptGroup("agent", title="Ramdisk agent options")

opts = [
    cfg.BoolOpt("require_tls", default=False, mutable=True,
                help="Refuse heartbeats whose callback URL is not "
                     "https://: the conductor then only ever talks to the "
                     "agent over TLS."),
    cfg.StrOpt("certificates_path", default="$state_path/certificates",
               help="Directory where the TLS certificates agents send "
                    "with their heartbeats (agent_verify_ca) are kept, one "
                    "file per node."),
    cfg.BoolOpt("allow_md5_checksum", default=True,
                help="Let the agent verify images with MD5 checksums "
                     "(passed to it on lookup as "
                     "agent_md5_checksum_enable)."),
    cfg.BoolOpt("enable_bios_bootloader_install", default=False,
                help="Let the agent install a legacy BIOS boot loader "
                     "(grub-install) for partition images."),
    cfg.StrOpt("tls_minimum_version", default="1.3",
               choices=["1.2", "1.3"],
               help="Oldest TLS version the agent accepts on its own API."),
    cfg.StrOpt("tls_ciphers",
               help="TLS cipher suites the agent offers on its own API "
                    "(OpenSSL syntax); unset keeps the agent's default."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
