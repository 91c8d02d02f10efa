"""The interfaces that take a node through its provisioning life.

Boot prepares what the node boots next; deploy, inspect and rescue run the
deployment, the inspection and the rescue, and are the interfaces the
ramdisk agent's heartbeats reach (``heartbeat``, ``ignores_heartbeat``).
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from ironic.common import exception
from ironic.drivers.interface import BaseInterface
from ironic.task import Task


def _ignore_heartbeat(self: Any, task: Task, callback_url: str,
                      agent_version: str | None, **kwargs: Any) -> None:
    """A heartbeat of the ramdisk agent running on ``task.node``.

    The conductor has checked the agent token and recorded ``agent_url``,
    ``agent_version``, ``agent_last_heartbeat`` (and ``agent_verify_ca``)
    in ``driver_internal_info``, and holds the node's exclusive lock. It
    calls the deploy interface, or the rescue or inspect interface while
    the node is rescuing or inspecting. ``kwargs`` carries
    ``agent_verify_ca`` (a file path or None), ``agent_status`` and
    ``agent_status_message``. Interfaces driven by an agent override this
    to resume their steps; by default a heartbeat only keeps the record.
    """


def _ignores_heartbeat(self: Any, node: Any) -> bool:
    """Whether ``heartbeat`` would do nothing at all for ``node`` as it is
    now (its provision state, its record), beyond the conductor's record of
    the agent. The conductor then records the heartbeat without taking the
    node's lock or a worker.

    True here only while the class keeps the default ``heartbeat``; an
    interface that overrides ``heartbeat`` overrides this too, or every
    heartbeat takes the locked path.
    """
    return type(self).heartbeat is _ignore_heartbeat


class BootInterface(BaseInterface):
    interface_type = "boot"
    #: Whether ``prepare_ramdisk`` can boot the agent for cleaning/deploy.
    capabilities: ClassVar[tuple[str, ...]] = ()

    @abc.abstractmethod
    def prepare_ramdisk(self, task: Task, ramdisk_params: dict) -> None:
        """Make the node boot the deploy/cleaning/rescue ramdisk next."""

    @abc.abstractmethod
    def clean_up_ramdisk(self, task: Task) -> None:
        """Remove what ``prepare_ramdisk`` created."""

    @abc.abstractmethod
    def prepare_instance(self, task: Task) -> None:
        """Make the node boot the deployed instance next."""

    @abc.abstractmethod
    def clean_up_instance(self, task: Task) -> None:
        """Remove what ``prepare_instance`` created."""

    def validate_inspection(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="validate_inspection")

    def validate_rescue(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="validate_rescue")


class DeployInterface(BaseInterface):
    interface_type = "deploy"

    @abc.abstractmethod
    def deploy(self, task: Task) -> str | None:
        """The deploy step of priority 100 (see seed 002)."""

    @abc.abstractmethod
    def tear_down(self, task: Task) -> str:
        """Undo a deployment; returns the state reached (``deleted``)."""

    @abc.abstractmethod
    def prepare(self, task: Task) -> None:
        """Get the node ready for the deploy steps."""

    @abc.abstractmethod
    def clean_up(self, task: Task) -> None:
        """Remove what ``prepare`` and the deploy steps left behind."""

    @abc.abstractmethod
    def take_over(self, task: Task) -> None:
        """Adopt a node another conductor was serving."""

    def prepare_cleaning(self, task: Task) -> str | None:
        """Get ready for cleaning; a wait state means "wait for agent"."""
        return None

    def tear_down_cleaning(self, task: Task) -> None:
        return None

    def prepare_service(self, task: Task) -> str | None:
        return None

    def tear_down_service(self, task: Task) -> None:
        return None

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat


class InspectInterface(BaseInterface):
    interface_type = "inspect"

    @abc.abstractmethod
    def inspect_hardware(self, task: Task) -> str | None:
        """Inspect; returns the state reached or a wait state."""

    def abort(self, task: Task) -> None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="abort")

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat

    def continue_inspection(self, task: Task, inventory: dict,
                            plugin_data: dict) -> str | None:
        raise exception.UnsupportedDriverExtension(
            driver=task.node.driver, extension="continue_inspection")


class RescueInterface(BaseInterface):
    interface_type = "rescue"

    @abc.abstractmethod
    def rescue(self, task: Task) -> str:
        """Boot the rescue ramdisk; returns the state reached or a wait."""

    @abc.abstractmethod
    def unrescue(self, task: Task) -> str:
        """Boot the instance again; returns the state reached."""

    def clean_up(self, task: Task) -> None:
        return None

    heartbeat = _ignore_heartbeat
    ignores_heartbeat = _ignores_heartbeat
