#!/usr/bin/env python3
"""Write (or check) doc/source/images/states.dot from ironic.common.states.

    python tools/states_diagram.py          # rewrite the committed diagram
    python tools/states_diagram.py --check  # exit 1 when it is stale
    dot -Tsvg doc/source/images/states.dot -o states.svg   # draw it
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ironic.common import states_diagram  # noqa: E402

TARGET = ROOT / "doc" / "source" / "images" / "states.dot"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail when the committed diagram is stale")
    args = parser.parse_args()
    text = states_diagram.dot()
    if args.check:
        if not TARGET.exists() or TARGET.read_text() != text:
            print(f"{TARGET} is stale: run tools/states_diagram.py")
            return 1
        return 0
    TARGET.write_text(text)
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
