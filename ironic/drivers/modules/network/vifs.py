"""VIF bookkeeping on a node's ports and port groups.

A VIF (a virtual network interface, e.g. a Neutron port) is attached to one
physical port or port group of the node: its ID is kept in that object's
``internal_info["tenant_vif_port_id"]``. Older clients recorded it in
``extra["vif_port_id"]``; such records are still listed and still count as
taking the port.

When the caller does not name a port or port group (API 1.67), a free one
is chosen: port groups that have ports before ports, and among ports, those
that may PXE boot first. Ports in a port group are used through the group.
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic.common import exception
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup
from ironic.task import Task

TENANT_VIF_KEY = "tenant_vif_port_id"
LEGACY_VIF_KEY = "vif_port_id"


def vif_of(obj: Any) -> str | None:
    """The VIF attached to a port or port group, if any."""
    internal = obj.internal_info or {}
    extra = obj.extra or {}
    return internal.get(TENANT_VIF_KEY) or extra.get(LEGACY_VIF_KEY)


def _kind(obj: Any) -> str:
    return "portgroup" if isinstance(obj, Portgroup) else "port"


def port_like_objects(task: Task) -> tuple[list[Port], list[Portgroup]]:
    """The node's ports and port groups, as objects."""
    return (Port.list_for_node(task.node.id),
            Portgroup.list_for_node(task.node.id))


def list_vifs(task: Task) -> list[dict[str, str]]:
    """[{"id": vif}] for every VIF attached to the node."""
    ports, groups = port_like_objects(task)
    found = [vif_of(obj) for obj in [*groups, *ports]]
    return [{"id": vif} for vif in dict.fromkeys(v for v in found if v)]


def attach(task: Task, vif_info: dict) -> Any:
    """Record ``vif_info["id"]`` on a port or port group; returns it."""
    vif_id = vif_info["id"]
    ports, groups = port_like_objects(task)
    for obj in [*groups, *ports]:
        if vif_of(obj) == vif_id:
            raise exception.VifAlreadyAttached(
                vif=vif_id, object_type=_kind(obj), object_uuid=obj.uuid)
    target = _requested(task, vif_info, ports, groups) or \
        _free(task, vif_id, ports, groups)
    internal = dict(target.internal_info or {})
    internal[TENANT_VIF_KEY] = vif_id
    target.internal_info = internal
    target.save()
    return target


def _requested(task: Task, vif_info: dict, ports: list[Port],
               groups: list[Portgroup]) -> Any:
    """The port or port group the caller named (1.67), checked."""
    for key, candidates in (("port_uuid", ports),
                            ("portgroup_uuid", groups)):
        wanted = vif_info.get(key)
        if wanted is None:
            continue
        obj = next((c for c in candidates if c.uuid == wanted), None)
        if obj is None:
            raise exception.InvalidParameterValue(
                err=f"{'Port' if key == 'port_uuid' else 'Port group'} "
                    f"{wanted} does not belong to node {task.node.uuid}.")
        current = vif_of(obj)
        if current:
            raise exception.VifAlreadyAttached(
                vif=current, object_type=_kind(obj), object_uuid=obj.uuid)
        return obj
    return None


def _free(task: Task, vif_id: str, ports: list[Port],
          groups: list[Portgroup]) -> Any:
    grouped = {p.portgroup_id for p in ports if p.portgroup_id}
    candidates: list[Port | Portgroup] = [
        g for g in groups if g.id in grouped and not vif_of(g)]
    candidates += sorted(
        (p for p in ports if not p.portgroup_id and not vif_of(p)),
        key=lambda p: not p.pxe_enabled)
    if not candidates:
        raise exception.NoFreePhysicalPorts(vif=vif_id)
    return candidates[0]


def detach(task: Task, vif_id: str) -> Any:
    """Forget ``vif_id`` on the object holding it; returns that object."""
    ports, groups = port_like_objects(task)
    for obj in _holding(vif_id, [*groups, *ports]):
        internal = dict(obj.internal_info or {})
        internal.pop(TENANT_VIF_KEY, None)
        obj.internal_info = internal
        extra = dict(obj.extra or {})
        if extra.pop(LEGACY_VIF_KEY, None) is not None:
            obj.extra = extra
        obj.save()
        return obj
    raise exception.VifNotAttached(vif=vif_id, node=task.node.uuid)


def _holding(vif_id: str, objects: Iterable[Any]) -> list[Any]:
    return [obj for obj in objects if vif_of(obj) == vif_id]
