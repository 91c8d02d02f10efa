"""Options of the [agent] group: talking to the ramdisk agent (IPA).

Only what the service uses so far; the names are the public ones so that
an operator's existing ironic.conf keeps its meaning. The command options
(timeouts, attempts, TLS verification) are read by
``ironic.drivers.modules.agent_client``.
"""

from oslo_config import cfg

group = cfg.OptGroup("agent", title="Ramdisk agent options")

opts = [
    cfg.BoolOpt("require_tls", default=True, mutable=True,
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
    cfg.StrOpt("agent_api_version", default="v1",
               help="Version prefix of the agent's own API in command URLs "
                    "(<callback_url>/<version>/commands/)."),
    cfg.IntOpt("command_timeout", default=60, min=1, mutable=True,
               help="Seconds to wait for the agent to answer one HTTP "
                    "request. The node stays locked meanwhile, so a long "
                    "value holds conductor workers when agents are "
                    "unreachable."),
    cfg.IntOpt("max_command_attempts", default=3, min=1,
               help="How many times a command is sent when the agent "
                    "cannot be reached (connection refused, reset, "
                    "timeout) before the command fails."),
    cfg.IntOpt("command_wait_attempts", default=100, min=1,
               help="How many times the conductor asks the agent for the "
                    "status of a command it waits for in place (for "
                    "example installing the boot loader) before giving "
                    "up."),
    cfg.IntOpt("command_wait_interval", default=6, min=0,
               help="Seconds between two such status requests."),
    cfg.StrOpt("verify_ca", default="True",
               help="How the conductor checks the agent's TLS certificate "
                    "on https:// callback URLs: True for the system CA "
                    "store, False to skip the check, or the path of a CA "
                    "bundle. A certificate the agent sent with its "
                    "heartbeat (agent_verify_ca) takes precedence."),
    cfg.BoolOpt("stream_raw_images", default=True, mutable=True,
                help="Let the agent write raw images straight to the disk "
                     "while downloading them instead of first keeping a "
                     "copy in its memory."),
    cfg.StrOpt("image_download_source", default="http", mutable=True,
               choices=[("swift", "object storage temporary URLs (not "
                                  "available: refused at deployment)"),
                        ("http", "the agent downloads an http(s) image "
                                 "from its URL and checks it itself"),
                        ("local", "the conductor downloads, checks (and "
                                  "converts) the image and serves it from "
                                  "[deploy]http_url")],
               help="Where the agent gets the instance image from. A "
                    "node's instance_info or driver_info "
                    "image_download_source overrides it; file:// images "
                    "are always served by the conductor."),
    cfg.StrOpt("deploy_logs_collect", default="on_failure", mutable=True,
               choices=[("always", "after every deployment, cleaning and "
                                   "servicing in the agent, and on "
                                   "failures"),
                        ("on_failure", "when a step in the agent fails"),
                        ("never", "never")],
               help="When the conductor asks the agent for its system logs "
                    "(log.collect_system_logs) and stores them."),
    cfg.StrOpt("deploy_logs_storage_backend", default="local",
               mutable=True,
               choices=[("local", "files under deploy_logs_local_path"),
                        ("swift", "object storage (not available: the "
                                  "conductor refuses to start)")],
               help="Where collected agent logs are stored."),
    cfg.StrOpt("deploy_logs_local_path", default="/var/log/ironic/deploy",
               mutable=True,
               help="Directory of the collected agent logs, one "
                    "<node uuid>[_<name>][_<instance uuid>][_<label>]_"
                    "<time>.tar.gz file per collection."),
    cfg.IntOpt("post_deploy_get_power_state_retries", default=6, min=0,
               help="After asking the agent to power the node off at the "
                    "end of a deployment, how many more times the power "
                    "state is read before the node is powered off out of "
                    "band."),
    cfg.IntOpt("post_deploy_get_power_state_retry_interval", default=5,
               min=0,
               help="Seconds between those power state reads."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
