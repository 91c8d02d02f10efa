"""The shared model: small objects loaded from and saved to the database.

An object keeps its field values and which of them changed, so ``save()``
writes only what the caller touched. Fields are declared once on the class,
typed (kind, nullability, length, who may write them) and with the API
microversion that introduced them; the API derives its views, its request
body schemas and its OpenAPI documents from these declarations
(``ironic.api.schemas``), and a unit test holds them to the table's
columns.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import operator
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ClassVar,
    Iterable,
    Mapping,
    Self,
)

from ironic.common import utils
from ironic.db import api as db_api
from ironic.db.sqlalchemy import tables

#: The JSON kinds of a field's value (``Field.type``). A UUID and a time
#: are strings on the wire; the API writes times in ISO 8601.
STRING = "string"
UUID = "uuid"
TIME = "date-time"
INTEGER = "integer"
BOOLEAN = "boolean"
OBJECT = "object"
ARRAY = "array"
#: A value whose kind the schema's keywords alone say (an enum of
#: strings, one of several forms): no JSON type of its own.
ANY = "any"
_JSON_TYPES = {STRING: "string", UUID: "string", TIME: "string",
               INTEGER: "integer", BOOLEAN: "boolean", OBJECT: "object",
               ARRAY: "array"}

#: Who may write a field through the API (``Field.write``).
READ_ONLY = None
CREATE = "create"    # given on create only
WRITE = "write"      # given on create and changed by PATCH


@dataclasses.dataclass(frozen=True)
class Field:
    """One attribute of an object, typed: the API's request and response
    schemas and the check against the database columns derive from it."""

    #: API microversion (minor number of 1.x) that first shows the field;
    #: None for fields never shown by the API.
    since: int | None = 1
    #: Value of a new object when the caller gives none (copied).
    default: Any = None
    #: One-line description, used in docs.
    doc: str = ""
    #: The kind of value (STRING, UUID, TIME, INTEGER, BOOLEAN, OBJECT,
    #: ARRAY, ANY).
    type: str = STRING
    #: Whether the stored value may be null (the column is NULL-able).
    nullable: bool = True
    #: Limits on a string's length the API enforces (the column's length
    #: or a tighter one; an unbounded TEXT column may still have one).
    max_length: int | None = None
    min_length: int | None = None
    #: READ_ONLY, CREATE or WRITE.
    write: str | None = READ_ONLY
    #: A request body may give null (which stands for the default).
    #: None: when the value is nullable or has a default.
    body_null: bool | None = None
    #: Other JSON types a request body may give for it (the older flags
    #: take "true"/"false" strings too).
    body_also: tuple[str, ...] = ()
    #: Further JSON schema keywords of the value (a pattern, an enum, the
    #: properties of a sub-document).
    schema: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: The items of an array, typed (their schema is the array's
    #: ``items``); a request's items are checked one by one, in order.
    items: Field | None = None
    #: What the API says of a value of a request its schema refuses, in
    #: place of the validator's words (a ``str.format`` template: the
    #: value is ``{value}``); None: the validator's words.
    invalid: str | None = None
    #: A rule no JSON schema says (a vocabulary another library keeps, a
    #: count of distinct items), called with a value of a request the
    #: schema took; it raises the API's error.
    check: Callable[[Any], None] | None = None

    def json_type(self) -> str:
        """The JSON schema type of a (non-null) value."""
        return _JSON_TYPES[self.type]

    def value_schema(self) -> dict[str, Any]:
        """The JSON schema of a stored value, as the API shows it (the
        lengths bound what a client writes, not what is shown)."""
        if self.type == ANY:
            return dict(self.schema)
        out: dict[str, Any] = {"type": self.json_type()}
        if self.type == TIME:
            out["format"] = "date-time"
        if self.nullable:
            out["type"] = [out["type"], "null"]
        return {**out, **self.schema, **self._items(Field.value_schema)}

    def body_schema(self) -> dict[str, Any]:
        """The JSON schema of the value a request body may give."""
        if self.type == ANY:
            return {**self.schema, **self._lengths()}
        types = [self.json_type(), *self.body_also]
        null = self.body_null
        if null is None:
            null = self.nullable or self.default is not None
        if null:
            types.append("null")
        out: dict[str, Any] = {
            "type": types if len(types) > 1 else types[0]}
        return {**out, **self.schema, **self._items(Field.body_schema),
                **self._lengths()}

    def _items(self, schema: Callable[[Field], dict[str, Any]]
               ) -> dict[str, Any]:
        return {} if self.items is None else {"items": schema(self.items)}

    def _lengths(self) -> dict[str, int]:
        out = {}
        if self.min_length is not None:
            out["minLength"] = self.min_length
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        return out


@dataclasses.dataclass(frozen=True)
class Body:
    """A request body (or a document inside one) that is no resource: an
    action's arguments, what the agent sends. Declared once as typed
    fields; ``schema`` is what the handler checks the body against and,
    less the fields newer than a version (their ``since``), what the
    OpenAPI document gives at that version."""

    fields: Mapping[str, Field]
    required: tuple[str, ...] = ()
    #: Whether other members are allowed (None: the schema does not say,
    #: so they are).
    extra: bool | None = False
    #: What the API says of a body whose members its schema refuses
    #: (one missing, one unknown), in place of the validator's words.
    invalid: str | None = None
    #: Whether a request may send no body at all (read as ``{}``).
    optional: bool = False
    #: The members are a call's arguments (an action's body): refused as
    #: the reference refuses arguments (an unexpected one, a missing one,
    #: one of the wrong type, in the order of ``fields``), not with the
    #: schema's words.
    arguments: bool = False

    @functools.cached_property
    def schema(self) -> dict[str, Any]:
        # One object, made once: validators are cached by identity.
        return self._schema(self.fields)

    def at(self, ver: int) -> dict[str, Any]:
        """The schema with only the members version 1.``ver`` takes."""
        return self._schema({name: f for name, f in self.fields.items()
                             if f.since is None or f.since <= ver})

    def _schema(self, fields: Mapping[str, Field]) -> dict[str, Any]:
        # The keyword order is behaviour: of a body's several faults the
        # first found is reported (jsonschema's best_match breaks ties by
        # order), so a missing member is named before an unknown one.
        out: dict[str, Any] = {"type": "object", "properties": {
            name: f.body_schema() for name, f in fields.items()}}
        required = [name for name in self.required if name in fields]
        if required:
            out["required"] = required
        if self.extra is not None:
            out["additionalProperties"] = self.extra
        return out


def timestamps(since: int) -> dict[str, Field]:
    """The ``created_at`` and ``updated_at`` fields every object has."""
    return {"created_at": Field(since, type=TIME, doc="Creation time."),
            "updated_at": Field(since, type=TIME, doc="Last update time.")}


def uuid_field(since: int, doc: str) -> Field:
    """The ``uuid`` of a resource: given on create, or generated when the
    body gives none or null; never changed afterwards."""
    return Field(since, type=UUID, nullable=False, write=CREATE,
                 body_null=True, doc=doc)


def object_field(since: int | None, doc: str, write: str | None = READ_ONLY,
                 *, body_null: bool | None = None,
                 schema: dict[str, Any] | None = None) -> Field:
    """A JSON object (``extra``, ``properties``...): never null, empty
    when unset."""
    return Field(since, type=OBJECT, nullable=False, default={}, write=write,
                 body_null=body_null, schema=schema or {}, doc=doc)


class IronicObject:
    """Base of Node, Port, Portgroup, Chassis, Conductor."""

    fields: ClassVar[dict[str, Field]] = {}
    _db_create: ClassVar[str]
    #: The model class in ironic.db.sqlalchemy.models and the db API's
    #: list function, for the generic collection reads below.
    _table: ClassVar[str]
    _db_list: ClassVar[str]
    _db_update: ClassVar[str]
    _db_destroy: ClassVar[str]
    #: The db API's lookup of one row, called ``(value, column)``, and
    #: what ``get`` raises for an identifier it cannot look up: the
    #: exception class and the keyword naming the identifier.
    _db_get: ClassVar[str]
    _not_found: ClassVar[type[Exception]]
    _not_found_arg: ClassVar[str]
    #: The database id (None until created).
    id: Any

    if TYPE_CHECKING:
        # The fields are set per class from ``fields``: for the type
        # checker each is an attribute of unknown type.
        def __getattr__(self, name: str) -> Any: ...

    def __init_subclass__(cls, *, db_name: str | None = None,
                          table: str | None = None, **kwargs: Any) -> None:
        """``db_name``: the resource's name in the db API, whose functions
        are then ``create_<name>``, ``get_<name>`` (``value, column``),
        ``get_<name>_list``, ``update_<name>`` and ``destroy_<name>``;
        ``table``: its model in ``ironic.db.sqlalchemy.models``."""
        super().__init_subclass__(**kwargs)
        if db_name is not None:
            cls._db_create = f"create_{db_name}"
            cls._db_get = f"get_{db_name}"
            cls._db_list = f"get_{db_name}_list"
            cls._db_update = f"update_{db_name}"
            cls._db_destroy = f"destroy_{db_name}"
        if table is not None:
            cls._table = table

    def __init__(self, **values: Any) -> None:
        object.__setattr__(self, "_changed", set())
        for name, field in self.fields.items():
            if name in values:
                value = values[name]
            else:
                value = copy.deepcopy(field.default)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "id", values.get("id"))
        self._changed.update(values)
        self._changed.discard("id")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self.fields and name != "id":
            raise AttributeError(f"{type(self).__name__} has no field {name}")
        object.__setattr__(self, name, value)
        self._changed.add(name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'uuid', self.id)}>"

    @classmethod
    def from_db(cls, db_obj: Any) -> Self:
        obj = cls.__new__(cls)
        values = obj.__dict__
        columns = getattr(db_obj, "_fields", None)
        if isinstance(columns, tuple):
            # A Core row or a named tuple: its columns by position, in one
            # C call. Reading sixty-odd attributes of a row one by one by
            # name cost more than the query that fetched it.
            # (typeshed's lru_cache wants Hashable, which type[Self] is)
            names, pick, missing, id_pick = _row_layout(
                cls, columns)  # type: ignore[arg-type]
            values.update(zip(names, pick(db_obj), strict=True))
            values.update(missing)
            values["id"] = id_pick(db_obj)
        else:
            for name in cls.fields:
                values[name] = getattr(db_obj, name, None)
            values["id"] = db_obj.id
        values["_changed"] = set()
        return obj

    def what_changed(self) -> set[str]:
        return set(self._changed)

    def mark_changed(self, name: str) -> None:
        """Record an in-place change of a mutable (dict/list) field."""
        self._changed.add(name)

    def reset_changes(self) -> None:
        self._changed.clear()

    def as_dict(self) -> dict[str, Any]:
        values = self.__dict__
        try:
            # Every field lives in the instance's __dict__ (see __init__
            # and from_db): a subscript each instead of a getattr.
            return {name: values[name] for name in self.fields}
        except KeyError:
            return {name: getattr(self, name) for name in self.fields}

    def _db_values(self, names) -> dict[str, Any]:
        return {n: getattr(self, n) for n in names if n in self.fields
                and n not in self._computed_fields()}

    @classmethod
    def _computed_fields(cls) -> frozenset[str]:
        """Fields that are not columns of the object's own table."""
        return frozenset()

    def _refresh_from(self, db_obj: Any) -> None:
        object.__setattr__(self, "id", db_obj.id)
        for name in self.fields:
            if name not in self._computed_fields():
                object.__setattr__(self, name, getattr(db_obj, name, None))
        self.reset_changes()

    def create(self) -> None:
        values = self._db_values(self.fields)
        db_obj = getattr(db_api.get_instance(), self._db_create)(values)
        self._refresh_from(db_obj)

    def save(self) -> None:
        changed = self._db_values(self._changed)
        if changed:
            db_obj = getattr(db_api.get_instance(), self._db_update)(
                self.id, changed)
            self._refresh_from(db_obj)
        self.reset_changes()

    def destroy(self) -> None:
        self.delete(self.id)

    @classmethod
    def delete(cls, obj_id: int) -> None:
        """Delete the row with this database id (its NotFound when none)
        without loading it first."""
        getattr(db_api.get_instance(), cls._db_destroy)(obj_id)

    @staticmethod
    def _is_name(value: Any) -> bool:
        """Whether ``get`` looks up ``value`` (neither an id nor a UUID)
        by name; the classes whose rows have names say how one looks."""
        return False

    @classmethod
    def get(cls, ident: str | int) -> Self:
        """Load by database id, UUID or (see ``_is_name``) name; the
        class's not-found exception for any other identifier."""
        value: str | int = ident
        if isinstance(ident, int):
            column = "id"
        elif utils.is_uuid_like(ident):
            column, value = "uuid", utils.normalize_uuid(ident)
        elif cls._is_name(ident):
            column = "name"
        else:
            raise cls._not_found(**{cls._not_found_arg: ident})
        row = getattr(db_api.get_instance(), cls._db_get)(value, column)
        return cls.from_db(row)

    @classmethod
    def table_columns(cls) -> tuple[str, ...]:
        """The columns of the object's table, in table order."""
        return tables.columns(cls._table)

    @classmethod
    def json_columns(cls) -> frozenset[str]:
        """The columns holding JSON documents (they have no order)."""
        return tables.json_columns(cls._table)

    @classmethod
    def list_rows(cls, criteria: Iterable[tuple[str, Any]] = (),
                  **page: Any) -> list:
        """A page of rows meeting every ``(name, value)`` criterion (see
        ``ironic.db.sqlalchemy.tables``); ``page``: columns, limit, marker, sort_key, sort_dir,
        marker_not_found, as the db API's list functions take them."""
        return getattr(db_api.get_instance(), cls._db_list)(
            tables.conditions(cls._table, criteria), **page)


def uuids_for_ids(kind: str, ids: Iterable[int | None]) -> dict[int, str]:
    """{database id: UUID} of the ``kind`` rows ("node", "chassis",
    "portgroup", "allocation") with these ids (None ignored)."""
    return db_api.get_instance().uuids_for_ids(kind, ids)


@functools.lru_cache(maxsize=64)
def _row_layout(cls: type[IronicObject], columns: tuple[str, ...]
                ) -> tuple[tuple[str, ...], Callable, dict[str, None],
                           Callable]:
    """Where each field of ``cls`` sits in rows with ``columns``: the
    fields found there, a getter returning their values in that order,
    the fields the row lacks (they read None) and a getter for the id."""
    names = tuple(name for name in cls.fields if name in columns)
    positions = [columns.index(name) for name in names]
    # itemgetter with one position returns a value, not a 1-tuple.
    pick = (operator.itemgetter(*positions) if len(positions) > 1
            else lambda row: tuple(row[i] for i in positions))
    missing = dict.fromkeys(name for name in cls.fields
                            if name not in columns)
    return names, pick, missing, operator.itemgetter(columns.index("id"))
