"""Request parsing of the built-in server (issue 21 item 6 and the
serving issue's corpus): every probe of ``protocol.PROBES``."""

from __future__ import annotations

import pytest

from ironic.tests.hostile import protocol


@pytest.mark.parametrize("probe", protocol.PROBES, ids=lambda p: p.name)
def test_probe(target, probe):
    result = probe.run(target)
    assert result.passed, result.detail
