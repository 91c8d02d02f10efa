#!/usr/bin/env python3
"""Regenerate the sample configuration and the sample policy file.

    etc/ironic/ironic.conf.sample   oslo-config-generator with
                                    etc/ironic/ironic-config-generator.conf
    etc/ironic/policy.yaml.sample   oslopolicy-sample-generator with
                                    etc/ironic/ironic-policy-generator.conf

Both generators find option lists and policy rules through entry points
(setup.cfg.d/oslo.config.opts.cfg, oslo.policy.policies.cfg). This tool
works straight from a checkout: when the package is not installed it
publishes those entry points itself, so no 'pip install -e' is needed.

Run it after adding or changing an option or a policy rule and commit the
samples; the unit tests fail while a committed sample is stale.
--check only compares (exit 1 and a diff when a sample is stale).
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import tempfile
import warnings

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)

import gen_setup_cfg  # noqa: E402

ROOT = gen_setup_cfg.ROOT
ETC = os.path.join(ROOT, "etc", "ironic")
CONFIG_SAMPLE = os.path.join(ETC, "ironic.conf.sample")
POLICY_SAMPLE = os.path.join(ETC, "policy.yaml.sample")


def write_config_sample(output: str) -> None:
    """Run oslo-config-generator in-process into ``output``."""
    from oslo_config import generator

    gen_setup_cfg.expose_entry_points(ROOT)
    generator.main(["--config-file",
                    os.path.join(ETC, "ironic-config-generator.conf"),
                    "--output-file", output])


def write_policy_sample(output: str) -> None:
    """Run oslopolicy-sample-generator in-process into ``output``."""
    from oslo_config import cfg
    from oslo_policy import generator

    gen_setup_cfg.expose_entry_points(ROOT)
    # A private ConfigOpts: the generator would otherwise register its
    # options on the service's global CONF.
    generator.generate_sample(
        ["--config-file", os.path.join(ETC, "ironic-policy-generator.conf"),
         "--output-file", output], conf=cfg.ConfigOpts())


SAMPLES = ((CONFIG_SAMPLE, write_config_sample),
           (POLICY_SAMPLE, write_policy_sample))


def sample_diff(path: str, writer) -> list[str]:
    """Unified diff from the committed ``path`` to a fresh generation."""
    with tempfile.TemporaryDirectory() as tmp:
        fresh = os.path.join(tmp, os.path.basename(path))
        writer(fresh)
        with open(fresh, encoding="utf-8") as f:
            expected = f.read().splitlines(keepends=True)
    try:
        with open(path, encoding="utf-8") as f:
            current = f.read().splitlines(keepends=True)
    except FileNotFoundError:
        current = []
    rel = os.path.relpath(path, ROOT)
    return list(difflib.unified_diff(current, expected, rel, "regenerated"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--check", action="store_true",
                        help="only report (exit 1) when a sample is stale")
    args = parser.parse_args(argv)
    # Libraries imported by the generators warn about their own
    # deprecations; nothing a user of this tool can act on.
    warnings.simplefilter("ignore", DeprecationWarning)
    warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
    if args.check:
        stale = False
        for path, writer in SAMPLES:
            diff = sample_diff(path, writer)
            sys.stdout.writelines(diff)
            stale = stale or bool(diff)
        return 1 if stale else 0
    for path, writer in SAMPLES:
        writer(path)
        print(f"wrote {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
