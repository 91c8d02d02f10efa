"""Every object's typed fields agree with its table's columns.

The fields are the one declaration the API's schemas derive from; the
columns are what the database keeps. A field whose type, nullability or
length the column contradicts would let the API accept what the database
refuses (or truncates), or show a null the schema says cannot be.
"""

import importlib
import inspect
import pkgutil

import pytest
import sqlalchemy as sa

from ironic import objects
from ironic.db.sqlalchemy import models
from ironic.db.sqlalchemy import types as db_types
from ironic.objects import base, records

#: Columns a client writes with no length bound in the API, and why.
_UNBOUNDED = {
    # Checked as a MAC address or an InfiniBand GUID instead.
    ("Port", "address"), ("Portgroup", "address"),
}


def _objects() -> list[type[base.IronicObject]]:
    found = []
    for info in pkgutil.iter_modules(objects.__path__):
        module = importlib.import_module(f"{objects.__name__}.{info.name}")
        found += [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                  if issubclass(cls, base.IronicObject)
                  and cls is not base.IronicObject
                  and cls.__module__ == module.__name__]
    return sorted(found, key=lambda c: c.__name__)


def _kind(column: sa.Column) -> str:
    """The field type a column's values have."""
    col_type = column.type
    for db_type, kind in ((db_types.JSONDict, base.OBJECT),
                          (db_types.JSONList, base.ARRAY),
                          (sa.Boolean, base.BOOLEAN),
                          (sa.Integer, base.INTEGER),
                          (sa.DateTime, base.TIME),
                          (sa.String, base.STRING)):
        if isinstance(col_type, db_type):
            return kind
    raise AssertionError(f"no field type for {column!r}")


class Typed:
    """The typed fields of one table: an object's, or a row resource's."""

    def __init__(self, model: str, fields: dict[str, base.Field],
                 computed: frozenset[str] = frozenset()):
        self.model, self.fields, self.computed = model, fields, computed
        self.table = getattr(models, model).__table__

    def stored(self) -> dict[str, base.Field]:
        return {n: f for n, f in self.fields.items()
                if n not in self.computed}


TYPED = [Typed(getattr(cls, "_table", cls.__name__), cls.fields,
               cls._computed_fields()) for cls in _objects()] + [
    Typed(model, fields) for model, fields in records.FIELDS_BY_TABLE.items()]
_IDS = [t.model for t in TYPED]


def test_every_object_and_row_resource_is_checked():
    assert {"Node", "Port", "Portgroup", "Chassis", "Allocation",
            "Conductor", "InspectionRule", "DeployTemplate", "Runbook",
            "VolumeConnector", "VolumeTarget"} <= set(_IDS)


@pytest.mark.parametrize("typed", TYPED, ids=_IDS)
def test_fields_are_the_columns(typed):
    assert set(typed.stored()) == set(typed.table.columns.keys()) - {"id"}


@pytest.mark.parametrize("typed", TYPED, ids=_IDS)
def test_field_types_and_nullability_are_the_columns(typed):
    wrong = []
    for name, field in typed.stored().items():
        column = typed.table.columns[name]
        kind = base.STRING if field.type == base.UUID else field.type
        if kind != _kind(column):
            wrong.append(f"{name}: field {field.type}, column {column.type}")
        if field.nullable != column.nullable:
            wrong.append(f"{name}: field nullable={field.nullable}, column "
                         f"nullable={column.nullable}")
    assert not wrong


@pytest.mark.parametrize("typed", TYPED, ids=_IDS)
def test_lengths_fit_the_columns(typed):
    wrong = []
    for name, field in typed.stored().items():
        length = getattr(typed.table.columns[name].type, "length", None)
        if length is None:
            continue
        if field.max_length is not None and field.max_length > length:
            wrong.append(f"{name}: {field.max_length} > column {length}")
        # What a client writes must be bounded by the column (a UUID is
        # checked as one, so it always fits).
        unbounded = field.write is not None and field.type != base.UUID \
            and field.max_length is None
        if unbounded and (typed.model, name) not in _UNBOUNDED:
            wrong.append(f"{name}: writable, no max_length, column {length}")
    assert not wrong


@pytest.mark.parametrize("typed", TYPED, ids=_IDS)
def test_defaults_have_the_field_type(typed):
    python_types = {base.OBJECT: dict, base.ARRAY: list, base.BOOLEAN: bool,
                    base.INTEGER: int, base.STRING: str}
    for name, field in typed.fields.items():
        if field.default is not None:
            assert isinstance(field.default, python_types[field.type]), name
