"""The HTML replay viewer (``python -m training.replay RECORD --html OUT.html``).

The data tests check each step of the file against a fresh replay; the browser test opens the
file in headless Chromium (tests/browser.py; skipped where no Chromium is installed), presses
keys and reads the page.
"""

import json
import re

import pytest

from agents import HEURISTICS, make_agent
from envs import GAMES, env_module
from tests.browser import chromium, chromium_or_skip, save_screenshot
from training.replay import main
from training.replay_html import replay_data, replay_html


REAL_GAMES = sorted(g for g in GAMES if g != "toy")


def played_record(game, n, seed, spec=None):
    cls = env_module(game).raw_env.state_class
    spec = spec or ("heuristic" if game in HEURISTICS else "random")
    s = cls.from_config(seed, num_players=n)
    agents = [make_agent(spec, game, s.config, seed=seed + i) for i in range(n)]
    while not s.is_over:
        p = s.current_player
        obs = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
        s.apply_action(agents[p].act(obs, f"player_{p}"))
    record = s.to_record()
    record["agents"] = [spec] * n
    return cls, record


def embedded_data(page):
    m = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


@pytest.mark.parametrize("game,n", [(g, 3) for g in REAL_GAMES])
def test_every_step_matches_a_fresh_replay(game, n):
    cls, record = played_record(game, n, seed=4)
    page = replay_html(cls, record)
    data = embedded_data(page)
    assert data == json.loads(json.dumps(replay_data(cls, record)))
    S = data["strings"]
    assert len(data["steps"]) == len(record["actions"]) + 1
    for i, state in enumerate(cls.replay_steps(record)):
        step = data["steps"][i]
        for q in range(n):
            shown = S[step["views"][q]]
            if game != "clans":
                assert shown == state.render_text(q)
            else:   # the region rows are left to the board picture
                assert shown.splitlines()[:3] == state.render_text(q).splitlines()[:3]
        if i < len(record["actions"]):
            a = record["actions"][i]
            assert step["actor"] == state.current_player
            assert S[step["moves"][n]] == state.action_to_string(a)
            assert S[step["moves"][state.current_player]] == state.action_to_string(a)
        else:
            assert step["actor"] is None and step["moves"] is None
    final = cls.from_record(record)
    assert data["returns"] == final.returns().tolist()
    assert data["hidden_truth"] == json.loads(json.dumps(final.hidden_truth()))
    # nothing outside the file: no external script, style or picture
    assert not re.search(r'(src|href)="(https?:)?//', page)


def test_the_nemesis_turns_follow_the_move_that_led_to_them():
    """Solo Clandestine: each step lists, after its move, what the Nemesis (never a deciding
    seat) did because of it (``rules_words``), the same words in every view."""
    import numpy as np

    cls = env_module("clandestine").raw_env.state_class
    s = cls.from_config(3, num_players=1, nemesis="most_holy", difficulty=3, max_rounds=2)
    rng = np.random.default_rng(3)
    told = []
    while not s.is_over:
        s.apply_action(int(rng.choice(s.legal_actions())))
        told.append([[q, w] for q, w in s.rules_words()])
    data = replay_data(cls, s.to_record())
    S = data["strings"]
    assert [[[q, S[k]] for q, k in step["after"]] for step in data["steps"][:-1]] == told
    assert data["steps"][-1]["after"] == [] and sum(map(len, told)) >= 6
    assert S[data["steps"][10]["after"][0][1]].startswith("flipped the Intent card ")


def test_seat_views_cover_face_down_cards():
    cls, record = played_record("prowl", 3, seed=2)
    data = embedded_data(replay_html(cls, record))
    S = data["strings"]
    for st in data["steps"][:3]:   # set-up: each seat places its clan card face-down
        for q in range(3):
            text = S[st["moves"][q]]
            if q == st["actor"]:
                assert text.startswith("Choose clan card ")
            else:
                assert text == "chose a clan card (face-down)"
        assert S[st["moves"][3]].startswith("Choose clan card ")
    # after the set-up, a seat's view shows its own clan card and not the others'
    for q in range(3):
        view = S[data["steps"][3]["views"][q]]
        for p in range(3):
            row = next(line for line in view.splitlines() if line.startswith(f"P{p}:"))
            assert row.startswith(f"P{p}: clan ?") == (p != q), row


