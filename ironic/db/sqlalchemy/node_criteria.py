"""Node list criteria as SQL conditions.

The API parses and checks the filters of ``GET /v1/nodes`` and hands them
down as ``(name, value)`` pairs, every pair one more condition that a node
must meet; only here do they become SQL. Names are the node fields, plus:

``shard``            a list: the node is in one of these shards
``retired``          False also matches nodes never marked either way
``associated``       True: the node has an instance
``sharded``          True: the node has a shard
``description_contains``  a substring of the description, taken literally
``top_level``        True: the node has no parent node
``project``          the node's owner or lessee
``ids``              a list: the node's database id is one of these

and, for the conductor's periodic sweeps:

``uuids``            a list: the node's UUID is one of these
``provision_states`` a list: the node is in one of these states
``provision_updated_before``  a time: its state is older than that
``not_prepared_by``  a conductor id: the node's conductor_affinity is
                     another conductor or none
"""

from __future__ import annotations

from typing import Any, Iterable

from ironic.db.sqlalchemy import models

Criteria = Iterable[tuple[str, Any]]

N = models.Node
_FLAGS = ("maintenance", "auto_discovered", "console_enabled")
_IN_LIST = {"shard": N.shard, "ids": N.id, "uuids": N.uuid,
            "provision_states": N.provision_state}


def _condition(name: str, value: Any) -> Any:
    if name in _IN_LIST:
        return _IN_LIST[name].in_(list(value))
    if name in _FLAGS:
        return getattr(N, name).is_(bool(value))
    if name == "retired":
        return N.retired.is_(True) if value else \
            (N.retired.is_(False) | N.retired.is_(None))
    if name == "associated":
        return N.instance_uuid.is_not(None) if value else \
            N.instance_uuid.is_(None)
    if name == "sharded":
        return N.shard.is_not(None) if value else N.shard.is_(None)
    if name == "description_contains":
        return N.description.contains(value, autoescape=True)
    if name == "top_level":
        return N.parent_node.is_(None) if value else \
            N.parent_node.is_not(None)
    if name == "provision_updated_before":
        return N.provision_updated_at < value
    if name == "not_prepared_by":
        return (N.conductor_affinity != value) | \
            N.conductor_affinity.is_(None)
    if name == "project":
        return (N.owner == value) | (N.lessee == value)
    if name in N.__table__.c:
        return getattr(N, name) == value
    raise ValueError(f"no node list criterion {name!r}")


def conditions(criteria: Criteria) -> list:
    """The SQL conditions ``criteria`` stand for, to be ANDed."""
    return [_condition(name, value) for name, value in criteria]
