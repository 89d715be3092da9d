"""Play one seat in the browser against agents: ``python -m training.web``.

Examples::

    python -m training.web --game prowl --seat 0 --opponents heuristic random random
    python -m training.web --game clans --seat 1 --opponents heuristic ppo:runs/clans/model.zip
    python -m training.web --game badland_wolves --opponents heuristic heuristic --port 8001

then open http://127.0.0.1:8000/ (the server listens on 127.0.0.1 only). One agent spec per
other seat (``random``, ``heuristic``, ``ppo:PATH``; one agent instance per seat), so
``num_players`` is one more than the number of opponents; none for solo play against a
Nemesis (``--game clandestine --config nemesis=most_holy difficulty=3``), whose seat the
rules play. The page shows your seat's view (the
cards and tracks you may see, the Clans board), what every other seat did since your last
decision, and your legal actions as buttons; at the end the reveal, the scores and the returns.
``--save DIR`` writes each finished game's record there (replay it with ``training.replay``).

The JSON API the page uses (also for scripts and tests):

* ``POST /api/games`` ``{"seed": int | null}`` -> a new game's state (201);
* ``GET /api/games/{game_id}?seat=S`` -> the state as seat ``S`` (the person's seat) sees it;
* ``POST /api/games/{game_id}/actions`` ``{"seat": S, "step": N, "action": A}`` -> apply action
  ``A`` at step ``N`` (the number of actions so far), then let the agents play until the
  person's next decision or the end.

Every response is built from the person's seat's side only (:mod:`training.seatview`): its text
view, its legal actions when the decision is its own, the moves as that seat saw them (cards
placed face-down stay covered), and only once the game is over the reveal (``hidden_truth``),
the full text and the returns. A bad request (unknown game, another seat, a stale step, an
illegal or malformed action, a finished game) gets a 4xx JSON ``{"error": ...}`` and changes
nothing.
"""


import argparse
import json
import os
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from agents import act_with_state, make_agent
from envs import GAMES, env_module
from envs.core import ConfigError, GameState
from envs.core.aec import agent_name
from envs.core.state import check_seed

from .cli import ArgumentParser, creatable_problem
from .seatview import (RULES_LABEL, final_view, legal_choices, move_text, page_template,
                       seat_view)

#: most games one server keeps (the oldest is dropped beyond that)
MAX_GAMES = 64


def save_dir_problem(path: Path) -> str | None:
    """Why finished games' records cannot be written into the folder ``path`` (``--save``),
    or None when they can: ``path`` must be a writable folder or be creatable (its nearest
    existing ancestor a writable folder). Checked at start-up, so that no finished game's
    record is lost to a bad ``--save``."""
    if path.exists():
        if not path.is_dir():
            return f"--save {path} exists and is not a folder"
        return None if os.access(path, os.W_OK | os.X_OK) else \
            f"--save {path}: no permission to write in this folder"
    return creatable_problem("--save", path)


