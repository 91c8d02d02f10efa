"""What a flow or a driver may use of a task: the ``Task`` protocol.

The conductor's ``task_manager.TaskManager`` is the one implementation; a
driver names ``Task`` in its signatures and so never imports the conductor.
The module imports nothing of ironic at run time (the node's class is only
named for the type checker), so every floor may import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from ironic.objects.node import Node


class WorkerPoolLike(Protocol):
    """The part of the conductor's worker pool a task hands out."""

    def reserve(self) -> Any: ...

    def run(self, slot: Any, func: Callable, *args: Any,
            **kwargs: Any) -> Any: ...


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
    - ``purpose`` and ``host``: why and where the lock is held.
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
