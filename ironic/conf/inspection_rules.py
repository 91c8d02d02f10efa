"""Options of the [inspection_rules] group: rules applied to inspection
data (API 1.96)."""

from oslo_config import cfg

group = cfg.OptGroup("inspection_rules", title="Inspection rules options")

opts = [
    cfg.StrOpt("built_in_rules", mutable=True,
               help="Path to a YAML file with a list of built-in "
                    "inspection rules. They run with the rules stored "
                    "through the API (before those of equal priority), may "
                    "use any priority, and cannot be changed through the "
                    "API."),
    cfg.StrOpt("mask_secrets", default="always",
               choices=[("always", "rules never see secrets"),
                        ("never", "rules see everything"),
                        ("sensitive", "only rules marked sensitive see "
                                      "secrets")],
               help="Whether secrets (passwords, tokens) in the inspection "
                    "data are masked for the rules reading it."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
