"""The base of every hardware interface: validation, properties, steps.

Each kind of interface (power, deploy, network...) extends ``BaseInterface``
with its own abstract methods; the kinds live in ``machine_interfaces``,
``provisioning_interfaces``, ``attachment_interfaces`` and ``passthru``, and
drivers import them all from ``ironic.drivers.base``.
"""

from __future__ import annotations

import abc
from typing import Any, ClassVar

from ironic.common import exception
from ironic.drivers import periodic as _periodic
from ironic.drivers import steps as _steps
from ironic.task import Task


class BaseInterface(abc.ABC):
    """What every interface offers: validation, properties and steps."""

    #: Which kind of interface this is (``power``, ``boot``...).
    interface_type: ClassVar[str] = "base"
    #: False for the "no-*" implementations that only refuse politely.
    supported: ClassVar[bool] = True
    #: Steps declared on the class: {kind: {method name: StepInfo}}.
    _declared_steps: ClassVar[dict[str, dict[str, _steps.StepInfo]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._declared_steps = _steps.collect(cls)

    @abc.abstractmethod
    def get_properties(self) -> dict[str, str]:
        """The ``driver_info`` keys this interface reads, with a help text.

        Required keys say "Required." in their text, as the API shows them.
        """

    @abc.abstractmethod
    def validate(self, task: Task) -> None:
        """Raise InvalidParameterValue/MissingParameterValue when the node
        is not configured well enough for this interface to work."""

    # --- steps --------------------------------------------------------------

    def _steps(self, kind: str) -> list[dict]:
        found = [info.as_dict(self.interface_type, kind)
                 for info in self._declared_steps[kind].values()]
        return sorted(found, key=_steps.sort_key)

    def get_deploy_steps(self, task: Task) -> list[dict]:
        return self._steps("deploy")

    def get_clean_steps(self, task: Task) -> list[dict]:
        return self._steps("clean")

    def get_service_steps(self, task: Task) -> list[dict]:
        return self._steps("service")

    def get_verify_steps(self, task: Task) -> list[dict]:
        return self._steps("verify")

    def step_argsinfo(self, kind: str, name: str) -> dict | None:
        info = self._declared_steps[kind].get(name)
        return info.argsinfo if info else None

    def _execute_step(self, kind: str, task: Task, step: dict) -> Any:
        name = step.get("step")
        if name not in self._declared_steps[kind]:
            raise exception.InvalidParameterValue(
                err=f"{self.interface_type} interface has no {kind} step "
                    f"{name!r}")
        return getattr(self, name)(task, **(step.get("args") or {}))

    def execute_deploy_step(self, task: Task, step: dict) -> Any:
        """Run a deploy step; a wait state returned means "asynchronous"."""
        return self._execute_step("deploy", task, step)

    def execute_clean_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("clean", task, step)

    def execute_service_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("service", task, step)

    def execute_verify_step(self, task: Task, step: dict) -> Any:
        return self._execute_step("verify", task, step)

    # --- periodic tasks -------------------------------------------------------

    def periodic_tasks(self) -> list:
        """[(bound method, PeriodicInfo)] for the conductor to schedule."""
        return _periodic.tasks_of(self)
