"""What a flow or a driver may use of a task: the ``Task`` protocol, and
``ConductorAPI``, what a driver may ask of the conductor through it.

The conductor's ``task_manager.TaskManager`` is the one implementation of
``Task``, and ``conductor.driver_api.TaskConductor`` the one of
``ConductorAPI`` (``task.conductor``). Drivers, the inspection rules and
the conductor name these protocols in their signatures, so the module sits
in a room of its own beside common, below all three: it imports the node
object and nothing else of ironic. A driver calls the conductor through
the task it is given and never imports ``ironic.conductor`` (a contract in
``pyproject.toml`` says so), and the conductor may reshape its flows
without touching a driver.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Callable, Protocol

from ironic.objects.node import Node


class WorkerPoolLike(Protocol):
    """The part of the conductor's worker pool a task hands out."""

    def reserve(self) -> Any: ...

    def run(self, slot: Any, func: Callable, *args: Any,
            **kwargs: Any) -> Any: ...


class ConductorAPI(Protocol):
    """What a driver may ask of the conductor about its task's node.

    Each method acts on the node of the task the API was taken from, the
    way the conductor's own flows do (notifications, fault records, the
    step loop's bookkeeping). ``kind`` names a step operation:
    ``"clean"``, ``"deploy"`` or ``"service"``.
    """

    # -- power, as the flows move it --------------------------------------

    def power_action(self, state: str) -> None:
        """Move the power state now (``states.POWER_ON``, ``REBOOT``...)."""

    def power_off_or_reboot(self) -> None:
        """Power off, or reboot when the node must never be powered off."""

    def set_boot_device(self, device: str, persistent: bool) -> None:
        """Set the next boot device, checked against the supported ones."""

    def forget_agent_before_ramdisk(self) -> None:
        """Drop the token and URL of an earlier agent before a ramdisk
        boot is prepared."""

    # -- the step loop: what a step's asynchronous end hands back ---------

    def resume_steps(self, kind: str) -> None:
        """Leave the wait state and run the steps after the current one."""

    def fail_steps(self, kind: str, message: str) -> None:
        """Fail the operation of ``kind`` with ``message``."""

    def replan_steps(self, kind: str) -> None:
        """Compute the step list again, keeping the current position."""

    def repeat_current_step(self, kind: str) -> None:
        """Run the current step again when the steps resume."""

    def restart_automated_steps(self, kind: str) -> None:
        """Store the automated step list afresh, from its first step."""

    # -- failing, fast track, inspection ----------------------------------

    def fail_node(self, event: str, message: str) -> None:
        """Move the node on ``event`` to its failed state, ``message`` as
        its last_error."""

    def fast_track_usable(self) -> bool:
        """Whether the operation starting now can use the running agent."""

    def keeps_agent(self) -> bool:
        """Whether the running agent is kept when the operation ends."""

    def agent_alive(self) -> bool:
        """Whether the node's agent heartbeated recently enough."""

    def remember_bmc_addresses(self) -> None:
        """Record the BMC addresses of ``driver_info`` in
        ``driver_internal_info``, for the inspection's node lookup."""

    def forget_bmc_addresses(self) -> None:
        """Drop what ``remember_bmc_addresses`` recorded."""

    # -- a driver's own threads -------------------------------------------

    def acquire(self, purpose: str) -> AbstractContextManager[Task]:
        """Take the node again (a new exclusive task, same host and worker
        pool), from a thread of the driver's own after this task ended."""

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds``, or less when the conductor stops; True if it
        stopped."""


class Task(Protocol):
    """A node under a lock (or a shared read), its driver and its ports.

    Attributes a flow reads:

    - ``context``: the request context the task was taken for;
    - ``node``: the node object; ``node.save()`` on an exclusive task is a
      write conditional on the lock still being held;
    - ``driver``: the node's composed driver (``drivers.base.BareDriver``;
      ``Any`` because its interfaces are set per node by name);
    - ``ports``: the node's port rows, read once per lock;
    - ``shared``: True for a read-only task that holds no lock;
    - ``purpose`` and ``host``: why and where the lock is held;
    - ``conductor``: what a driver may ask of the conductor
      (``ConductorAPI``), bound to this task.
    """

    context: Any
    node: Node
    shared: bool
    purpose: str
    host: str

    @property
    def driver(self) -> Any: ...

    @driver.setter
    def driver(self, value: Any) -> None: ...

    @property
    def ports(self) -> list: ...

    @property
    def pool(self) -> WorkerPoolLike: ...

    @property
    def conductor(self) -> ConductorAPI: ...

    def upgrade_lock(self, purpose: str | None = None) -> None:
        """Turn a shared task into an exclusive one."""

    def process_event(self, event: str, *, callback: Callable | None = None,
                      call_args: tuple = (),
                      call_kwargs: dict | None = None,
                      err_handler: Callable | None = None,
                      target_state: Any = ...,
                      last_error: Any = ...) -> None:
        """Move the node on ``event``; run ``callback`` in a worker after."""

    def check_event(self, event: str, action: str | None = None) -> str:
        """The state ``event`` would lead to, or InvalidStateRequested."""

    def spawn_after(self, callback: Callable, *args: Any,
                    **kwargs: Any) -> None:
        """Run ``callback`` in a worker once the task's block ends."""

    def release_resources(self) -> None:
        """Give the lock back (nothing for a shared task)."""

    def save_and_release(self) -> None:
        """Write the node's changes and give the lock back in one UPDATE."""

    def save_with_allocation(self, alloc_id: int,
                             alloc_values: dict) -> None:
        """Write the node and an allocation in one transaction."""

    def finish(self) -> None:
        """Save what is left and release, unless the task was handed on."""

    def lock_gone_with_node(self) -> None:
        """The node was deleted while locked: forget the lock."""
