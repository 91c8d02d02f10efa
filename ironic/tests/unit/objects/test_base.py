"""IronicObject.from_db from Core rows and from ORM-style instances."""

import types

import sqlalchemy as sa

from ironic.objects import base


class Thing(base.IronicObject):
    fields = {
        "uuid": base.Field(),
        "name": base.Field(),
        "extra": base.Field(default={}),
        "computed": base.Field(),
    }


class OneField(base.IronicObject):
    fields = {"name": base.Field()}


def _rows(sql: str) -> list:
    engine = sa.create_engine("sqlite://")
    with engine.connect() as conn:
        return conn.execute(sa.text(sql)).all()


def test_core_row_fills_fields_by_name_not_position():
    # Columns in another order than the fields, with one the object lacks
    # (joined_column) and without one it has (computed).
    row, = _rows("SELECT 'n1' AS name, 7 AS joined_column, 'u-1' AS uuid, "
                 "'{}' AS extra, 42 AS id")
    thing = Thing.from_db(row)
    assert (thing.id, thing.uuid, thing.name, thing.extra) == \
        (42, "u-1", "n1", "{}")
    assert thing.computed is None
    assert thing.what_changed() == set()
    assert not hasattr(thing, "joined_column")


def test_rows_with_different_columns_do_not_share_a_layout():
    first, = _rows("SELECT 1 AS id, 'a' AS uuid, 'x' AS name")
    second, = _rows("SELECT 'y' AS name, 2 AS id")
    assert (Thing.from_db(first).uuid, Thing.from_db(first).name) == \
        ("a", "x")
    assert (Thing.from_db(second).uuid, Thing.from_db(second).name,
            Thing.from_db(second).id) == (None, "y", 2)


def test_core_row_with_a_single_field():
    row, = _rows("SELECT 'only' AS name, 5 AS id")
    one = OneField.from_db(row)
    assert (one.id, one.name) == (5, "only")


def test_orm_style_instance_reads_attributes():
    db_obj = types.SimpleNamespace(id=3, uuid="u-3", name=None,
                                   extra={"a": 1})
    thing = Thing.from_db(db_obj)
    assert (thing.id, thing.uuid, thing.extra, thing.computed) == \
        (3, "u-3", {"a": 1}, None)
    # Later assignments are tracked as changes, as for a new object.
    thing.name = "renamed"
    assert thing.what_changed() == {"name"}


def test_as_dict_has_every_field_in_order_however_built():
    row, = _rows("SELECT 'n1' AS name, 'u-1' AS uuid, '{}' AS extra, "
                 "1 AS id")
    made = Thing(uuid="u-2", name="n2")
    made.extra = {"k": 1}
    for thing in (made, Thing.from_db(row)):
        doc = thing.as_dict()
        assert list(doc) == list(Thing.fields)
        assert doc == {n: getattr(thing, n) for n in Thing.fields}
    assert made.as_dict()["extra"] == {"k": 1}
    assert OneField(name="x").as_dict() == {"name": "x"}


def test_as_dict_reads_a_field_kept_outside_the_instance():
    class Derived(Thing):
        @property
        def computed(self):
            return "worked out"

    thing = Derived.__new__(Derived)
    thing.__dict__.update(uuid="u", name="n", extra={}, _changed=set())
    assert thing.as_dict()["computed"] == "worked out"
