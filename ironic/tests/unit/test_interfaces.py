"""The interface vocabulary (ironic.interfaces) is the one every place
that names interface kinds reads."""

from ironic import driver_registry, interfaces
from ironic.conf import CONF
from ironic.db.sqlalchemy import models
from ironic.drivers import base
from ironic.objects.node import Node


def test_the_node_table_has_one_column_per_kind():
    columns = {c for c in models.Node.__table__.columns.keys()
               if c.endswith("_interface")}
    assert columns == set(interfaces.COLUMNS)
    assert [n for n in Node.fields if n.endswith("_interface")] == \
        list(interfaces.COLUMNS)


def test_every_kind_has_its_options():
    for kind in interfaces.TYPES:
        assert f"enabled_{kind}_interfaces" in CONF
        assert f"default_{kind}_interface" in CONF


def test_drivers_and_the_registry_read_the_same_list():
    assert base.INTERFACE_TYPES is interfaces.TYPES
    assert driver_registry.INTERFACE_TYPES is interfaces.TYPES
    assert set(interfaces.CORE_TYPES) <= set(interfaces.TYPES)
    assert set(interfaces.STEP_TYPES) <= set(interfaces.TYPES)
    assert set(interfaces.NODE_FIELD_SINCE) == set(interfaces.TYPES)
    assert set(interfaces.DRIVER_DETAIL_SINCE) == set(interfaces.TYPES)
