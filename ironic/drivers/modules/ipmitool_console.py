"""The ``ipmitool-socat`` console: the node's serial-over-LAN console as a
TCP socket.

socat listens on ``[console]socat_address`` at the node's terminal port
and runs ``ipmitool ... sol activate`` on a pseudo terminal for the client
connected. The port is ``driver_info/ipmi_terminal_port``, or one taken
from ``[console]port_range`` and remembered in driver_internal_info while
the console is enabled.
"""

from __future__ import annotations

import logging

from ironic.common import exception
from ironic.conf import CONF
from ironic.conf import console as console_conf
from ironic.drivers import base
from ironic.drivers.modules import console_utils, ipmi_client, ipmitool
from ironic.task import Task

LOG = logging.getLogger(__name__)

# driver_internal_info key of a port taken from [console]port_range.
ALLOCATED_PORT = "allocated_ipmi_terminal_port"


def _target(task: Task) -> ipmi_client.IpmiTarget:
    return ipmi_client.parse_driver_info(task.node.driver_info or {})


def _set_allocated(task: Task, port: int | None) -> None:
    info = dict(task.node.driver_internal_info or {})
    if port is None:
        info.pop(ALLOCATED_PORT, None)
    else:
        info[ALLOCATED_PORT] = port
    task.node.driver_internal_info = info


def _deactivate_sol(target: ipmi_client.IpmiTarget) -> None:
    """End any SOL session on the BMC: a stale one (of a console process
    that died) makes the next ``sol activate`` fail. Failing here is
    normal when there is none."""
    try:
        ipmi_client.run(target, ["sol", "deactivate"])
    except ipmi_client.IpmiCommandFailed as e:
        LOG.debug("sol deactivate on %s: %s", target.address, e)


class IPMISocatConsole(base.ConsoleInterface):
    """Serial-over-LAN console served as a TCP socket by socat."""

    def get_properties(self) -> dict[str, str]:
        return dict(ipmitool.PROPERTIES)

    def check_driver_info(self, driver_info: dict) -> None:
        ipmi_client.check_driver_info(driver_info)

    def validate(self, task: Task) -> None:
        target = _target(task)
        if target.terminal_port is None and \
                console_conf.port_range(CONF) is None:
            raise exception.MissingParameterValue(
                err="driver_info/ipmi_terminal_port is required for the "
                    "ipmitool-socat console when [console]port_range is "
                    "not set.")
        # Arguments socat could not pass on are refused before starting.
        command, _env = ipmi_client.console_command(target)
        console_utils.socat_command(target.terminal_port or 1, command)

    def _port(self, task: Task, target: ipmi_client.IpmiTarget) -> int:
        if target.terminal_port is not None:
            return target.terminal_port
        held = (task.node.driver_internal_info or {}).get(ALLOCATED_PORT)
        port = console_utils.acquire_port(task.node.uuid, preferred=held)
        _set_allocated(task, port)
        return port

    def start_console(self, task: Task) -> None:
        target = _target(task)
        port = self._port(task, target)
        _deactivate_sol(target)
        command, env = ipmi_client.console_command(target)
        try:
            console_utils.start_socat_console(task.node.uuid, port, command,
                                              env)
        except Exception:
            console_utils.release_port(task.node.uuid)
            _set_allocated(task, None)
            raise

    def stop_console(self, task: Task) -> None:
        console_utils.stop_socat_console(task.node.uuid)
        _set_allocated(task, None)
        _deactivate_sol(_target(task))

    def stop_local_console(self, task: Task) -> None:
        # The new owner ends the BMC's SOL session when it starts its own.
        console_utils.stop_own_socat_console(task.node.uuid)

    def is_console_running(self, task: Task) -> bool:
        return console_utils.is_running(task.node.uuid)

    def get_console(self, task: Task) -> dict:
        port = _target(task).terminal_port or \
            (task.node.driver_internal_info or {}).get(ALLOCATED_PORT)
        if port is None:
            raise exception.ConsoleError(
                error=f"The console of node {task.node.uuid} has no port; "
                      f"disable and enable it again.")
        return {"type": "socat", "url": console_utils.console_url(port)}