class WebError(Exception):
    """A refused request: HTTP ``status`` and a message for the JSON ``{"error": ...}`` body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Session:
    """One game: the true state (server side only), the person's seat and the agents.

    Args:
        state: a fresh (or replayed) game state; agents are played until the person's decision.
        seat: the person's seat.
        agents: ``{seat: Agent}`` for every other seat (this game's own instances: agents may
            remember the game so far).
        labels: ``{seat: spec}`` shown as the agents' names.
        play_agents: False leaves ``state`` as given until the person's first action (to show
            a chosen position).
    """

    def __init__(self, state: GameState, seat: int, agents: dict[int, Any],
                 labels: dict[int, str], play_agents: bool = True) -> None:
        self.id = uuid.uuid4().hex
        self.state = state
        self.seat = state.check_seat(seat)
        self.agents = agents
        self.labels = labels
        #: every move as the person's seat saw it: {"step", "seat", "who", "text"}; the turns of
        #: a seat the rules play follow the move that led to them, at the step after it
        self.log: list[dict[str, Any]] = []
        self.last_decision = 0     # index into ``log`` of the person's last decision
        for agent in agents.values():
            agent.reset()
        if play_agents:
            self.advance()

    def _record(self, action: int) -> None:
        s = self.state
        actor = s.current_player
        self.log.append({"step": len(s.history), "seat": actor,
                         "who": "you" if actor == self.seat else
                         f"seat {actor} ({self.labels[actor]})",
                         "text": move_text(s, action, self.seat)})
        s.apply_action(action)
        # what the seats the rules play (a Clandestine Nemesis) did after it, in public words
        for q, words in s.rules_words():
            self.log.append({"step": len(s.history), "seat": q,
                             "who": f"seat {q} ({self.labels[q]})", "text": words})

    def advance(self) -> None:
        """Let the agents act until the person's decision or the end of the game."""
        s = self.state
        while not s.is_over and s.current_player != self.seat:
            p = s.current_player
            obs = {"observation": s.observation_tensor(p), "action_mask": s.legal_action_mask()}
            # search and belief agents are given the live game (agents.act_with_state)
            self._record(int(act_with_state(self.agents[p], obs, agent_name(p), s)))

    def play(self, seat: Any, step: Any, action: Any) -> None:
        """Apply the person's ``action`` at ``step``, then :meth:`advance`.

        Raises:
            WebError: 403 another seat; 409 the game is over or ``step`` is stale; 400 an action
                that is not a legal action id now. Nothing changes in any of these cases.
        """
        s = self.state
        if seat != self.seat:
            raise WebError(403, f"you play seat {self.seat}, not seat {seat!r}")
        if s.is_over:
            raise WebError(409, "the game is over: no more actions")
        if step != len(s.history):
            raise WebError(409, f"stale step {step!r}: the game is at step {len(s.history)}")
        legal = s.legal_actions()
        if action not in legal:
            raise WebError(400, f"action {action!r} is not legal now; the legal action ids are "
                                f"{legal}")
        self.last_decision = len(self.log)
        self._record(int(action))
        self.advance()

    def payload(self) -> dict[str, Any]:
        """The JSON the person's page gets: only what the person's seat may know."""
        s = self.state
        out: dict[str, Any] = {
            "game_id": self.id, "game": s.game_name, "seat": self.seat,
            "num_players": s.num_players, "step": len(s.history),
            "opponents": {str(k): v for k, v in sorted(self.labels.items())},
            "view": seat_view(s, self.seat),
            "legal": legal_choices(s, self.seat),
            "log": self.log,
            "new_since": self.last_decision,
            "over": bool(s.is_over), "final": None,
        }
        if s.is_over:
            record = s.to_record()
            record["agents"] = [("you" if q == self.seat else self.labels[q])
                                for q in range(s.num_players)]
            out["final"] = final_view(s) | {"record": record}
        return out


class GameServer:
    """The games of one web server: how to start one, and the live sessions by id.

    Args:
        game: a name in ``envs.GAMES``. seat: the person's seat.
        opponents: one agent spec per other seat, in seat order.
        config: game keywords (``num_players`` defaults to ``1 + len(opponents)``).
        seed: base seed; each game without a seed of its own gets one drawn from it. A game's
            seed fixes its deal and its agents' seeds, so the same seed and the same choices
            replay the same game.
        save_dir: folder where each finished game's record is written (or ``None``).

    Raises:
        ValueError: unknown game, a seat out of range (a seat the rules play, such as
            Clandestine's Nemesis, is no one's), ``num_players`` that disagrees with the
            number of opponents, a bad agent spec, a negative ``seed``, or a ``save_dir``
            that cannot be written (:func:`save_dir_problem`).
    """

    def __init__(self, game: str, seat: int, opponents: Sequence[str],
                 config: dict[str, Any] | None = None, seed: int | None = None,
                 save_dir: Path | None = None) -> None:
        self.game = game
        self.state_class = env_module(game).raw_env.state_class
        config = dict(config or {})
        from_opponents = "num_players" not in config
        config.setdefault("num_players", 1 + len(opponents))
        if config["num_players"] != 1 + len(opponents):
            raise ValueError(f"num_players is {config['num_players']} but {len(opponents)} "
                             "opponent(s) were given: give one agent spec per other seat")
        if seed is not None:
            check_seed(seed)
        problem = None if save_dir is None else save_dir_problem(Path(save_dir))
        if problem:
            raise ValueError(problem)
        try:
            probe = self.state_class.from_config(0, **config)
        except ConfigError as e:
            if from_opponents and "num_players" in str(e):
                raise ConfigError(f"{e}: the player count is you plus one --opponents spec per "
                                  f"other seat ({len(opponents)} given)") from e
            raise
        self.config = dict(probe.config)
        seats = probe.agent_seats   # a rules-driven seat (Clandestine's Nemesis) is no one's
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in seats:
            raise ValueError(f"seat must be in 0..{len(seats) - 1}, got {seat!r}")
        self.seat = seat
        others = [q for q in seats if q != seat]
        self.labels = dict(zip(others, opponents))
        self.rng = np.random.default_rng(seed)
        self.make_agents(0)     # a bad spec or a missing policy file fails at start-up
        self.labels.update({q: RULES_LABEL for q in range(probe.num_players)
                            if q not in seats})
        self.save_dir = save_dir
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()

    def make_agents(self, seed: int) -> dict[int, Any]:
        """One new agent per opponent seat (``agents.make_agent``), seeded from ``seed``."""
        return {q: make_agent(spec, self.game, self.config, seed=(seed * 7919 + q) % 2**32)
                for q, spec in self.labels.items() if spec != RULES_LABEL}

    def new_game(self, seed: int | None = None) -> Session:
        """Start a game (seed drawn from the server's stream when ``None``) and keep it."""
        if seed is None:
            seed = int(self.rng.integers(2**62))
        return self.add(Session(self.state_class.from_config(seed, **self.config), self.seat,
                                self.make_agents(seed), self.labels))

    def add(self, session: Session) -> Session:
        """Keep ``session`` (dropping the oldest beyond :data:`MAX_GAMES`)."""
        self.sessions[session.id] = session
        while len(self.sessions) > MAX_GAMES:
            self.sessions.pop(next(iter(self.sessions)))
        return session

    def get(self, game_id: str) -> Session:
        """The session ``game_id``. Raises WebError 404 for an unknown (or dropped) game."""
        try:
            return self.sessions[game_id]
        except KeyError:
            raise WebError(404, f"no game {game_id!r} on this server (stale or unknown game id)"
                           ) from None

    def save(self, session: Session, payload: dict[str, Any]) -> None:
        """Write a finished game's record to ``save_dir`` (once)."""
        if self.save_dir is None or payload["final"] is None:
            return
        path = self.save_dir / f"{self.game}-{session.id}.json"
        if not path.exists():
            self.save_dir.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(payload["final"]["record"]))


