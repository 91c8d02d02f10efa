"""Options of the [deploy] group: what deployments share.

Only what the service uses so far, under the public names.
"""

from oslo_config import cfg

group = cfg.OptGroup("deploy", title="Deployment options")

opts = [
    cfg.URIOpt("http_url", schemes=["http", "https"],
               help="Base URL of the conductor host's HTTP server, which "
                    "serves http_root (e.g. http://192.0.2.1:8080). iPXE "
                    "downloads its scripts, kernels and ramdisks from it."),
    cfg.StrOpt("http_root", default="/httpboot",
               help="Directory the conductor host's HTTP server serves; "
                    "the conductor writes iPXE scripts and per-node boot "
                    "files here and must be able to write to it."),
    cfg.URIOpt("external_http_url", schemes=["http", "https"],
               help="Base URL of the HTTP server serving http_root as BMCs "
                    "reach it, when that is not http_url (a BMC often sits "
                    "on another network). Used for virtual media images; "
                    "a node's driver_info/external_http_url wins."),
    cfg.StrOpt("default_boot_mode", default="uefi",
               choices=[("uefi", "UEFI firmware"),
                        ("bios", "legacy BIOS")],
               help="Boot mode assumed for a node that names none (in "
                    "instance_info/deploy_boot_mode, its boot_mode "
                    "capability or its detected boot_mode)."),
    cfg.IntOpt("erase_devices_priority", mutable=True,
               help="Priority of the agent's erase_devices clean step in "
                    "automated cleaning; unset keeps the priority the "
                    "agent reports (10 for its generic hardware manager), "
                    "0 leaves the step out."),
    cfg.IntOpt("erase_devices_metadata_priority", mutable=True,
               help="Priority of the agent's erase_devices_metadata clean "
                    "step (partition tables and file system signatures "
                    "only); unset keeps the agent's priority (99), 0 leaves "
                    "the step out."),
    cfg.BoolOpt("enable_ata_secure_erase", default=True, mutable=True,
                help="Let the agent use ATA Secure Erase when it erases "
                     "disks during cleaning."),
    cfg.BoolOpt("enable_nvme_secure_erase", default=True, mutable=True,
                help="Let the agent use the NVMe format command (user data "
                     "or crypto erase) when it erases disks during "
                     "cleaning."),
    cfg.IntOpt("shred_random_overwrite_iterations", default=1, min=0,
               mutable=True,
               help="When a disk cannot be secure-erased, how many passes "
                    "of random data the agent writes over it."),
    cfg.BoolOpt("shred_final_overwrite_with_zeros", default=True,
                mutable=True,
                help="When a disk cannot be secure-erased, whether the "
                     "agent ends with a pass of zeros (also when no random "
                     "pass is configured)."),
    cfg.BoolOpt("continue_if_disk_secure_erase_fails", default=False,
                mutable=True,
                help="Whether the agent falls back to overwriting a disk "
                     "whose secure erase failed (True) or fails cleaning "
                     "(False)."),
    cfg.IntOpt("disk_erasure_concurrency", default=4, min=1, mutable=True,
               help="How many disks the agent erases at the same time."),
    cfg.BoolOpt("erase_skip_read_only", default=False, mutable=True,
                help="Whether the agent skips read-only disks when it "
                     "erases disks; by default such a disk fails "
                     "cleaning, since its old data would survive."),
    cfg.IntOpt("delete_configuration_priority", mutable=True,
               help="Priority of the agent RAID interface's "
                    "delete_configuration clean step in automated "
                    "cleaning; 0 keeps it out. Unset keeps 0 (run only "
                    "when asked for)."),
    cfg.IntOpt("create_configuration_priority", mutable=True,
               help="Priority of the agent RAID interface's "
                    "create_configuration clean step in automated "
                    "cleaning; 0 keeps it out. Unset keeps 0 (run only "
                    "when asked for)."),
    cfg.BoolOpt("fast_track", default=False, mutable=True,
                help="Keep a ramdisk agent running after inspection, "
                     "cleaning or discovery (no power off, its token kept, "
                     "lookup allowed in enroll, manageable and available) "
                     "and let the next cleaning or deployment use it "
                     "without a reboot. A node's driver_info/fast_track "
                     "overrides it."),
    cfg.IntOpt("fast_track_timeout", default=300, min=0, max=300,
               mutable=True,
               help="Seconds since the agent's last heartbeat within which "
                    "it counts as running for fast track. Keep it below "
                    "the time the machine takes to boot, and at most "
                    "[api]ramdisk_heartbeat_timeout."),
    cfg.StrOpt("http_image_subdir", default="agent_images",
               help="Directory under http_root where the instance images "
                    "the conductor serves to the agent are published, one "
                    "per node (named by its UUID)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
