"""Resource attacks on the built-in server (issue 21 items 1-3): during
each, a normal client's GET on 127.0.0.1 is answered within 1 s, and the
server's memory grows less than the flood's bound."""

from __future__ import annotations

import pytest

from ironic.tests.hostile import floods


@pytest.mark.parametrize("flood", floods.floods(), ids=lambda f: f.name)
def test_flood(target, flood):
    result = flood.run(target)
    assert result.passed, result.detail
