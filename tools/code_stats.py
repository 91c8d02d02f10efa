"""The shape of the code a maintainer has to read: module and function sizes.

Run from the repository root (or give another checkout's root)::

    python tools/code_stats.py [ROOT] [--json]

Counts the non-test Python modules under ``ironic/``: modules over 500
lines (the largest listed), and the length of every function and method
(from its ``def`` line to its last line, decorators left out): median,
90th percentile, the longest. Lines are physical lines, comments and
docstrings included, as a reader meets them.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
from pathlib import Path

LONG_MODULE = 500


def python_files(root: Path) -> list[Path]:
    package = root / "ironic"
    return sorted(p for p in package.rglob("*.py")
                  if "tests" not in p.relative_to(package).parts)


def function_lengths(tree: ast.AST) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((node.name, node.end_lineno - node.lineno + 1))
    return found


def measure(root: Path) -> dict:
    modules: dict[str, int] = {}
    functions: list[tuple[str, int]] = []
    for path in python_files(root):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(root))
        modules[name] = len(text.splitlines())
        functions += [(f"{name}:{func}", length) for func, length
                      in function_lengths(ast.parse(text, name))]
    lengths = sorted(length for _, length in functions)
    long_modules = sorted(((n, c) for n, c in modules.items()
                           if c > LONG_MODULE), key=lambda x: -x[1])
    return {
        "modules": len(modules),
        "lines": sum(modules.values()),
        "modules_over_500_lines": len(long_modules),
        "largest_modules": long_modules[:10],
        "functions": len(lengths),
        "function_length_median": statistics.median(lengths),
        "function_length_p90": lengths[int(0.9 * (len(lengths) - 1))],
        "longest_functions": sorted(functions, key=lambda x: -x[1])[:10],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    stats = measure(args.root)
    if args.json:
        json.dump(stats, sys.stdout, indent=2)
        print()
        return 0
    for key in ("modules", "lines", "modules_over_500_lines", "functions",
                "function_length_median", "function_length_p90"):
        print(f"{key:32} {stats[key]}")
    print("largest modules:")
    for name, count in stats["largest_modules"]:
        print(f"    {count:6}  {name}")
    print("longest functions:")
    for name, count in stats["longest_functions"]:
        print(f"    {count:6}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
