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

    def load_dialect_impl(self, dialect):
        # MySQL/MariaDB TEXT stops at 64 KiB, less than one request body
        # ([api]max_json_body_size), and a strict server refuses longer
        # values: LONGTEXT there. sqlite and PostgreSQL text has no limit.
        if dialect.name == "mysql":
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(types.Text())

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


# Every JSON column is LONGTEXT on MySQL now; the names stay for the models
# that asked for it first.
LongJSONDict = JSONDict
LongJSONList = JSONList
