"""The browser game's server (training.web) through FastAPI's TestClient, and its seat views.

Leak tests compare what the server sends to a seat in two worlds that differ only in what that
seat cannot know (``resample_from_infostate``: other seats' hands, clan cards, colours): every
response must be identical. The same comparison made with the full-truth text shows that the two
worlds do differ, so the check would catch a leak.
"""

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from agents import HEURISTICS  # noqa: E402
from envs import GAMES, env_module  # noqa: E402
from envs.core.text import PRIVATE_ACTIONS  # noqa: E402
from training.seatview import (  # noqa: E402
    legal_choices, move_text, seat_view, structured_text,
)
from training.web import GameServer, Session, create_app, main  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# every registered game, three seats (a heuristic and a random opponent where there is one)
REAL_GAMES = sorted(g for g in GAMES if g != "toy")
LINEUPS = {g: ["heuristic" if g in HEURISTICS else "random", "random"] for g in REAL_GAMES}


def client_for(game, seat=0, opponents=None, seed=1, **kw):
    server = GameServer(game, seat, opponents or LINEUPS[game], seed=seed, **kw)
    return server, TestClient(create_app(server))


def play_through(client, payload, rng, check=None):
    """Click random legal actions through the API until the end; return the last payload."""
    while not payload["over"]:
        if check:
            check(payload)
        assert payload["legal"], "the person's page must offer choices while the game runs"
        a = int(rng.choice([c["id"] for c in payload["legal"]]))
        r = client.post(f"/api/games/{payload['game_id']}/actions",
                        json={"seat": payload["seat"], "step": payload["step"], "action": a})
        assert r.status_code == 200, r.text
        payload = r.json()
    return payload


@pytest.mark.parametrize("game", ["prowl", "clans"])
def test_search_and_belief_opponents_play_a_full_game(game):
    """``ismcts:N`` and ``heuristic:belief`` declare ``needs_state``: the server gives them the
    live game (they failed at their first move, asking for ``state=``). Each opponent's moves
    are the ones the same agent, seeded alike, chooses on the same positions."""
    from agents import act_with_state

    server, client = client_for(game, seat=2, opponents=["ismcts:4", "heuristic:belief"])
    first = client.post("/api/games", json={"seed": 5}).json()
    last = play_through(client, first, np.random.default_rng(0))
    state = server.sessions[last["game_id"]].state
    assert state.is_over and {m["seat"] for m in last["log"]} == {0, 1, 2}
    # the same specs, seeded as the server seeds them, choose the recorded moves
    replay = env_module(game).raw_env.state_class.from_config(state.seed, **server.config)
    mine = server.make_agents(5)
    for a in mine.values():
        a.reset()
    moves = 0
    for action in state.history:
        p = replay.current_player
        if p in mine:
            obs = {"observation": replay.observation_tensor(p),
                   "action_mask": replay.legal_action_mask()}
            assert act_with_state(mine[p], obs, f"player_{p}", replay) == action
            moves += 1
        replay.apply_action(action)
    assert moves > 4


@pytest.mark.parametrize("game", sorted(LINEUPS))
@pytest.mark.parametrize("seat", [0, 1])
def test_full_game_through_the_api(game, seat, tmp_path):
    server, client = client_for(game, seat=seat, save_dir=tmp_path)
    r = client.post("/api/games", json={"seed": 11})
    assert r.status_code == 201
    first = r.json()
    assert first["seat"] == seat and first["num_players"] == 3
    assert first["final"] is None and not first["over"]
    # the page is served and names the game
    page = client.get("/")
    assert page.status_code == 200 and "Cunning" in page.text
    last = play_through(client, first, np.random.default_rng(seat))
    state = server.sessions[last["game_id"]].state
    assert state.is_over and last["step"] == len(state.history)
    # one log entry per action, in order, the person's own moves named "you"
    assert [m["step"] for m in last["log"]] == list(range(len(state.history)))
    assert all((m["who"] == "you") == (m["seat"] == seat) for m in last["log"])
    final = last["final"]
    assert final["returns"] == [float(x) for x in state.returns()]
    assert final["hidden_truth"] == json.loads(json.dumps(state.hidden_truth()))
    assert final["full_text"] == state.render_text()
    assert last["legal"] == []
    # the record replays to the same outcome, and --save wrote it
    cls = env_module(game).raw_env.state_class
    assert cls.from_record(final["record"]).returns().tolist() == final["returns"]
    saved = list(tmp_path.glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text()) == final["record"]
    assert final["record"]["agents"][seat] == "you"


