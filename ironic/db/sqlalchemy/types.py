"""Column types shared by the models."""

import json
from typing import Any

import orjson
from sqlalchemy import types
from sqlalchemy.dialects import mysql


class JSONText(types.TypeDecorator):
    """A JSON document stored as text, portable on sqlite, MariaDB, PostgreSQL.

    ``None`` is stored as the empty value of the column's kind (the columns
    are NOT NULL), and a NULL written by hand reads back the same way, so
    callers never branch on ``None`` for dict/list fields.
    """

    impl = types.Text
    cache_ok = True
    empty: Any = None

    def process_bind_param(self, value, dialect):
        if value is None:
            value = self.empty()
        return json.dumps(value, separators=(",", ":"))

    def process_result_value(self, value, dialect):
        if value is None:
            return self.empty()
        # orjson parses the same JSON about twice as fast; lists decode
        # eleven documents per node.
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            # NaN and Infinity: json.dumps writes them, orjson rejects them.
            return json.loads(value)


class JSONDict(JSONText):
    cache_ok = True
    empty = dict


class JSONList(JSONText):
    cache_ok = True
    empty = list


class LongJSONDict(JSONDict):
    """A JSONDict that may grow to megabytes (a configdrive in
    instance_info): LONGTEXT on MySQL/MariaDB, whose TEXT stops at 64 KiB;
    sqlite and PostgreSQL text has no such limit."""

    cache_ok = True

    def load_dialect_impl(self, dialect):
        if dialect.name == "mysql":
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(types.Text())


class LongJSONList(JSONList):
    """A JSONList stored as LONGTEXT on MySQL/MariaDB (see LongJSONDict)."""

    cache_ok = True

    def load_dialect_impl(self, dialect):
        return LongJSONDict.load_dialect_impl(self, dialect)
