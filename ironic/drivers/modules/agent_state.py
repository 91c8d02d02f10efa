"""Typed access to what the agent-based interfaces keep on a node.

The state lives in the node's public ``driver_internal_info`` under the
keys the public Bare Metal service uses (operators and the ramdisk read
some of them), but code reads and writes it only through ``AgentInfo``:

* where the agent is: ``agent_url``, ``agent_version``,
  ``agent_verify_ca`` (written by the conductor on each heartbeat);
* the in-band steps it offered: ``agent_cached_<kind>_steps`` (by
  interface) with ``agent_cached_<kind>_steps_refreshed`` and the
  ``hardware_manager_version`` it reported;
* the command a waiting step expects to finish: ``agent_pending_command``
  (``{"name": ..., "kind": ...}``);
* reboots asked for by a step: ``deployment_reboot``, ``cleaning_reboot``,
  ``servicing_reboot``;
* what was written: ``is_whole_disk_image``, ``root_uuid_or_disk_id``;
* the erase settings the agent reads during cleaning (``agent_erase_*``).

Nothing here saves the node; callers do.
"""

from __future__ import annotations

import datetime
from typing import Any

from ironic.conf import CONF

_REBOOT_KEYS = {"deploy": "deployment_reboot", "clean": "cleaning_reboot",
                "service": "servicing_reboot"}

#: driver_internal_info keys the agent reads while cleaning.
CLEAN_PARAM_KEYS = (
    "agent_erase_devices_iterations", "agent_erase_devices_zeroize",
    "agent_continue_if_secure_erase_failed",
    "agent_continue_if_ata_erase_failed", "agent_enable_nvme_secure_erase",
    "agent_enable_ata_secure_erase", "disk_erasure_concurrency",
    "agent_erase_skip_read_only")


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None).isoformat()


class AgentInfo:
    """The agent-related part of ``node.driver_internal_info``."""

    def __init__(self, node: Any) -> None:
        self.node = node

    def _get(self, key: str, default: Any = None) -> Any:
        return (self.node.driver_internal_info or {}).get(key, default)

    def _set(self, **values: Any) -> None:
        """Set keys (None removes); reassigned so the change is tracked."""
        info = dict(self.node.driver_internal_info or {})
        for key, value in values.items():
            if value is None:
                info.pop(key, None)
            else:
                info[key] = value
        self.node.driver_internal_info = info

    # -- the running agent ------------------------------------------------

    @property
    def url(self) -> str | None:
        return self._get("agent_url")

    @property
    def version(self) -> str | None:
        return self._get("agent_version")

    @property
    def verify_ca(self) -> str | None:
        """Path of the certificate the agent sent with its heartbeat."""
        return self._get("agent_verify_ca")

    # -- in-band steps ----------------------------------------------------

    def cached_steps(self, kind: str) -> dict[str, list[dict]] | None:
        """The agent's ``kind`` steps by interface; None until it was
        asked (an agent offering no steps gives ``{}``)."""
        steps = self._get(f"agent_cached_{kind}_steps")
        return None if steps is None else {
            iface: [dict(s) for s in found] for iface, found in steps.items()}

    def set_cached_steps(self, kind: str, steps: dict[str, list[dict]],
                         versions: dict | None) -> None:
        self._set(**{f"agent_cached_{kind}_steps": steps,
                     f"agent_cached_{kind}_steps_refreshed": _now(),
                     "hardware_manager_version": versions})

    def forget_cached_steps(self, kind: str) -> None:
        """A new ramdisk boots: it is asked again on its first heartbeat."""
        self._set(**{f"agent_cached_{kind}_steps": None})

    @property
    def hardware_manager_version(self) -> dict | None:
        return self._get("hardware_manager_version")

    # -- what a waiting step waits for ------------------------------------

    @property
    def pending_command(self) -> dict | None:
        """{"name": agent command name, "kind": step kind} or None."""
        return self._get("agent_pending_command")

    def await_command(self, kind: str, name: str) -> None:
        self._set(agent_pending_command={"kind": kind, "name": name})

    def clear_pending_command(self) -> None:
        self._set(agent_pending_command=None)

    def rebooting(self, kind: str) -> bool:
        """Whether a step of ``kind`` rebooted the node into the agent."""
        return bool(self._get(_REBOOT_KEYS[kind]))

    def set_rebooting(self, kind: str, value: bool) -> None:
        self._set(**{_REBOOT_KEYS[kind]: True if value else None})

    # -- the image written -------------------------------------------------

    @property
    def is_whole_disk_image(self) -> bool | None:
        return self._get("is_whole_disk_image")

    def set_image_written(self, whole_disk: bool | None,
                          root_uuid: str | None = None) -> None:
        self._set(is_whole_disk_image=whole_disk,
                  root_uuid_or_disk_id=root_uuid)

    @property
    def root_uuid_or_disk_id(self) -> str | None:
        return self._get("root_uuid_or_disk_id")

    def set_root_uuid(self, root_uuid: str | None) -> None:
        self._set(root_uuid_or_disk_id=root_uuid)

    # -- cleaning parameters the agent reads -------------------------------

    def set_clean_params(self) -> None:
        erase_fallback = CONF.deploy.continue_if_disk_secure_erase_fails
        self._set(
            agent_erase_devices_iterations=(
                CONF.deploy.shred_random_overwrite_iterations),
            agent_erase_devices_zeroize=(
                CONF.deploy.shred_final_overwrite_with_zeros),
            agent_continue_if_secure_erase_failed=erase_fallback,
            # The older name, still read by older agents.
            agent_continue_if_ata_erase_failed=erase_fallback,
            agent_enable_nvme_secure_erase=(
                CONF.deploy.enable_nvme_secure_erase),
            agent_enable_ata_secure_erase=(
                CONF.deploy.enable_ata_secure_erase),
            disk_erasure_concurrency=CONF.deploy.disk_erasure_concurrency,
            agent_erase_skip_read_only=CONF.deploy.erase_skip_read_only)

    def forget_operation(self) -> None:
        """Drop what one deployment/cleaning left (not the image record)."""
        self._set(agent_pending_command=None,
                  **{key: None for key in _REBOOT_KEYS.values()})
