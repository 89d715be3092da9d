"""Test set-up: the toy game is registered so the shared plumbing can be tested on it."""

import envs
import agents

envs.GAMES.setdefault("toy", "tests.toy_game")
agents.HEURISTICS.setdefault("toy", "tests.toy_game:ToyHeuristic")
