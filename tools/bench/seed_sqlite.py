#!/usr/bin/env python3
"""Grow a service's sqlite database to N nodes by cloning rows.

    python tools/bench/seed_sqlite.py --db state/ironic.sqlite --nodes 10000

Creating 10,000 nodes through the real Ironic's API takes about 20 minutes
on a 2-core machine, and what the 10,000-node phases measure is listing,
not creation. So a few nodes (each with its port) are created through the
API first, then each of their rows is cloned with a new UUID, name and MAC
until the table holds N nodes. It reads the column names from the file, so
the same command grows this service's database and the real Ironic's.
Stop the service first: sqlite has one writer.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import uuid as uuidlib


def _rows(db: sqlite3.Connection, table: str, where: str = "",
          args: tuple = ()) -> list[dict]:
    return [dict(r) for r in db.execute(
        f"SELECT * FROM {table} {where} ORDER BY id", args)]


def _insert(db: sqlite3.Connection, table: str, row: dict) -> int:
    cols = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    cur = db.execute(f"INSERT INTO {table} ({cols}) VALUES ({marks})",
                     list(row.values()))
    return cur.lastrowid


def _mac(i: int) -> str:
    octets = [0x52, 0x54, 0x10, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF]
    return ":".join(f"{o:02x}" for o in octets)


def grow(path: str, total: int) -> int:
    """Clone node (and port) rows until ``total`` nodes; returns how many
    were added."""
    db = sqlite3.connect(path, timeout=60)
    db.row_factory = sqlite3.Row
    templates = _rows(db, "nodes")
    if not templates:
        raise SystemExit("create at least one node through the API first")
    ports = {}
    for port in _rows(db, "ports"):
        ports.setdefault(port["node_id"], port)
    have = len(templates)
    added = 0
    for i in range(have, total):
        node = dict(templates[i % len(templates)])
        old_id = node.pop("id")
        node.update(uuid=str(uuidlib.uuid4()), name=f"seed-{i:06d}",
                    reservation=None, instance_uuid=None)
        node_id = _insert(db, "nodes", node)
        port = ports.get(old_id)
        if port is not None:
            port = dict(port)
            port.pop("id")
            port.update(uuid=str(uuidlib.uuid4()), node_id=node_id,
                        address=_mac(i))
            if "name" in port:
                port["name"] = None
            _insert(db, "ports", port)
        added += 1
    db.commit()
    db.close()
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="the sqlite file")
    parser.add_argument("--nodes", type=int, required=True,
                        help="how many nodes the table should hold")
    args = parser.parse_args(argv)
    added = grow(args.db, args.nodes)
    print(f"added {added} nodes to {args.db}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