def test_games_have_their_own_ids_and_agents_and_get_matches_post():
    server, client = client_for("prowl")
    a = client.post("/api/games", json={"seed": 5}).json()
    b = client.post("/api/games", json={"seed": 5}).json()
    assert a["game_id"] != b["game_id"] and set(server.sessions) == {a["game_id"], b["game_id"]}
    sa, sb = server.sessions[a["game_id"]], server.sessions[b["game_id"]]
    assert all(sa.agents[q] is not sb.agents[q] for q in sa.agents)
    # the same seed and the same choices play the same game (deal and agents' seeds)
    rng = np.random.default_rng(0)
    last_a = play_through(client, a, rng)
    sa_actions = sa.state.history
    mine = [m["step"] for m in last_a["log"] if m["seat"] == 0]
    p = b
    while not p["over"]:
        a_id = sa_actions[p["step"]]
        assert p["step"] in mine
        p = client.post(f"/api/games/{p['game_id']}/actions",
                        json={"seat": 0, "step": p["step"], "action": a_id}).json()
    assert sb.state.history == sa_actions and p["final"]["returns"] == last_a["final"]["returns"]
    got = client.get(f"/api/games/{a['game_id']}", params={"seat": 0}).json()
    assert got == last_a


def test_get_matches_post():
    server, client = client_for("prowl")
    a = client.post("/api/games", json={"seed": 5}).json()
    got = client.get(f"/api/games/{a['game_id']}", params={"seat": 0}).json()
    assert got == a


def _snapshot(server, gid):
    s = server.sessions[gid]
    return (list(s.state.history), s.state.render_text(), len(s.log), s.last_decision)


@pytest.mark.parametrize("game", sorted(LINEUPS))
def test_bad_requests_get_4xx_and_change_nothing(game):
    server, client = client_for(game)
    p = client.post("/api/games", json={"seed": 2}).json()
    gid, step = p["game_id"], p["step"]
    url = f"/api/games/{gid}/actions"
    legal = [c["id"] for c in p["legal"]]
    illegal = next(a for a in range(server.sessions[gid].state.num_actions) if a not in legal)
    before = _snapshot(server, gid)
    cases = [
        (url, {"seat": 0, "step": step, "action": illegal}, 400, "not legal"),
        (url, {"seat": 0, "step": step, "action": -1}, 400, "not legal"),
        (url, {"seat": 0, "step": step, "action": 10**6}, 400, "not legal"),
        (url, {"seat": 1, "step": step, "action": legal[0]}, 403, "you play seat 0"),
        (url, {"seat": 0, "step": step + 1, "action": legal[0]}, 409, "stale step"),
        (url, {"seat": 0, "step": step - 1, "action": legal[0]}, 409, "stale step"),
        (url, {"seat": 0, "step": step, "action": True}, 422, "malformed"),
        (url, {"seat": 0, "step": step, "action": "0"}, 422, "malformed"),
        (url, {"seat": 0, "step": step}, 422, "action"),
        ("/api/games/nosuchgame/actions", {"seat": 0, "step": step, "action": legal[0]}, 404,
         "no game"),
    ]
    for path, body, status, words in cases:
        r = client.post(path, json=body)
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["error"], r.json()
        assert _snapshot(server, gid) == before
    r = client.get(f"/api/games/{gid}", params={"seat": 1})
    assert r.status_code == 403 and "seat 0" in r.json()["error"]
    assert client.get("/api/games/nosuchgame", params={"seat": 0}).status_code == 404
    assert client.post("/api/games", json={"seed": -3}).status_code == 422
    # the same request once valid is applied exactly once; repeating it is then stale
    ok = client.post(url, json={"seat": 0, "step": step, "action": legal[0]})
    assert ok.status_code == 200 and ok.json()["step"] > step
    after = _snapshot(server, gid)
    again = client.post(url, json={"seat": 0, "step": step, "action": legal[0]})
    assert again.status_code == 409 and _snapshot(server, gid) == after