def create_app(server: GameServer):
    """The FastAPI application serving ``server``'s games (the page and the JSON API)."""
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse
    from pydantic import BaseModel, StrictInt

    app = FastAPI(title="Cunning: play in the browser", docs_url=None, redoc_url=None)
    page = page_template("play.html")

    class NewGame(BaseModel):
        seed: StrictInt | None = None

    class Move(BaseModel):
        seat: StrictInt
        step: StrictInt
        action: StrictInt

    @app.exception_handler(WebError)
    async def _web_error(request: Request, exc: WebError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_body(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(str(x) for x in e['loc'][1:]) or 'body'}: {e['msg']}"
                             for e in exc.errors())
        return JSONResponse({"error": f"malformed request: {problems}"}, status_code=422)

    @app.get("/", response_class=HTMLResponse)
    def index() -> str:
        return page.replace("__TITLE__", server.game.replace("_", " ").title())

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGame | None = None) -> dict[str, Any]:
        seed = body.seed if body is not None else None
        if seed is not None and seed < 0:
            raise WebError(422, f"seed must be a non-negative integer, got {seed}")
        with server.lock:
            session = server.new_game(seed)
            payload = session.payload()
            server.save(session, payload)
            return payload

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str, seat: int) -> dict[str, Any]:
        with server.lock:
            session = server.get(game_id)
            if seat != session.seat:
                raise WebError(403, f"you play seat {session.seat}, not seat {seat}")
            return session.payload()

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, move: Move) -> dict[str, Any]:
        with server.lock:
            session = server.get(game_id)
            session.play(move.seat, move.step, move.action)
            payload = session.payload()
            server.save(session, payload)
            return payload

    return app




def main(argv: Sequence[str] | None = None) -> int:
    from .evaluate import parse_config

    p = ArgumentParser(prog="python -m training.web", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=sorted(GAMES))
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--opponents", nargs="*", default=[], metavar="SPEC",
                   help="one agent spec per other seat: random | heuristic | ppo:PATH "
                        "(none for solo play against a Nemesis: --game clandestine "
                        "--config nemesis=most_holy difficulty=3)")
    p.add_argument("--config", nargs="*", default=[], metavar="KEY=VALUE",
                   help="game keywords, e.g. beginner=true; values are read as JSON, "
                             "so a list is written societies='[\"garden\",\"blue\"]'")
    p.add_argument("--seed", type=int, default=None, help="seed of the games' deals")
    p.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    p.add_argument("--save", type=Path, default=None, metavar="DIR",
                   help="write each finished game's record into DIR")
    args = p.parse_args(argv)
    try:
        import uvicorn
    except ImportError:
        p.error("the web app needs FastAPI and uvicorn: pip install -e '.[web]'")
    if not 0 < args.port < 65536:
        p.error(f"--port must be in 1..65535, got {args.port}")
    if args.seed is not None and args.seed < 0:
        p.error(f"--seed must be a non-negative integer, got {args.seed}")
    try:
        server = GameServer(args.game, args.seat, args.opponents, parse_config(args.config),
                            seed=args.seed, save_dir=args.save)
    except (ValueError, FileNotFoundError) as exc:
        p.error(str(exc))
    print(f"Cunning {args.game}: you play seat {args.seat}; open http://127.0.0.1:{args.port}/ "
          "(Ctrl-C stops the server)")
    uvicorn.run(create_app(server), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
