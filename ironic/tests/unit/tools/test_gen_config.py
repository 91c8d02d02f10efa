"""The committed sample configuration and policy files are current."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys

from oslo_config import cfg

import ironic.conf
from ironic.tests.unit.tools import load_tool

gen = load_tool("gen_config")

_REGEN = "stale: run 'python3 tools/gen_config.py' and commit the result"


def test_committed_samples_are_current():
    # A fresh interpreter: option defaults are mutable globals (set_default,
    # set_transport_defaults) that other tests in this process change.
    run = subprocess.run([sys.executable, gen.__file__, "--check"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"a sample is {_REGEN}:\n{run.stdout[:4000]}" \
                                f"{run.stderr[-2000:]}"


def _sample_options(path: str) -> set[tuple[str, str]]:
    options, section = set(), None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if m := re.match(r"^\[(\S+)\]$", line):
                section = m[1]
            elif m := re.match(r"^#(\w+) =", line):
                options.add((section, m[1]))
    return options


def _registered_by_our_modules() -> set[tuple[str, str]]:
    # A private ConfigOpts, so options other tests register at run time
    # (command-line ones, for example) do not leak in.
    conf = cfg.ConfigOpts()
    builtin = set(conf)  # config_source and friends, not ours
    for info in pkgutil.iter_modules(ironic.conf.__path__):
        module = importlib.import_module(f"ironic.conf.{info.name}")
        if hasattr(module, "register_opts"):
            module.register_opts(conf)
    found = {("DEFAULT", name) for name in set(conf) - builtin
             if not isinstance(conf[name], cfg.ConfigOpts.GroupAttr)}
    for name in conf:
        if isinstance(conf[name], cfg.ConfigOpts.GroupAttr):
            found |= {(name, opt) for opt in conf[name]}
    return found


def test_sample_documents_every_option_we_register():
    # An option registered but missing from ironic.conf.opts works, yet no
    # operator would ever find it in the sample.
    missing = _registered_by_our_modules() - _sample_options(gen.CONFIG_SAMPLE)
    assert not missing, f"not in the sample (add to ironic/conf/opts.py): " \
                        f"{sorted(missing)}"


def test_sample_shows_deterministic_host_default():
    # The real default is this machine's hostname; the sample must not
    # change from one machine to the next.
    assert ("#host = localhost\n"
            in open(gen.CONFIG_SAMPLE, encoding="utf-8").read())


def test_policy_rule_names_are_unique():
    # The sample generator prints a duplicate twice without complaint,
    # while the enforcer keeps only one of them: say which one is meant.
    from ironic.common import policy

    names = [rule.name for rule in policy.list_rules()]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"policy rules defined twice: {duplicates}"
