"""Count the imports that point the wrong way between ironic's layers.

Run from the repository root::

    PYTHONPATH=$PWD python tools/import_layers.py [--list]

Prints, for each rule of the layering (the same rules as the contracts in
``.importlinter``, counted here without their ``ignore_imports``), how many
importer -> imported module pairs break it, and the circles between the
top-level packages (``ironic.api``, ``ironic.common``...): the pairs that
import each other and the packages that all reach one another. Imports inside
functions count as much as those at the top of a module: they are the same
dependency, only deferred. Tests are left out.
"""

from __future__ import annotations

import argparse
import itertools
from collections import defaultdict

import grimp

# The features beside common that left it (they may use db and drivers).
ROOMS = ["ironic.driver_registry", "ironic.hash_ring",
         "ironic.inspection_rules", "ironic.service"]
# The task protocols: a room below drivers and the rooms, above objects.
TASK = ["ironic.task"]

# (name, importing packages, forbidden imported packages)
RULES = [
    ("api -> db/sqlalchemy", ["ironic.api"], ["ironic.db", "sqlalchemy"]),
    ("api -> drivers", ["ironic.api"], ["ironic.drivers"]),
    ("drivers -> api/db", ["ironic.drivers"], ["ironic.api", "ironic.db"]),
    ("common -> upper floors", ["ironic.common"],
     ["ironic.api", "ironic.conductor", "ironic.drivers", "ironic.db",
      "ironic.objects"] + ROOMS + TASK),
    ("task -> above objects", TASK,
     ["ironic.api", "ironic.conductor", "ironic.drivers", "ironic.db"]
     + ROOMS),
    ("conductor -> api", ["ironic.conductor"], ["ironic.api"]),
    ("objects -> api/conductor/drivers", ["ironic.objects"],
     ["ironic.api", "ironic.conductor", "ironic.drivers"]),
    ("db -> above db", ["ironic.db"],
     ["ironic.api", "ironic.conductor", "ironic.drivers", "ironic.objects"]),
    ("outside db/objects -> db",
     ["ironic.api", "ironic.common", "ironic.conductor", "ironic.drivers",
      "ironic.command", "ironic.conf", "ironic.metrics", "ironic.pxe_filter",
      "ironic.serving"] + ROOMS + TASK, ["ironic.db"]),
]


def _under(module: str, packages: list[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _edges(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    edges = set()
    for importer in graph.modules:
        if not importer.startswith("ironic.") or \
                importer.startswith("ironic.tests"):
            continue
        for imported in graph.find_modules_directly_imported_by(importer):
            edges.add((importer, imported))
    return edges


def _package_links(edges: set[tuple[str, str]]) -> dict[str, set[str]]:
    links = defaultdict(set)
    for importer, imported in edges:
        a, b = _top(importer), _top(imported)
        if a != b and b.startswith("ironic."):
            links[a].add(b)
    return links


def _reachable(links: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in links.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def package_circles(edges: set[tuple[str, str]]
                    ) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """Pairs of top-level packages importing each other, and the groups
    of packages that all reach one another (strongly connected)."""
    links = _package_links(edges)
    pairs = [(a, b) for a, b in itertools.combinations(sorted(links), 2)
             if b in links[a] and a in links[b]]
    reach = {p: _reachable(links, p) for p in links}
    groups = []
    for p in sorted(links):
        group = sorted(q for q in links if q in reach[p] and p in reach[q])
        if len(group) > 1 and group not in groups:
            groups.append(group)
    return pairs, groups


def module_edges() -> set[tuple[str, str]]:
    """Every importer -> imported pair of ironic's modules (tests left
    out), imports under ``if TYPE_CHECKING:`` and in functions included."""
    return _edges(grimp.build_graph("ironic", include_external_packages=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", action="store_true",
                        help="print every offending import")
    args = parser.parse_args()
    edges = module_edges()
    every_bad = set()
    for name, importers, forbidden in RULES:
        bad = sorted((a, b) for a, b in edges
                     if _under(a, importers) and _under(b, forbidden))
        every_bad.update(bad)
        print(f"{name:36} {len(bad):4}")
        if args.list:
            for a, b in bad:
                print(f"    {a} -> {b}")
    pairs, groups = package_circles(edges)
    print(f"{'wrong-way imports (any rule)':36} {len(every_bad):4}")
    print(f"{'package pairs importing each other':36} {len(pairs):4}")
    for a, b in pairs:
        print(f"    {a} <-> {b}")
    print(f"{'packages in one circle':36} "
          f"{sum(len(g) for g in groups):4}")
    for group in groups:
        print("    " + ", ".join(group))


if __name__ == "__main__":
    main()
