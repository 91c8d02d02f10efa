"""Options of the [conductor] group."""

from oslo_config import cfg

group = cfg.OptGroup("conductor", title="Conductor options")


def _timeout(name: str, what: str, default: int = 1800) -> cfg.Opt:
    return cfg.IntOpt(name, default=default, min=0,
                      help=f"Seconds a node may wait for {what} before "
                           f"the operation fails; 0 waits forever.")


def _image(name: str, what: str, ramdisk: str) -> cfg.Opt:
    return cfg.StrOpt(name, mutable=True,
                      help=f"http(s):// or file:// URL of the {what} of the "
                           f"{ramdisk} ramdisk booted over the network, for "
                           f"nodes whose driver_info names none.")


opts = [
    cfg.StrOpt("conductor_group", default="",
               help="Name of the conductor group this conductor belongs "
                    "to; it serves only nodes of the same group."),
    cfg.IntOpt("heartbeat_interval", default=10, min=1,
               help="Seconds between two heartbeats of a conductor."),
    cfg.IntOpt("heartbeat_timeout", default=60, min=2,
               help="Seconds after its last heartbeat when a conductor is "
                    "considered dead and its nodes are taken over."),
    cfg.FloatOpt("rpc_liveness_timeout", default=3.0, min=0,
                 help="Seconds a caller (the API) waits for a conductor's "
                      "answer before checking, with an RPC ping bounded by "
                      "the same seconds, that the conductor is alive. A "
                      "conductor that does not answer the ping is taken "
                      "for dead: the request fails at once with 503 and "
                      "the caller sends the next requests for its nodes "
                      "to the conductor the hash ring names next, until "
                      "the dead one heartbeats again. One that answers "
                      "keeps the call waiting up to rpc_response_timeout. "
                      "0 disables the check. Needs the oslo.messaging "
                      "ping ([DEFAULT]rpc_ping_enabled, which Ironic turns "
                      "on)."),
    cfg.IntOpt("message_bus_max_retries", default=30, min=-1,
               help="Failed checks in a row of the message bus (a "
                    "connection to the broker of transport_url) after which "
                    "a conductor gives up: it logs one line, hands its work "
                    "over and exits with status 75 so that its supervisor "
                    "restarts it. The checks are "
                    "[oslo_messaging_rabbit]rabbit_retry_interval seconds "
                    "apart. -1 retries forever. The database has the same "
                    "through oslo.db's [database]max_retries and "
                    "retry_interval."),
    cfg.BoolOpt("automated_clean", default=True,
                help="Clean nodes automatically on provide and undeploy."),
    cfg.IntOpt("workers_pool_size", default=300, min=3,
               help="Size of the conductor's worker pool; when it is full "
                    "the conductor answers busy."),
    cfg.IntOpt("periodic_max_workers", default=8, min=1,
               help="Workers a periodic task may use at once (for example "
                    "to sync power states of many nodes)."),
    cfg.IntOpt("graceful_shutdown_timeout", default=60, min=0,
               deprecated_group="DEFAULT",
               help="Seconds a stopping conductor lets its running work "
                    "finish (heartbeating all the while) before it exits "
                    "anyway."),
    cfg.IntOpt("sync_power_state_interval", default=120,
               help="Seconds between power state syncs; 0 or less "
                    "disables the sync."),
    cfg.IntOpt("sync_power_state_workers", default=8, min=1,
               help="Threads that query BMCs during one power state sync."),
    cfg.IntOpt("power_state_sync_max_retries", default=3, min=0,
               help="Failed power state syncs of a node in a row before "
                    "it is put in maintenance."),
    cfg.IntOpt("sync_power_state_timeout", default=90, min=1,
               help="Seconds the power state sync waits for one node's "
                    "BMC to answer. A BMC slower than that counts as a "
                    "failed sync of its node and stops holding one of the "
                    "sync_power_state_workers, so a hung BMC never delays "
                    "the others. Keep it above [ipmi]command_retry_timeout "
                    "so that IPMI errors are reported with their own "
                    "message."),
    cfg.IntOpt("power_failure_recovery_interval", default=300, min=0,
               help="Seconds between two checks of the nodes put in "
                    "maintenance because their power state could not be "
                    "read (fault 'power failure'). A node whose BMC answers "
                    "again leaves maintenance by itself. 0 disables the "
                    "checks."),
    cfg.BoolOpt("enable_health_monitoring", default=True,
                help="Read the hardware health (OK, Warning, Critical) "
                     "along with the power state during the sync, from "
                     "drivers that can tell, into the node's health "
                     "field."),
    cfg.BoolOpt("force_power_state_during_sync", default=True,
                help="Set the hardware's power state back to the recorded "
                     "one when the sync finds them different."),
    cfg.IntOpt("power_state_change_timeout", default=60, min=2,
               help="Seconds to wait for a power state change to show."),
    cfg.IntOpt("soft_power_off_timeout", default=600, min=1,
               help="Default timeout of soft power off and soft reboot."),
    cfg.IntOpt("check_provision_state_interval", default=60, min=0,
               help="Seconds between two checks for nodes whose wait "
                    "state timed out; 0 disables the checks."),
    _timeout("deploy_callback_timeout", "the ramdisk during deployment"),
    _timeout("clean_callback_timeout", "the ramdisk during cleaning"),
    _timeout("inspect_wait_timeout", "the inspection data"),
    _timeout("rescue_callback_timeout", "the rescue ramdisk"),
    _timeout("service_callback_timeout", "the ramdisk during servicing"),
    cfg.IntOpt("node_locked_retry_attempts", default=3, min=0,
               help="Extra attempts to take a node's lock before a request "
                    "fails with 409 Conflict."),
    cfg.FloatOpt("node_locked_retry_interval", default=1.0, min=0,
                 help="Seconds between two attempts to take a node lock."),
    cfg.IntOpt("sync_local_state_interval", default=180,
               help="Seconds between takeovers of nodes whose conductor "
                    "changed (a dead or new conductor); 0 or less "
                    "disables them."),
    cfg.IntOpt("node_history_max_entries", default=300, min=0,
               mutable=True,
               help="Most history events kept per node; older ones are "
                    "deleted by the leader's periodic clean-up (events "
                    "younger than node_history_minimum_days are kept "
                    "anyway)."),
    cfg.IntOpt("node_history_cleanup_interval", default=86400, min=0,
               help="Seconds between two clean-ups of node history (run "
                    "once per cluster, by the elected leader); 0 "
                    "disables them."),
    cfg.IntOpt("node_history_cleanup_batch_count", default=1000, min=0,
               help="About how many history events one clean-up deletes "
                    "(whole nodes at a time); 0 disables the clean-up."),
    cfg.IntOpt("node_history_minimum_days", default=0, min=0, mutable=True,
               help="History events younger than this many days are never "
                    "deleted, however many a node has."),
    cfg.IntOpt("conductor_cleanup_interval", default=86400, min=0,
               help="Seconds between two deletions of the rows of "
                    "conductors offline for conductor_cleanup_timeout (run "
                    "by the elected leader); 0 disables them."),
    cfg.IntOpt("conductor_cleanup_timeout", default=1209600, min=60,
               mutable=True,
               help="Seconds a conductor must have been offline before "
                    "its row is deleted; keep it well above "
                    "heartbeat_timeout."),
    cfg.IntOpt("conductor_cleanup_batch_size", default=50, min=1,
               mutable=True,
               help="Most conductor rows deleted by one clean-up."),
    cfg.FloatOpt("reboot_throttle", default=0, min=0, mutable=True,
                 help="Seconds between two power-ons or reboots anywhere "
                      "in the cluster: each takes a cluster-wide lock "
                      "([coordination]backend_url) and waits this long "
                      "before acting, so that a rack does not draw its "
                      "inrush current all at once. 0 disables the "
                      "throttle."),
    cfg.IntOpt("max_concurrent_deploy", default=250, min=1, mutable=True,
               help="Most nodes deploying at once in the whole "
                    "deployment; a deploy request over the limit is "
                    "refused (HTTP 503) rather than queued."),
    cfg.IntOpt("max_concurrent_clean", default=50, min=1, mutable=True,
               help="Most nodes cleaning or being torn down at once in "
                    "the whole deployment; a request over the limit is "
                    "refused (HTTP 503) rather than queued."),
    cfg.BoolOpt("allow_provisioning_in_maintenance", default=True,
                help="Allow provisioning verbs on nodes in maintenance."),
    cfg.BoolOpt("disable_deep_image_inspection", default=False,
                help="Skip the inspection of image contents (format, "
                     "embedded files) before they are written; the agent "
                     "is told the same on lookup."),
    _image("deploy_kernel", "kernel", "deploy"),
    _image("deploy_ramdisk", "initramfs", "deploy"),
    _image("rescue_kernel", "kernel", "rescue"),
    _image("rescue_ramdisk", "initramfs", "rescue"),
    cfg.StrOpt("bootloader", mutable=True,
               help="http(s):// or file:// URL of the EFI system partition "
                    "image (FAT, holding EFI/BOOT/BOOTX64.EFI) put into the "
                    "ISO images built for UEFI virtual media boot, for "
                    "nodes whose driver_info names no bootloader."),
    cfg.StrOpt("rescue_password_hash_algorithm", default="sha256",
               choices=["sha256", "sha512"], mutable=True,
               help="Hash (SHA-crypt) under which the rescue password is "
                    "sent to the rescue ramdisk; the clear password never "
                    "leaves the conductor."),
    cfg.ListOpt("permitted_image_formats",
                default=["raw", "gpt", "qcow2", "iso"],
                help="Image formats that may be deployed; the agent is "
                     "told the same on lookup."),
    cfg.BoolOpt("disable_support_for_checksum_files", default=False,
                help="Refuse an image_checksum that is an http(s):// URL "
                     "of a checksum file (a SHA256SUMS-like listing) "
                     "instead of resolving it."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
