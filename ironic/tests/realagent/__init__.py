"""The real ironic-python-agent (PyPI), run isolated on this host.

The agent is built to own the machine it runs on. Here it runs in its own
virtualenv (agent_venv), as an unprivileged user when started by root,
behind fences that refuse every command and write that could reach the
host (plugin/ironic_lab_safe_agent.py), and with a hardware manager that
shows it one file-backed disk and one NIC instead of the host's
(plugin/ironic_lab_agent_hardware.py). launch is what an emulated BMC
runs when its machine powers on.
"""
