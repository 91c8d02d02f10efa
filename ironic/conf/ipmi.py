"""Options of the [ipmi] group."""

from oslo_config import cfg

group = cfg.OptGroup("ipmi", title="IPMI options")

opts = [
    cfg.IntOpt("command_retry_timeout", default=60, min=1,
               help="Seconds during which a failing IPMI command is retried "
                    "when the BMC answers busy or times out."),
    cfg.FloatOpt("min_command_interval", default=5, min=0,
                 help="Least number of seconds between two IPMI commands "
                      "sent to the same BMC; many BMCs misbehave when "
                      "commands arrive back to back."),
    cfg.BoolOpt("use_ipmitool_retries", default=False,
                help="Let ipmitool retry by itself (-R/-N) instead of the "
                     "service retrying whole commands."),
    cfg.BoolOpt("kill_on_timeout", default=True,
                help="Kill an ipmitool process that outlives its time "
                     "budget."),
    cfg.BoolOpt("disable_boot_timeout", default=True,
                help="Disable the BMC's 60 second boot-flag timeout before "
                     "setting a boot device."),
    cfg.MultiStrOpt("additional_retryable_ipmi_errors", default=[],
                    help="Extra ipmitool error text after which a command "
                         "is retried; repeat the option for more."),
    cfg.BoolOpt("store_cred_in_env", default=False,
                help="Give the password to ipmitool in its environment "
                     "instead of a temporary file. Either way it never "
                     "appears on the command line."),
    cfg.BoolOpt("debug", default=False,
                help="Run ipmitool with -v and log its output."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
