"""benchmarks.engine_ops measures what it names (no time is asserted beyond "it was measured")."""

import time

import pytest

from benchmarks.engine_ops import measure, time_apply


class _SlowCloneState:
    """A stand-in state: ``clone()`` takes 20 ms, ``apply_action`` 1 ms and records the action."""

    def __init__(self):
        self.applied = []

    def clone(self):
        time.sleep(0.020)
        return _SlowCloneState()

    def apply_action(self, action):
        time.sleep(0.001)
        self.applied.append(action)


def test_time_apply_times_the_apply_alone_on_fresh_clones():
    """The 20 ms clones are made before the clock starts: 4 applies of 1 ms each give about
    1,000 µs per call, far from the clone's 20,000; the original is left as it was."""
    state = _SlowCloneState()
    us = time_apply(state, 7, 4)
    assert 1000 <= us < 10_000
    assert state.applied == []
    with pytest.raises(ValueError, match="repeats must be at least 1, got 0"):
        time_apply(state, 7, 0)


def test_badland_wolves_apply_is_measured_not_floored_at_zero():
    """Badland Wolves ``apply`` (a few µs against a clone's 30-70) printed 0.0: it was clone +
    apply minus a separately timed clone, floored at 0, and the clone timed first on a position
    was the slower one. Every operation's median is now a positive time."""
    times = measure("badland_wolves", 4, 5, 2)
    assert set(times) == {"clone", "apply", "resample", "observe", "mask"}
    assert all(t > 0 for t in times.values()), times