def test_finished_game_refuses_actions():
    server, client = client_for("clans")
    last = play_through(client, client.post("/api/games", json={"seed": 4}).json(),
                        np.random.default_rng(0))
    r = client.post(f"/api/games/{last['game_id']}/actions",
                    json={"seat": 0, "step": last["step"], "action": 0})
    assert r.status_code == 409 and "over" in r.json()["error"]


def test_server_set_up_errors():
    with pytest.raises(ValueError, match="one agent spec per other seat"):
        GameServer("prowl", 0, ["random"], config={"num_players": 4})
    with pytest.raises(ValueError, match="seat must be in 0..2"):
        GameServer("clans", 3, ["random", "random"])
    with pytest.raises(ValueError, match="unknown agent spec"):
        GameServer("clans", 0, ["nobody"])
    with pytest.raises(ValueError, match="unknown game"):
        GameServer("chess", 0, ["random"])


def test_cli_errors_are_one_line(capsys):
    with pytest.raises(SystemExit):
        main(["--game", "clans", "--opponents", "nobody"])
    err = capsys.readouterr().err
    assert "unknown agent spec 'nobody'" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        main(["--game", "prowl", "--seat", "4", "--opponents", "random"])
    assert "seat must be in 0..1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--game", "clans"])
    err = capsys.readouterr().err
    assert "one --opponents spec per other seat (0 given)" in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------------
# leak tests
def random_positions(game, n_players, count, seed):
    """``count`` states of random games of ``game``, at random depths (not over)."""
    cls = env_module(game).raw_env.state_class
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = cls.from_config(int(rng.integers(2**31)), num_players=n_players)
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            if s.is_over:
                break
            s.apply_action(int(rng.choice(s.legal_actions())))
        if not s.is_over:
            out.append(s)
    return out


def _payload(state, seat):
    """The person's payload of a session on ``state`` (agents not run: seat to act or not)."""
    session = Session(state, seat, {}, {q: "random" for q in range(state.num_players)},
                      play_agents=False)
    session.id = "g"
    return session.payload()


@pytest.mark.parametrize("game,n", [(g, 3) for g in REAL_GAMES] + [("prowl", 2)])
def test_seat_payload_is_the_same_in_worlds_the_seat_cannot_tell_apart(game, n):
    rng = np.random.default_rng(7)
    differ = 0
    checked = 0
    for s in random_positions(game, n, 25, seed=n):
        for seat in range(n):
            world = s.resample_from_infostate(seat, rng)
            if world.render_text() != s.render_text():
                differ += 1          # the two worlds differ in what other seats hold
            assert _payload(world, seat) == _payload(s, seat)
            checked += 1
            # what the seat sees of the move due now, in both worlds
            actor = s.current_player
            if actor != seat:
                common = set(world.legal_actions()) & set(s.legal_actions())
                for a in common:
                    assert move_text(world, a, seat) == move_text(s, a, seat)
    # power: the full truth differs between the worlds in most positions (Clans: colours)
    assert differ > checked // 2, (differ, checked)


