"""Run the hostile-client suite against one URL and print a table.

    python -m ironic.tests.hostile http://127.0.0.1:6385 [--pid PID]
        [--cacert CA.pem] [--only NAME-PART] [--protocol | --floods]
        [--json FILE]

Exit status 0 when every probe passed. The server may be anything that
speaks HTTP/1.1 (the built-in server, Apache mod_wsgi, a candidate);
``--pid`` lets the memory bounds be checked (its children are counted).
"""

from __future__ import annotations

import argparse
import json
import sys

from ironic.tests.hostile import floods, protocol
from ironic.tests.hostile.target import Target


def run(target: Target, only: str | None = None, protocol_probes=True,
        flood_probes=True) -> list[protocol.Result]:
    results = []
    if protocol_probes:
        results += protocol.run_all(target, only)
    if flood_probes:
        results += floods.run_all(target, only)
    return results


def print_table(results: list[protocol.Result], out=sys.stdout) -> None:
    width = max((len(r.name) for r in results), default=10)
    for r in results:
        print(f"{r.name:<{width}}  {'pass' if r.passed else 'FAIL'}  "
              f"{r.detail}", file=out)
    failed = sum(not r.passed for r in results)
    print(f"{len(results) - failed} passed, {failed} failed", file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--cacert")
    parser.add_argument("--pid", type=int)
    parser.add_argument("--only")
    parser.add_argument("--path", default="/v1",
                        help="what the normal client GETs")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--protocol", action="store_true",
                       help="only the parsing probes (seconds)")
    group.add_argument("--floods", action="store_true",
                       help="only the resource attacks (minutes)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    target = Target(args.url, cacert=args.cacert, pid=args.pid,
                    path=args.path)
    results = run(target, args.only, not args.floods, not args.protocol)
    print_table(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([r.__dict__ for r in results], f, indent=1)
    return 0 if all(r.passed for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
