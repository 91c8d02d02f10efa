"""Options of the [agent_containers] group, passed to the agent on lookup.

The agent may run steps in containers; these options say which and how.
The service itself only forwards them.
"""

from oslo_config import cfg

group = cfg.OptGroup("agent_containers",
                     title="Container steps run by the agent")

opts = [
    cfg.BoolOpt("allow_arbitrary_containers", default=False,
                help="Let the agent run any container image, not only "
                     "those in allowed_containers."),
    cfg.ListOpt("allowed_containers", default=[],
                help="Container images the agent may run."),
    cfg.StrOpt("container_steps_file",
               default="/etc/ironic-python-agent.d/mysteps.yaml",
               help="File, inside the ramdisk, declaring the container "
                    "steps."),
    cfg.StrOpt("runner", default="podman", choices=["podman", "docker"],
               help="Container engine the agent uses."),
    cfg.ListOpt("pull_options", default=[],
                help="Extra options of the engine's pull command."),
    cfg.ListOpt("run_options", default=["--rm", "--network=host"],
                help="Extra options of the engine's run command."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)
