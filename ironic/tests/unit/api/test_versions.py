"""The microversion record and the rule that computes the maximum."""

from ironic.api.controllers.v1 import versions as v


def test_history_covers_every_minor_version():
    assert sorted(v.HISTORY) == list(range(1, 116))
    for minor, change in v.HISTORY.items():
        assert change.summary, minor
        assert change.areas, minor
        assert change.implemented == (not change.needs), minor


def test_rule_stops_at_first_gap():
    done = v.Change("x", (v.NODE,), True)
    gap = v.Change("y", (v.CONDUCTOR,), False, {v.CONDUCTOR: "verb"})
    assert v.highest_implemented({1: done, 2: done, 3: gap, 4: done}) == 2
    assert v.highest_implemented({1: done, 3: done}) == 1
    assert v.highest_implemented({1: gap}) == 0


def test_max_version_is_computed_by_the_rule():
    assert v.MAX_VERSION == max(v.MIN_VERSION,
                                v.highest_implemented(v.HISTORY))
    for minor in range(1, v.MAX_VERSION + 1):
        assert v.HISTORY[minor].implemented, minor
    assert v.MAX_VERSION_STRING == f"1.{v.MAX_VERSION}"


def test_blockers_list_every_unimplemented_version():
    missing = {m for m, c in v.HISTORY.items() if not c.implemented}
    assert set(v.BLOCKERS) == missing
    assert v.MAX_VERSION < min(missing, default=v.NEWEST_KNOWN + 1)
