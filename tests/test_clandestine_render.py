"""The Clandestine picture (``render_rgb``): shape, dtype, determinism, 2-5 seats."""

from __future__ import annotations

import numpy as np
import pytest

from envs.clandestine.engine import ClandestineState

pytest.importorskip("matplotlib")


def _played(n: int, seed: int, steps: int = 300) -> ClandestineState:
    st = ClandestineState(seed=seed, num_players=n)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if st.is_terminal:
            break
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_action_mask()))))
    return st


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_render_rgb_draws_every_player_count(n):
    img = _played(n, seed=n).render_rgb()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] > 500 and img.shape[1] > 1000
    # not a blank canvas: many distinct colours (Society colours, pawns, dark Relics)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 50


def test_render_rgb_is_deterministic_and_tracks_the_position():
    a = _played(3, seed=11)
    b = _played(3, seed=11)
    img_a, img_b = a.render_rgb(), b.render_rgb()
    assert np.array_equal(img_a, img_b)
    other = _played(3, seed=12)
    assert not np.array_equal(other.render_rgb(), img_a)


def test_render_draws_no_hidden_card_name():
    """Only public Relics (Map, assigned slots) are named: a Relic held in a hand only, whose
    name is not public anywhere, never shows up in the drawn text."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.axes

    from envs.clandestine import render as R

    st = _played(4, seed=5)
    seen: list[str] = []

    orig_ax = matplotlib.axes.Axes.text

    def spy(self, x, y, s, *args, **kw):
        seen.append(str(s))
        return orig_ax(self, x, y, s, *args, **kw)

    matplotlib.axes.Axes.text = spy
    try:
        R.render_rgb(st)
    finally:
        matplotlib.axes.Axes.text = orig_ax
    drawn = "\n".join(seen)
    public = {r for r in st.relic_map if r >= 0} | {r for s in st.slots for r in s if r >= 0}
    hidden = {r for h in st.relic_hand for r in h} - public
    names = R._C["relics"]
    assert hidden, "the position should hold Relics in hand"
    for r in hidden:
        nm = names[r]["name"][:16]
        if not any(nm in names[p]["name"] for p in public):
            assert nm not in drawn


def _title(st: ClandestineState, monkeypatch) -> str:
    """The title line ``render_rgb`` draws for ``st`` (the text drawn at the top)."""
    from matplotlib.figure import Figure

    from envs.clandestine import render as R

    drawn = []
    real = Figure.text

    def text(self, x, y, s, *args, **kwargs):
        drawn.append((y, s))
        return real(self, x, y, s, *args, **kwargs)

    monkeypatch.setattr(Figure, "text", text)
    R.render_rgb(st, dpi=20)
    monkeypatch.setattr(Figure, "text", real)
    return max(drawn)[1]


def test_the_pictures_title_is_in_the_rulebooks_words(monkeypatch):
    """The picture's title says the part of the turn and why the game ended as the text view's
    first line does (it read "phase PRE" and "over (level_v)")."""
    from envs.clandestine.words import END_WORDS, PHASE_WORDS

    st = ClandestineState.from_config(3, num_players=1, nemesis="most_holy", difficulty=3)
    rng = np.random.default_rng(0)
    title = _title(st, monkeypatch)
    assert title == ("Clandestine 2p — round 1, turn of seat 0 (Blue Army), "
                     f"{PHASE_WORDS['PRE']}")
    seen = set()
    while not st.is_over:
        if st.phase not in seen:
            seen.add(st.phase)
            title = _title(st, monkeypatch)
            assert PHASE_WORDS[st.phase] in title and f"phase {st.phase}" not in title, title
        st.apply_action(int(rng.choice(st.legal_actions())))
    assert len(seen) >= 4
    assert _title(st, monkeypatch) == (
        f"Clandestine 2p — round {st.rounds_done + 1} — game over ({END_WORDS[st.end_reason]}), "
        f"scores {st.final_scores().tolist()}")


@pytest.mark.parametrize("nemesis", ["most_holy", "silver_guard"])
def test_the_pictures_spaces_show_no_content_codes(nemesis, monkeypatch):
    """Every text of the solo picture is free of content codes: a Nemesis's Chambers showed
    their Actions as "tithe_convert", "seize", "deploy"."""
    import re

    from matplotlib.figure import Figure

    from envs.clandestine import render as R

    st = ClandestineState.from_config(1, num_players=1, nemesis=nemesis, difficulty=2)
    drawn = []
    real = Figure.add_axes

    def add_axes(self, *args, **kwargs):
        ax = real(self, *args, **kwargs)
        inner = ax.text
        ax.text = lambda x, y, s, *a, **k: drawn.append(str(s)) or inner(x, y, s, *a, **k)
        return ax

    monkeypatch.setattr(Figure, "add_axes", add_axes)
    R.render_rgb(st, dpi=20)
    chambers = [t for t in drawn if t.startswith("1C")]
    assert len(chambers) == 4, drawn
    expected = {"most_holy": ["Tithe", "Collect", "Convert", "Tithe+Conv"],
                "silver_guard": ["Seize", "Deploy", "Seize", "Deploy"]}[nemesis]
    assert [t.split(" ", 1)[1] for t in chambers] == expected
    assert not [t for t in drawn if re.search(r"\b[a-z]+_[a-z]+\b|\b(tithe|seize|deploy)\b", t)]