@pytest.mark.parametrize("game", ["prowl", "badland_wolves"])
def test_face_down_moves_are_covered_whatever_the_card(game):
    """A card placed or dealt face-down is covered for every seat that may not see it (the
    game's hook in ``envs.core.text.PRIVATE_ACTIONS``): all such choices read the same to it
    (the hook's words), no card name appears, and the actor sees its own card named."""
    hook = PRIVATE_ACTIONS[game]
    covered_seen = 0
    for s in random_positions(game, 3, 150, seed=3):
        actor = s.current_player
        for viewer in range(3):
            covered = [a for a in s.legal_actions() if hook(s, a, viewer) is not None]
            if viewer == actor:
                assert all(move_text(s, a, viewer) == s.action_to_string(a) for a in covered)
                continue
            for a in covered:
                covered_seen += 1
                assert move_text(s, a, viewer) == hook(s, a, viewer) != s.action_to_string(a)
    assert covered_seen > 20


def test_face_down_deal_text_depends_only_on_the_hunter():
    """Badland Wolves: a Scrap card dealt face-down reads the same whatever the card to every
    seat but the hunter receiving it (ruling 12), who sees the card."""
    seen = 0
    for s in random_positions("badland_wolves", 3, 300, seed=5):
        gives = [a for a in s.legal_actions() if s.ids.decode(a)[0] == "GIVE"]
        viewer = (s.current_player + 1) % 3
        for a in gives:
            hunter = s.ids.decode(a)[1]
            if hunter == viewer:
                assert move_text(s, a, viewer) == s.action_to_string(a)
            else:
                seen += 1
                assert move_text(s, a, viewer) == f"give a Scrap card to hunter {hunter}"
    assert seen > 10


@pytest.mark.parametrize("game", sorted(LINEUPS))
def test_every_response_is_the_same_in_a_world_the_seat_cannot_tell_apart(game):
    """Over whole games played through the API: each response body, rebuilt from a resampled
    world (same seat knowledge, other hidden cards), is byte-identical except the game id."""
    server, client = client_for(game, seed=3)
    rng = np.random.default_rng(1)
    responses = 0
    for g in range(2):
        payload = client.post("/api/games", json={"seed": 100 + g}).json()

        def check(p):
            nonlocal responses
            session = server.sessions[p["game_id"]]
            assert p["final"] is None and "hidden_truth" not in json.dumps(p)
            world = session.state.resample_from_infostate(session.seat, rng)
            twin = _payload(world, session.seat)
            twin["log"], twin["new_since"] = p["log"], p["new_since"]
            twin["game_id"], twin["opponents"] = p["game_id"], p["opponents"]
            assert json.dumps(twin, sort_keys=True) == json.dumps(p, sort_keys=True)
            responses += 1

        play_through(client, payload, rng, check=check)
    assert responses >= 10


def test_move_log_only_names_public_moves_in_prowl_set_up():
    """In Prowl's set-up every seat places a clan card face-down: the person's log shows the
    others' set-up moves covered and the person's own named."""
    server, client = client_for("prowl", seat=1, opponents=["random", "random"])
    p = client.post("/api/games", json={"seed": 9}).json()
    others = [m for m in p["log"] if m["seat"] != 1]
    assert others and all(m["text"] == "chose a clan card (face-down)" for m in others)
    state = server.sessions[p["game_id"]].state
    names = {n for hand in state.hidden_truth()["hands"][::2] for n in hand}
    assert not any(name in m["text"] for m in others for name in names)


def test_structured_text_and_views():
    cls = env_module("prowl").raw_env.state_class
    s = cls.from_config(0, num_players=3)
    t = structured_text("prowl", s.render_text(0))
    assert [r["seat"] for r in t["seats"]] == [0, 1, 2]
    assert t["seats"][1]["fields"][0] == "clan -" or t["seats"][1]["fields"][0].startswith("clan")
    assert t["seats"][1]["fields"][1].startswith("hand ") and "cards" in t["seats"][1]["fields"][1]
    c = env_module("clans").raw_env.state_class.from_config(0, num_players=2)
    v = seat_view(c, 1)
    assert v["board_svg"].startswith("<svg") and v["board_svg"].count("<polygon") == 60
    assert not any(line.startswith("R") for line in v["table"]["header"])
    assert legal_choices(c, 1 - c.current_player) == []
    assert [x["id"] for x in legal_choices(c, c.current_player)] == c.legal_actions()
    with pytest.raises(ValueError, match="seat"):
        seat_view(c, 2)


