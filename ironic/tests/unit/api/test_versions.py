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
    history = {1: done, 2: done, 3: gap, 4: done}
    assert v.highest_implemented(history) == 2
    assert v.highest_implemented(history, frozenset({v.CONDUCTOR})) == 4
    assert v.highest_implemented({1: gap}) == 0


def test_max_version_is_computed_by_the_rule():
    assert v.STRICT_MAX == v.highest_implemented(v.HISTORY)
    ours = v.highest_implemented(v.HISTORY, v.DEFERRED_AREAS)
    assert v.MAX_VERSION == max(v.MIN_VERSION, min(v.CEILING, ours))
    # Every version up to the maximum is done or waits only on work that
    # other issues own; nothing of ours is missing below it.
    for minor in range(1, v.MAX_VERSION + 1):
        assert set(v.HISTORY[minor].needs) <= v.DEFERRED_AREAS, minor
    assert v.MAX_VERSION_STRING == f"1.{v.MAX_VERSION}"


def test_blockers_list_every_unimplemented_version():
    missing = {m for m, c in v.HISTORY.items() if not c.implemented}
    assert set(v.BLOCKERS) == missing
    assert v.STRICT_MAX < min(missing)
