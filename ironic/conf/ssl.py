"""Options of the [ssl] group: the HTTPS API's files, as oslo.service
named them (``[api]cert_file`` and ``key_file`` take precedence)."""

from oslo_config import cfg

group = cfg.OptGroup("ssl", title="TLS of the API service")

opts = [
    cfg.StrOpt("cert_file",
               help="Certificate (PEM) of the HTTPS API, when "
                    "[api]cert_file is unset."),
    cfg.StrOpt("key_file",
               help="Private key (PEM) of the HTTPS API, when "
                    "[api]key_file is unset."),
    cfg.StrOpt("ca_file",
               help="CA bundle (PEM) that client certificates must be "
                    "signed by: when set, the HTTPS API refuses clients "
                    "without one."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
