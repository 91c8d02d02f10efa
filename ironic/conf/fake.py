"""Options of the [fake] group: delays of the fake interfaces.

The fake interfaces finish at once by default. For scale and functional
testing an operator can make them take time, like real hardware does: a
delay is a number of seconds, or two comma-separated numbers for a random
delay between them, weighted towards the first.
"""

from oslo_config import cfg

group = cfg.OptGroup("fake", title="Fake interfaces")

_KINDS = ("power", "boot", "deploy", "vendor", "management", "inspect",
          "raid", "bios", "storage", "rescue", "firmware")

opts = [
    cfg.StrOpt(f"{kind}_delay", default="0",
               help=f"Delay in seconds of operations of the fake {kind} "
                    f"interface that block on real hardware: one value, or "
                    f"'low,high' for a random delay weighted on low.")
    for kind in _KINDS
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
