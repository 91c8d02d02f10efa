"""Node list criteria (ironic.db.sqlalchemy.node_criteria) on sqlite."""

import datetime

import pytest

from ironic.db import api as db_api


@pytest.fixture
def db(database):
    dbapi = db_api.get_instance()
    for name, values in {
        "plain": {},
        "kept": {"maintenance": True, "retired": True, "shard": "s1",
                 "owner": "p1", "description": "100% of it"},
        "leased": {"lessee": "p1", "instance_uuid":
                   "1be26c0b-03f2-4d2e-ae87-c02d7f33c123", "shard": "s2"},
        "child": {"parent_node": "1be26c0b-03f2-4d2e-ae87-c02d7f33c124"},
    }.items():
        dbapi.create_node({"driver": "fake-hardware", "name": name,
                           **values})
    return dbapi


def _names(db, *criteria):
    return sorted(r["name"] for r in db.get_nodes_matching(
        criteria, columns=["id", "uuid", "name"]))


@pytest.mark.parametrize("criteria, expected", [
    ((), ["child", "kept", "leased", "plain"]),
    ((("maintenance", True),), ["kept"]),
    ((("retired", False),), ["child", "leased", "plain"]),
    ((("shard", ["s1", "s2"]),), ["kept", "leased"]),
    ((("sharded", False),), ["child", "plain"]),
    ((("associated", True),), ["leased"]),
    ((("project", "p1"),), ["kept", "leased"]),
    ((("description_contains", "0%"),), ["kept"]),
    ((("description_contains", "_"),), []),
    ((("top_level", True),), ["kept", "leased", "plain"]),
    ((("top_level", True), ("project", "p1"), ("shard", ["s2"])),
     ["leased"]),
    ((("name", "plain"), ("name", "kept")), []),
])
def test_every_criterion_must_hold(db, criteria, expected):
    assert _names(db, *criteria) == expected


def test_unknown_criterion_is_a_programming_error(db):
    with pytest.raises(ValueError):
        _names(db, ("no_such_column", 1))


@pytest.fixture
def swept(database):
    """Nodes as the conductor's periodic sweeps look for them."""
    dbapi = db_api.get_instance()
    one, two = (dbapi.register_conductor(
        {"hostname": host, "conductor_group": "", "drivers": []}).id
        for host in ("c1", "c2"))
    assert (one, two) == (1, 2)  # as the cases below name them
    long_ago = datetime.datetime(2020, 1, 1)
    recently = datetime.datetime(2030, 1, 1)
    for name, values in {
        "waiting": {"provision_state": "wait call-back",
                    "provision_updated_at": long_ago},
        "fresh": {"provision_state": "wait call-back",
                  "provision_updated_at": recently},
        "mine": {"provision_state": "active", "conductor_affinity": one,
                 "console_enabled": True},
        "theirs": {"provision_state": "active", "conductor_affinity": two,
                   "reservation": "other-host"},
        "unprepared": {"provision_state": "active"},
    }.items():
        dbapi.create_node({"driver": "fake-hardware", "name": name,
                           **values})
    return dbapi


@pytest.mark.parametrize("criteria, expected", [
    ((("provision_states", ["active", "deploying"]),),
     ["mine", "theirs", "unprepared"]),
    ((("provision_updated_before", datetime.datetime(2025, 1, 1)),),
     ["waiting"]),
    ((("not_prepared_by", 1),), ["fresh", "theirs", "unprepared", "waiting"]),
    ((("console_enabled", True),), ["mine"]),
    # the takeover's: active, unlocked and prepared elsewhere or nowhere
    ((("provision_state", "active"), ("reservation", None),
      ("not_prepared_by", 1)), ["unprepared"]),
    ((("uuids", []),), []),
])
def test_sweep_criteria(swept, criteria, expected):
    assert _names(swept, *criteria) == expected


def test_uuids_criterion(swept):
    rows = swept.get_nodes_matching([], columns=["uuid", "name"])
    wanted = {r["uuid"] for r in rows if r["name"] in ("mine", "fresh")}
    assert _names(swept, ("uuids", wanted)) == ["fresh", "mine"]
