"""Options of the [oci] group: disk images in OCI container registries."""

from oslo_config import cfg

group = cfg.OptGroup("oci", title="OCI container registry images")

opts = [
    cfg.BoolOpt("permit_fallback_to_http_transport", default=False,
                mutable=True,
                help="Reach an oci:// image's registry over plain http "
                     "when https cannot connect (a registry without TLS, "
                     "e.g. in a lab)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