def test_clans_file_is_small_and_has_the_board():
    cls, record = played_record("clans", 4, seed=1)
    page = replay_html(cls, record)
    assert len(page.encode()) < 2_000_000
    assert page.count("<polygon class=\"area\"") == 60 and 'id="overlay"' in page
    data = embedded_data(page)
    boards = {st["board"] for st in data["steps"]}
    assert len(boards) > len(data["steps"]) // 2      # the huts change as the game goes


def test_cli_writes_the_file_and_keeps_one_line_errors(tmp_path, capsys):
    cls, record = played_record("badland_wolves", 3, seed=3)
    rec = tmp_path / "game.json"
    rec.write_text(json.dumps(record))
    out = tmp_path / "game.html"
    assert main([str(rec), "--html", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert embedded_data(out.read_text())["game"] == "badland_wolves"
    with pytest.raises(SystemExit):
        main([str(rec), "--html", str(tmp_path / "no" / "such" / "dir.html")])
    err = capsys.readouterr().err
    assert "cannot write" in err and "Traceback" not in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record | {"actions": record["actions"] + [10**6]}))
    with pytest.raises(SystemExit):
        main([str(bad), "--html", str(out)])
    err = capsys.readouterr().err
    assert "cannot be replayed" in err and "Traceback" not in err
    # without --html the replay prints as before
    assert main([str(rec)]) == 0
    assert "returns:" in capsys.readouterr().out


@pytest.mark.browser
@pytest.mark.parametrize("game,n", [("clans", 3), ("prowl", 3)])
def test_viewer_in_headless_chromium(game, n, tmp_path):
    chromium_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    cls, record = played_record(game, n, seed=6)
    path = tmp_path / "replay.html"
    path.write_text(replay_html(cls, record))
    N = len(record["actions"])
    states = [s.clone() for s in cls.replay_steps(record)]
    with chromium(tmp_path) as driver:
        driver.get(path.as_uri())
        body = driver.find_element(By.TAG_NAME, "body")
        text = lambda i: driver.find_element(By.ID, i).text  # noqa: E731
        assert text("stepno") == f"0 / {N}"
        for _ in range(3):
            body.send_keys(Keys.ARROW_RIGHT)
        assert text("stepno") == f"3 / {N}"
        s3 = states[3]
        assert text("next").endswith(s3.action_to_string(record["actions"][3]))
        assert text("viewtitle").lower() == "full truth"
        full = text("view")
        body.send_keys("1")
        assert body.get_attribute("data-view") == "1"
        seat1 = text("view")
        assert seat1.splitlines()[0] == s3.render_text(1).splitlines()[0]
        if game == "prowl":
            assert seat1 == s3.render_text(1) and full == s3.render_text() and seat1 != full
        else:   # the seat sees only its own colour; the board overlay is drawn
            # the legend names the mark; only the seat's view has secret colours in its seat lines
            seat_lines = lambda t: [x for x in t.splitlines() if x.startswith("seat")]  # noqa: E731
            assert any("[?]" in x for x in seat_lines(seat1))
            assert not any("[?]" in x for x in seat_lines(full))
            huts = driver.execute_script(
                "return document.querySelectorAll('#overlay rect').length")
            assert huts == sum(int((s3.huts[a] > 0).sum()) for a in range(60))
        body.send_keys(Keys.ARROW_LEFT)
        assert text("stepno") == f"2 / {N}"
        driver.execute_script("const s = document.getElementById('slider'); s.value = 10;"
                              "s.dispatchEvent(new Event('input'));")
        assert text("stepno") == f"10 / {N}"
        if game == "clans":
            save_screenshot(driver, "replay_clans.png", tmp_path)
        body.send_keys("t")
        body.send_keys(Keys.END)
        assert text("stepno") == f"{N} / {N}"
        result = text("result")
        assert driver.find_element(By.ID, "final").is_displayed()
        for q, r in enumerate(states[-1].returns()):
            assert f"seat {q} ({record['agents'][q]}) {r:.2f}" in result
        assert text("next") == "the game is over"
        save_screenshot(driver, f"replay_{game}_end.png", tmp_path, docs=False)
