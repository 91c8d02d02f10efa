"""Options of the [console] group: serial consoles served by socat."""

from __future__ import annotations

from oslo_config import cfg, types

group = cfg.OptGroup("console", title="Serial console options")


def _bounds(text: str) -> tuple[int, int]:
    """(first, last) of ``<first>:<last>``; ValueError when it is not a
    range of TCP ports with first not above last."""
    parts = text.split(":")
    if len(parts) != 2:
        raise ValueError("expected <first>:<last>, got %r" % text)
    try:
        first, last = int(parts[0]), int(parts[1])
    except ValueError:
        raise ValueError("port numbers must be integers, got %r"
                         % text) from None
    if not 1 <= first <= last <= 65535:
        raise ValueError("expected 1 <= first <= last <= 65535, got %r"
                         % text)
    return first, last


class PortRange(types.String):
    """``<first>:<last>``, both TCP ports, first not above last."""

    def __init__(self):
        super().__init__(type_name="port range")

    def __call__(self, value):
        text = super().__call__(value)
        _bounds(text)
        return text


opts = [
    cfg.StrOpt("terminal_pid_dir",
               help="Directory holding the pid files of the console "
                    "processes; the system temporary directory when "
                    "unset."),
    cfg.IntOpt("terminal_timeout", default=600, min=0,
               help="Seconds of inactivity after which a console client "
                    "is disconnected; 0 never disconnects."),
    cfg.IntOpt("subprocess_checking_interval", default=1, min=0,
               help="Seconds between two checks of a console process that "
                    "is starting."),
    cfg.IntOpt("subprocess_timeout", default=10, min=1,
               help="Seconds a console process may take to start "
                    "listening before starting it counts as failed."),
    cfg.IntOpt("kill_timeout", default=1, min=0,
               help="Seconds a console process gets to exit after SIGTERM "
                    "before it is sent SIGKILL."),
    cfg.IPOpt("socat_address", default="$my_ip",
              help="IP address the socat console processes listen on."),
    cfg.Opt("port_range", type=PortRange(),
            help="Range of TCP ports, <first>:<last> (both included), from "
                 "which a console port is chosen for a node whose "
                 "driver_info has none. Unset: every node needs its own "
                 "port in driver_info."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def port_range(conf: cfg.ConfigOpts) -> range | None:
    """The configured console ports as a range, or None when unset."""
    text = conf.console.port_range
    if not text:
        return None
    first, last = _bounds(text)
    return range(first, last + 1)