def test_one_command_starts_the_server_on_localhost_only(tmp_path):
    """``python -m training.web ...`` serves the page on 127.0.0.1 and on no other address."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request
    from pathlib import Path

    from tests.browser import free_port

    port = free_port()
    root = Path(__file__).resolve().parent.parent
    proc = subprocess.Popen([sys.executable, "-m", "training.web", "--game", "prowl",
                             "--opponents", "random", "--port", str(port)], cwd=root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    assert r.status == 200 and "Cunning" in r.read().decode()
                break
            except OSError:
                assert proc.poll() is None, proc.stdout.read()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.3)
        host_ip = None    # this machine's outward address (a UDP connect sends nothing)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("10.254.254.254", 1))
                host_ip = probe.getsockname()[0]
            except OSError:
                pass
        if host_ip and not host_ip.startswith("127."):
            with pytest.raises(OSError):
                socket.create_connection((host_ip, port), timeout=2).close()
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=20)
    assert f"http://127.0.0.1:{port}/" in out


# ------------------------------------------------------------------------------------------------
# a seat the rules play (Clandestine's Nemesis, rulebook "Solo Play")
NEMESIS = {"nemesis": "most_holy", "difficulty": 3, "max_rounds": 2}


@pytest.mark.parametrize("opponents", [[], ["random"]])
def test_a_game_with_a_nemesis_plays_to_the_end_and_names_the_nemesis_seat(opponents):
    # the Nemesis sits after the human seats and has no agent: the finished game's record names
    # it as played by the rules (a KeyError on its missing label used to end the game in a 500)
    server = GameServer("clandestine", 0, opponents, config=NEMESIS, seed=1)
    client = TestClient(create_app(server))
    n = len(opponents) + 1
    assert server.labels == {**{q: "random" for q in range(1, n)}, n: "played by the rules"}
    last = play_through(client, client.post("/api/games", json={"seed": 3}).json(),
                        np.random.default_rng(0))
    record = last["final"]["record"]
    assert record["agents"] == ["you"] + opponents + ["played by the rules"]
    assert len(record["returns"]) == n + 1 == last["num_players"]
    # the Nemesis's turns are in the move log, in their words, after the move that led to them
    state = server.get(last["game_id"]).state
    turns = sum(e[0] == "intent_flip" for e in state.chance_log) - 1  # one flip at set-up
    flips = [i for i, m in enumerate(last["log"])
             if m["text"].startswith("flipped the Intent card ")]
    assert turns >= 2 and len(flips) == turns
    for i in flips:
        m = last["log"][i]
        assert m["seat"] == n and m["who"] == f"seat {n} (played by the rules)"
        assert last["log"][i - 1]["seat"] != n and m["step"] == last["log"][i - 1]["step"] + 1


def test_the_nemesis_seat_is_no_persons_seat():
    with pytest.raises(ValueError, match=r"seat must be in 0\.\.1, got 2"):
        GameServer("clandestine", 2, ["random"], config=NEMESIS)


def test_bad_save_folder_and_seed_are_refused_at_start_up(tmp_path, capsys):
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match="exists and is not a folder"):
        GameServer("prowl", 0, ["random"], save_dir=tmp_path / "f")
    with pytest.raises(ValueError, match="is not a folder"):
        GameServer("prowl", 0, ["random"], save_dir=tmp_path / "f" / "records")
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        GameServer("prowl", 0, ["random"], seed=-3)
    GameServer("prowl", 0, ["random"], save_dir=tmp_path / "new" / "records")  # created later
    for argv, message in [(["--save", str(tmp_path / "f")], "--save "),
                          (["--seed", "-3"], "--seed must be a non-negative integer, got -3")]:
        with pytest.raises(SystemExit):
            main(["--game", "prowl", "--opponents", "random"] + argv)
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
