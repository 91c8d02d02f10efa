"""IronicObject.get and the records store: which identifiers each resource
accepts and what it answers for one that matches nothing."""

import pytest

from ironic.common import exception
from ironic.db import api as db_api
from ironic.objects import records
from ironic.objects.allocation import Allocation
from ironic.objects.chassis import Chassis
from ironic.objects.inspection_rule import InspectionRule
from ironic.objects.port import Port
from ironic.objects.portgroup import Portgroup

MISSING_UUID = "11111111-2222-3333-4444-555555555555"

# class, its not-found exception, whether it looks strings up by name
RESOURCES = [
    (Port, exception.PortNotFound, True),
    (Portgroup, exception.PortgroupNotFound, True),
    (Allocation, exception.AllocationNotFound, True),
    (Chassis, exception.ChassisNotFound, False),
    (InspectionRule, exception.InspectionRuleNotFound, False),
]


@pytest.mark.parametrize("cls,not_found,named", RESOURCES)
@pytest.mark.parametrize("ident", [12345, MISSING_UUID,
                                   MISSING_UUID.upper(), "some-name"])
def test_missing_identifier_raises_the_class_not_found(
        database, cls, not_found, named, ident):
    with pytest.raises(not_found) as e:
        cls.get(ident)
    # The message names the identifier as given (a UUID as normalized).
    shown = ident.lower() if ident == MISSING_UUID.upper() else ident
    assert str(shown) in str(e.value) and e.value.code == 404


@pytest.mark.parametrize("cls,not_found,named", RESOURCES)
def test_found_by_id_uuid_and_name_where_names_exist(database, cls,
                                                     not_found, named):
    node = _node()
    values = {Port: {"node_id": node, "address": "52:54:00:aa:bb:cc",
                     "name": "a-name"},
              Portgroup: {"node_id": node, "name": "a-name"},
              Allocation: {"resource_class": "x", "name": "a-name"},
              Chassis: {},
              InspectionRule: {"actions": [{"op": "log", "args": {}}]}}
    obj = cls(**values[cls])
    obj.create()
    assert cls.get(obj.id).uuid == obj.uuid
    assert cls.get(obj.uuid.upper()).id == obj.id
    if named:
        assert cls.get("a-name").id == obj.id


def _node() -> int:
    return db_api.get_instance().create_node({"driver": "fake-hardware"}).id


def test_a_port_name_is_any_string_a_group_name_a_logical_name(database):
    # "a name!" is not a logical name: the port group refuses it without
    # a query, the port looks it up.
    with pytest.raises(exception.PortgroupNotFound):
        Portgroup.get("a name!")
    with pytest.raises(exception.PortNotFound):
        Port.get("a name!")
    with pytest.raises(exception.PortNotFound):
        Port.get("")


@pytest.mark.parametrize("store,what", [
    (records.DEPLOY_TEMPLATES, "deploy template"),
    (records.RUNBOOKS, "runbook"),
    (records.VOLUME_CONNECTORS, "volume connector"),
    (records.VOLUME_TARGETS, "volume target"),
])
def test_records_not_found_name_the_resource(database, store, what):
    # In Ironic 39's words: "Volume connector X could not be found.".
    with pytest.raises(exception.NotFound) as e:
        store.get(MISSING_UUID)
    assert str(e.value) == f"{what.capitalize()} {MISSING_UUID} could not be found."
    with pytest.raises(exception.NotFound) as e:
        store.destroy(4321)
    assert str(e.value) == f"{what.capitalize()} 4321 could not be found."
    with pytest.raises(exception.NotFound) as e:
        if isinstance(store, records.VolumeRecords):
            store.update(4321, {"extra": {}})
        else:
            store.save({"extra": {}}, 4321)
    assert str(e.value) == f"{what.capitalize()} 4321 could not be found."


def test_record_conflicts_keep_their_messages(database):
    step = {"interface": "bios", "step": "s", "args": {}, "priority": 1}
    first = records.DEPLOY_TEMPLATES.save({"name": "CUSTOM_A",
                                           "steps": [step]})
    with pytest.raises(exception.Conflict) as e:
        records.DEPLOY_TEMPLATES.save({"name": "CUSTOM_A", "steps": [step]})
    assert str(e.value) == \
        "A deploy template with name CUSTOM_A already exists."
    with pytest.raises(exception.Conflict) as e:
        records.DEPLOY_TEMPLATES.save({"uuid": first.uuid,
                                       "name": "CUSTOM_B", "steps": [step]})
    assert str(e.value) == \
        f"A deploy template with UUID {first.uuid} already exists."
    book = {"name": "CUSTOM_R", "steps": [{**step, "order": 0}]}
    records.RUNBOOKS.save(book)
    with pytest.raises(exception.Conflict) as e:
        records.RUNBOOKS.save(book)
    assert str(e.value) == "A runbook with name CUSTOM_R already exists."
