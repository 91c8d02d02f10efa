#!/usr/bin/env python3
"""Our hash ring (``ironic.hash_ring``) against ``tooz.hashring``.

For ``--hosts`` conductors and 2 ** ``--exponent`` partitions each: the
time to build a ring, the time of one owner lookup (the question every
node document of the API asks), the spread of ``--keys`` node UUIDs over
the hosts (largest share / ideal share), and the share of nodes that move
when one host leaves (ideal: 1 / hosts)::

    python tools/bench/hash_ring_bench.py --hosts 3 --keys 100000

The last line printed is the JSON result. (What importing tooz costs
in memory is told in RESULTS.md.)
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tooz import hashring as tooz_hashring  # noqa: E402

from ironic import hash_ring  # noqa: E402


class Ours:
    name = "ours"

    def __init__(self, hosts, exponent):
        self.ring = hash_ring.HashRing(hosts, exponent)

    def owner(self, key: str) -> str:
        return self.ring.get_hosts(key)[0]


class Tooz:
    name = "tooz"

    def __init__(self, hosts, exponent):
        self.ring = tooz_hashring.HashRing(hosts, partitions=2 ** exponent)

    def owner(self, key: str) -> str:
        # A set: with replicas it would not say which host is the owner.
        return next(iter(self.ring.get_nodes(key.encode())))


def measure(kind, hosts, exponent, keys) -> dict:
    build = min(timeit.repeat(lambda: kind(hosts, exponent), number=10,
                              repeat=3)) / 10
    ring = kind(hosts, exponent)
    sample = keys[:20000]
    lookup = min(timeit.repeat(lambda: [ring.owner(k) for k in sample],
                               number=1, repeat=3)) / len(sample)
    owners = {k: ring.owner(k) for k in keys}
    counts = {h: 0 for h in hosts}
    for h in owners.values():
        counts[h] += 1
    smaller = kind(hosts[1:], exponent)
    moved = sum(1 for k in keys if owners[k] != hosts[0]
                and smaller.owner(k) != owners[k])
    return {"build_ms": round(build * 1000, 3),
            "lookup_us": round(lookup * 1e6, 2),
            "max_share_over_ideal": round(
                max(counts.values()) / (len(keys) / len(hosts)), 3),
            "others_moved_when_one_leaves": moved}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=3)
    parser.add_argument("--exponent", type=int, default=5)
    parser.add_argument("--keys", type=int, default=100000)
    args = parser.parse_args()
    hosts = [f"conductor-{i}" for i in range(args.hosts)]
    keys = [str(uuid.uuid4()) for _ in range(args.keys)]
    result = {kind.name: measure(kind, hosts, args.exponent, keys)
              for kind in (Ours, Tooz)}
    for name, numbers in result.items():
        print(name, numbers)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
