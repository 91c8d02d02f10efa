"""Run read-only inspection collectors of the real ironic-python-agent.

Run as a separate process (``python -m ironic.tests.ipa_collectors
pci-devices``): the agent registers its options on oslo.config's global
CONF, which the service's own options share in a test process. Only
collectors that merely read this machine (``/sys``) are offered; the
plugin data they add is printed as one JSON document.
"""

from __future__ import annotations

import json
import subprocess
import sys

READ_ONLY = {"pci-devices": "collect_pci_devices_info"}


def collect(name: str) -> dict:
    """The plugin data the agent's collector ``name`` adds (subprocess)."""
    out = subprocess.run([sys.executable, "-m", __name__, name],
                         check=True, capture_output=True, text=True,
                         timeout=60).stdout
    return json.loads(out)


def main(name: str) -> int:
    from ironic_python_agent import utils
    # The agent reads kernel parameters on first import; give it some.
    utils._set_cached_params({})
    from ironic_python_agent import inspector
    data: dict = {}
    failures = utils.AccumulatedFailures()
    getattr(inspector, READ_ONLY[name])(data, failures)
    if failures:
        print(failures.get_error(), file=sys.stderr)
        return 1
    print(json.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
