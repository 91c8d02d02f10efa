"""Options of the [coordination] group: the tooz backend that conductors
and PXE filters share for membership, leader election and cluster-wide
locks."""

from oslo_config import cfg

group = cfg.OptGroup("coordination", title="Coordination (tooz) options")

opts = [
    cfg.StrOpt("backend_url", secret=True,
               help="tooz backend shared by every ironic-conductor and "
                    "ironic-pxe-filter of the deployment, for example "
                    "redis://127.0.0.1:6379, etcd3+http://127.0.0.1:2379 "
                    "or file:///var/lib/ironic/coordination (one host "
                    "only). Unset, each process is a cluster of its own: "
                    "it is always the leader and its locks are local."),
    cfg.IntOpt("member_timeout", default=5, min=2,
               help="Seconds after which the backend forgets a member (and "
                    "the leader lock it held) that stopped heartbeating, "
                    "added to the backend URL as its 'timeout' parameter "
                    "when the URL does not set one (redis, etcd3). A new "
                    "leader is elected within about this time plus "
                    "heartbeat_interval after the old one dies."),
    cfg.FloatOpt("heartbeat_interval", default=1.0, min=0.1,
                 help="Seconds between two heartbeats to the backend; each "
                      "also checks the group's members and the leader "
                      "election."),
    cfg.IntOpt("max_retries", default=10, min=0,
               help="Attempts to reach the backend (at start-up, or after "
                    "it stopped answering) before the process gives up "
                    "and exits with status 75 (as when the database or "
                    "the message bus stays away), so that its supervisor "
                    "restarts it."),
    cfg.FloatOpt("retry_interval", default=2.0, min=0.1,
                 help="Seconds between two attempts to reach the backend."),
    cfg.FloatOpt("retry_timeout", default=60.0, min=1,
                 help="Seconds the backend may stay unreachable before the "
                      "process gives up, whatever max_retries says."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
