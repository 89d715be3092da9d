"""The Clandestine effect language: compilation, one test per op, pausing, and every card effect.

Ops run against ``FakeContext``, a tiny in-memory implementation of
:class:`envs.clandestine.ops.EffectContext` (test-only): a Public loop of ``5 * N`` spaces
``p0 ..`` where seat s's Sidewalks S1-S3 are ``p{5s+2} .. p{5s+4}``, and Chambers ``s{s}C1 ..``.
Expected values are worked by hand from design clandestine_content.md §4.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter, deque

import pytest

from envs.clandestine import dsl, ops
from envs.clandestine.content import load_content
from envs.clandestine.dsl import ContentError
from envs.clandestine.ops import Request, Suspend, run_effect

C = load_content()


class FakeContext:
    """In-memory EffectContext for tests (design §4 semantics, minimal City)."""

    def __init__(self, n=2, societies=("blue", "garden"), flags=None, script=(), chooser=None):
        self.content = C
        self.n = n
        self.flags = {f.flag: f.default for f in C.variants.flags} | dict(flags or {})
        self.soc = list(societies) + [None] * (n - len(societies))
        self.res = [Counter() for _ in range(n)]  # gold energy intrigue chaos deep_alchemy
        self.panel_chaos = [0] * n
        self.level = [1] * n
        self.strength = [[] for _ in range(n)]
        self.secret_deck = [[] for _ in range(n)]
        self.shand = [[] for _ in range(n)]
        self.rhand = [[] for _ in range(n)]
        self.slots = [[None] * 6 for _ in range(n)]
        self.relic_deck = []
        self.pawn = Counter()  # (space, type) -> count
        self.cutouts = [
            [(c.cutout, c.min_level) for c in C.societies[s].leaders.cutouts] if s else []
            for s in self.soc
        ]
        self.leaders_placed = []
        self.uf_left = None
        self.box_deep = 12
        self.extra_secrets = [0] * n
        self.actions = []
        self.extra_actions = []
        self.swept = 0
        self.investments = Counter()  # object -> gold
        self.rooms = {"p2": 4, "p3": 4, "R1": 2, "R2": 2}
        self.masks_chaos = Counter()
        self.initiated = set()
        self.primed = []
        self.extension = {"E1": None, "E2": None, "E3": None, "E4": None}
        self.counts = {}
        self.script = deque(script)
        self.chooser = chooser
        self.requests = []
        self.suspend_decisions = False
        self.suspend_actions = False
        self.nemesis = set()

    # ----- helpers for tests
    def sidewalks(self, s):
        return [f"p{5 * s + k}" for k in (2, 3, 4)]

    def chambers(self, s):
        return [f"s{s}C{k}" for k in (1, 2, 3, 4)]

    # ----- queries
    def flag(self, name):
        return self.flags[name]

    def tracks(self, seat, what):
        return not (seat in self.nemesis and what in ("energy", "chaos", "secret", "deep_alchemy"))

    def society(self, seat):
        return self.soc[seat]

    def opponents(self, seat):
        return [(seat + k) % self.n for k in range(1, self.n)]

    def count(self, seat, countable, suit):
        if countable == "level":
            return self.level[seat]
        if countable == "gold":
            return self.res[seat]["gold"]
        if countable == "uf_on_path":
            path = self.sidewalks(seat) + self.chambers(seat)
            return sum(c for (sp, t), c in self.pawn.items() if t == "uf" and sp in path)
        return self.counts[(seat, countable, suit)]

    def holding(self, seat, res):
        return self.res[seat][res]

    def supply(self, item):
        return self.uf_left if item == "uf" else self.box_deep

    def deck_size(self, seat, deck):
        return len(self.secret_deck[seat]) if deck == "secret" else len(self.relic_deck)

    def spaces(self, seat, zone):
        return self.sidewalks(seat) if zone == "own_sidewalk" else self.sidewalks(seat)[:1]

    def pawns(self, seat, zone, types):
        if zone == "public":
            where = [f"p{k}" for k in range(5 * self.n)]
        else:
            where = self.sidewalks(seat) + self.chambers(seat)
        return {
            (sp, t): c
            for (sp, t), c in sorted(self.pawn.items())
            if c > 0 and t in types and sp in where
        }

    def path_length(self, zone):
        return 5 * self.n

    def is_sidewalk(self, seat, space):
        return space in self.sidewalks(seat)

    def next_cutout(self, seat):
        return self.cutouts[seat][0] if self.cutouts[seat] else None

    def relic_hand(self, seat):
        return list(self.rhand[seat])

    def relic_slots(self, seat):
        return list(self.slots[seat])

    def secret_hand(self, seat):
        return list(self.shand[seat])

    def invest_room(self, seat, target):
        ok = {"space": ("p",), "route": ("R",), "any": ("p", "R")}[target]
        return {
            o: r - self.investments[o]
            for o, r in self.rooms.items()
            if o.startswith(ok) and r - self.investments[o] > 0
        }

    def chaos_targets(self, seat, target):
        objs = (
            ["p0", "p1", "R1.0"]
            if target == "space_or_relic"
            else [(s, 0) for s in self.opponents(seat)]
        )
        return [o for o in objs if self.masks_chaos[o] < 3]

    def initiate_targets(self, seat):
        return [s for s in ("p0", "p1") if s not in self.initiated]

    def prime_spaces(self, seat):
        return [
            s
            for s in sorted(self.initiated)
            if sum(1 for _, sp in self.primed if sp == s) < self.level[seat]
        ]

    def empty_extension_slots(self):
        return [k for k, v in self.extension.items() if v is None]

    # ----- changes
    def gain(self, seat, res, n):
        assert n > 0
        self.res[seat][res] += n
        if res == "deep_alchemy":
            self.box_deep -= n

    def lose(self, seat, res, n):
        assert 0 < n <= self.res[seat][res]
        self.res[seat][res] -= n

    def add_strength(self, seat, n):
        self.strength[seat].append(n)

    def draw(self, seat, deck, n):
        src = self.secret_deck[seat] if deck == "secret" else self.relic_deck
        dst = self.shand[seat] if deck == "secret" else self.rhand[seat]
        assert n <= len(src)
        for _ in range(n):
            dst.append(src.pop(0))

    def perform_action(self, seat, action, strength):
        self.actions.append((seat, action, strength))
        if self.suspend_actions:
            raise Suspend()

    def extra_action(self, seat):
        self.extra_actions.append(seat)
        if self.suspend_actions:
            raise Suspend()

    def grant_extra_secret(self, seat):
        self.extra_secrets[seat] += 1

    def place_uf(self, seat, space):
        self.pawn[(space, "uf")] += 1
        if self.uf_left is not None:
            self.uf_left -= 1

    def move_pawn(self, seat, space, pawn, steps, backward):
        assert self.pawn[(space, pawn)] > 0
        k = (int(space[1:]) + (-steps if backward else steps)) % (5 * self.n)
        self.pawn[(space, pawn)] -= 1
        self.pawn[(f"p{k}", pawn)] += 1
        return f"p{k}"

    def return_uf(self, seat, space):
        assert self.pawn[(space, "uf")] > 0
        self.pawn[(space, "uf")] -= 1

    def initiate_leader(self, seat, space):
        self.pawn[(space, "uf")] -= 1
        self.pawn[(space, f"sl{seat}")] += 1
        self.leaders_placed.append(self.cutouts[seat].pop(0))

    def assign_relic(self, seat, relic, slot):
        self.rhand[seat].remove(relic)
        if self.slots[seat][slot - 1] is not None:
            self.rhand[seat].append(self.slots[seat][slot - 1])
        self.slots[seat][slot - 1] = relic

    def military_sweep(self):
        self.swept += 1

    def invest(self, seat, obj, n, src):
        if src == "own":
            self.lose(seat, "gold", n)
        self.investments[obj] += n

    def put_chaos(self, seat, obj):
        self.masks_chaos[obj] += 1

    def initiate_space(self, seat, space):
        self.initiated.add(space)

    def prime_secret(self, seat, secret, space):
        self.shand[seat].remove(secret)
        self.primed.append((secret, space))

    def extend(self, seat, slot):
        self.extension[slot] = self.relic_deck.pop(0)

    def decide(self, request):
        self.requests.append(request)
        if self.suspend_decisions:
            raise Suspend()
        if self.chooser is not None:
            return self.chooser(request)
        assert self.script, f"unexpected decision {request}"
        return self.script.popleft()


def steps(*raw):
    """Compile JSON steps with the packaged content's DSL."""
    return dsl.compile_effect(list(raw), C.dsl, "test")


def run(ctx, effect, seat=0):
    r = run_effect(effect, seat, ctx)
    assert r.done
    return r


# -------------------------------------------------------------------------------------- compile


def test_every_content_effect_compiles_and_every_op_is_used():
    effects = C.all_effects()
    # 160 Secrets x 2 options + 31 traps x 3 + 52 '+' + eye triggers + 24 claims + ...
    assert len(effects) == 639
    used = Counter(op.name for _, e in effects for op in dsl.walk(e))
    assert set(used) == set(dsl.OP_CLASSES) == set(ops.OPS)
    assert used["gain"] > used["extend"] > 0


def test_compiled_ops_are_frozen_shared_and_picklable():
    e = C.relic("R055").plus
    assert e == (dsl.Gain("gold", 2),)
    assert copy.deepcopy(e)[0] is e[0]
    assert pickle.loads(pickle.dumps(e)) == e
    with pytest.raises(Exception):
        e[0].n = 3


@pytest.mark.parametrize(
    "raw, message",
    [
        ({"op": "teleport"}, "test[0]: unknown op 'teleport'"),
        ({"op": "gain", "res": "mana", "n": 1}, "test[0].res: 'mana' is not one of"),
        ({"op": "gain", "res": "gold"}, "test[0]: op 'gain': missing params ['n']"),
        ({"op": "gain", "res": "gold", "n": 1, "x": 2}, "unexpected params ['x']"),
        (
            {"op": "gain", "res": "gold", "n": {"per": "luck"}},
            "test[0].n: unknown countable 'luck'",
        ),
        ({"op": "gain", "res": "gold", "n": {"per": "assigned_icons:Cup"}}, "unknown suit 'Cup'"),
        ({"op": "gain", "res": "gold", "n": {"per": "gold", "div": 0}}, "div must be >= 1"),
        ({"op": "gain", "res": "gold", "n": "3"}, "an Amount must be an int or an object"),
        ({"op": "new_leader", "ignore_level": 1}, "must be true or false"),
        (
            {
                "op": "move",
                "pawns": ["pf", "sl"],
                "count": 1,
                "dist": 1,
                "zone": "public",
                "dir": "forward",
            },
            "test[0].pawns: 'sl' is not one of",
        ),
        (
            {"op": "choose", "options": [[{"op": "nope"}]]},
            "test[0].options[0][0]: unknown op 'nope'",
        ),
    ],
)
def test_bad_steps_raise_content_error_naming_the_path(raw, message):
    with pytest.raises(ContentError) as exc:
        dsl.compile_effect([raw], C.dsl, "test")
    assert message in str(exc.value)


def test_per_amount_value_and_text():
    p = dsl.Per("assigned_icons", "Chalice", mult=2, max=8)
    assert [p.value(k) for k in (0, 3, 4, 9)] == [0, 6, 8, 8]
    assert dsl.Per("initiated_spaces", div=2, max=3).value(5) == 2
    assert str(p) == "[2x assigned_icons:Chalice (max 8)]"


# ------------------------------------------------------------------------------ one test per op


def test_gain():
    ctx = FakeContext()
    ctx.res[0]["gold"] = 2
    run(ctx, steps({"op": "gain", "res": "gold", "n": 3}))
    assert ctx.res[0]["gold"] == 5
    ctx.counts[(0, "ascender_level", None)] = 4
    run(ctx, steps({"op": "gain", "res": "gold", "n": {"per": "ascender_level"}}))
    assert ctx.res[0]["gold"] == 9
    run(ctx, steps({"op": "gain", "res": "chaos", "n": 2}))
    assert ctx.res[0]["chaos"] == 2
    off = FakeContext(flags={"chaos": False})
    run(off, steps({"op": "gain", "res": "chaos", "n": 2}))
    assert off.res[0]["chaos"] == 0  # variant chaos off: Chaos is never gained
    ctx.nemesis.add(1)
    run(ctx, steps({"op": "gain", "res": "energy", "n": 2}), seat=1)
    assert ctx.res[1]["energy"] == 0  # a Nemesis ignores Energy


def test_lose_takes_what_there_is():
    ctx = FakeContext()
    ctx.res[0].update(gold=3, chaos=3)
    run(ctx, steps({"op": "lose", "res": "gold", "n": 5}, {"op": "lose", "res": "chaos", "n": 2}))
    assert (ctx.res[0]["gold"], ctx.res[0]["chaos"]) == (0, 1)


def test_strength_including_negative_and_countable():
    ctx = FakeContext()
    ctx.pawn.update({("p2", "uf"): 2, ("s0C1", "uf"): 1})
    run(ctx, C.secret("blue-1-01").options[0].effect)  # Soapbox Speech A: +[uf_on_path (max 2)]
    run(ctx, C.secret("serpent-2-01").trap.rival)  # -2 Strength
    assert ctx.strength[0] == [2, -2]


def test_draw_secret_draws_fewer_from_a_short_deck():
    ctx = FakeContext()
    ctx.secret_deck[0] = ["blue-1-02", "blue-1-03"]
    run(ctx, steps({"op": "draw_secret", "n": 3}))
    assert ctx.shand[0] == ["blue-1-02", "blue-1-03"] and ctx.secret_deck[0] == []


def test_draw_relic_from_the_top():
    ctx = FakeContext()
    ctx.relic_deck = ["R010", "R020", "R030"]
    run(ctx, steps({"op": "draw_relic", "n": 2}))
    assert ctx.rhand[0] == ["R010", "R020"] and ctx.relic_deck == ["R030"]


def test_act_and_act_revolt_without_society_powers():
    ctx = FakeContext()
    ctx.level[0] = 3
    run(
        ctx,
        steps(
            {"op": "act", "action": "regroup", "strength": {"per": "level"}},
            {"op": "act", "action": "revolt", "strength": 6},
        ),
    )
    assert ctx.actions == [(0, "regroup", 3), (0, "revolt", 6)]
    off = FakeContext(flags={"society_powers": False})
    run(off, C.conjunction_secrets["blue"].options[0].effect)  # Independence Day A: act revolt 6
    assert off.actions == []


def test_act_pauses_while_the_action_resolves():
    ctx = FakeContext()
    ctx.suspend_actions = True
    r = run_effect(
        steps(
            {"op": "act", "action": "fundraise", "strength": 5},
            {"op": "gain", "res": "gold", "n": 1},
        ),
        0,
        ctx,
    )
    assert not r.done and r.pending is None and ctx.actions == [(0, "fundraise", 5)]
    assert r.resume(ctx, None) and ctx.res[0]["gold"] == 1
    assert ctx.actions == [(0, "fundraise", 5)]  # not performed twice


def test_add_uf_chooses_a_sidewalk_per_pawn_and_respects_a_finite_supply():
    ctx = FakeContext(script=["p2", "p4"])
    run(ctx, steps({"op": "add_uf", "n": 2, "where": "own_sidewalk"}))
    assert ctx.pawn[("p2", "uf")] == 1 and ctx.pawn[("p4", "uf")] == 1
    assert ctx.requests[0].options == ("p2", "p3", "p4") and ctx.requests[0].kind == "target"
    short = FakeContext(script=["p3"])
    short.uf_left = 1
    run(short, steps({"op": "add_uf", "n": 3, "where": "own_sidewalk"}))
    assert sum(short.pawn.values()) == 1 and short.uf_left == 0
    s1 = FakeContext()
    run(s1, steps({"op": "add_uf", "n": 2, "where": "own_S1"}))  # one option: never asked
    assert s1.pawn[("p2", "uf")] == 2 and s1.requests == []


def test_move_up_to_count_pawns_and_a_moved_pawn_is_not_picked_again():
    ctx = FakeContext(script=[("p0", "pf"), ("forward", 2), ("p2", "pf"), ("forward", 1)])
    ctx.pawn.update({("p0", "pf"): 1, ("p2", "pf"): 1, ("s0C1", "uf"): 1})
    run(ctx, C.secret("blue-1-03").options[0].effect)  # Pamphlet Run A: 2 pf/uf, 2 spaces
    assert +ctx.pawn == Counter({("p2", "pf"): 1, ("p3", "pf"): 1, ("s0C1", "uf"): 1})
    first, dist, second = ctx.requests[0], ctx.requests[1], ctx.requests[2]
    assert first.options == (("p0", "pf"), ("p2", "pf")) and first.can_pass
    assert dist.options == (("forward", 0), ("forward", 1), ("forward", 2))
    assert second.options == (("p2", "pf"),)  # one unmoved pf left on p2; PASS allowed
    stop = FakeContext(script=[None])
    stop.pawn[("p1", "pl")] = 1
    run(stop, C.secret("blue-1-04").options[1].effect)  # Barricade B: pl, either direction
    assert stop.pawn[("p1", "pl")] == 1
    back = FakeContext(script=[("p1", "pl"), ("backward", 2)])
    back.pawn[("p1", "pl")] = 1
    run(back, C.secret("blue-1-04").options[1].effect)
    assert back.pawn[("p9", "pl")] == 1  # 10-space loop wraps around
    assert ("backward", 2) in back.requests[1].options and ("backward", 0) not in back.requests[
        1
    ].options


def test_new_leader_replaces_a_uf_with_chaos_from_a_sidewalk():
    ctx = FakeContext(societies=("mariners", "blue"), script=[("p3", "uf")])
    ctx.level[0] = 2
    ctx.pawn.update({("p3", "uf"): 1, ("s0C2", "uf"): 1})
    run(ctx, steps({"op": "new_leader", "ignore_level": False}))
    assert ctx.pawn[("p3", "sl0")] == 1 and ctx.pawn[("p3", "uf")] == 0
    assert ctx.res[0]["chaos"] == 1 and ctx.leaders_placed == [(1, 2)]
    chamber = FakeContext(societies=("mariners", "blue"), script=[("s0C2", "uf")])
    chamber.level[0] = 2
    chamber.pawn.update({("p3", "uf"): 1, ("s0C2", "uf"): 1})
    run(chamber, steps({"op": "new_leader", "ignore_level": False}))
    assert chamber.res[0]["chaos"] == 0 and chamber.pawn[("s0C2", "sl0")] == 1


def test_new_leader_is_strict_and_pays_4_intrigue_when_the_cutouts_are_empty():
    gate = FakeContext(societies=("mariners", "blue"))
    gate.pawn[("p2", "uf")] = 1  # Level 1 < the Mariners' cutout 1 gate (II)
    run(gate, steps({"op": "new_leader", "ignore_level": False}))
    assert gate.leaders_placed == [] and gate.pawn[("p2", "uf")] == 1
    run(gate, steps({"op": "new_leader", "ignore_level": True}))  # J10 / Coronation ignore the gate
    assert gate.leaders_placed == [(1, 2)]
    nobody = FakeContext()
    run(nobody, steps({"op": "new_leader", "ignore_level": True}))  # no UF on the path
    assert nobody.leaders_placed == []
    empty = FakeContext()
    empty.cutouts[0] = []
    empty.pawn[("s0C4", "uf")] = 1
    run(empty, steps({"op": "new_leader", "ignore_level": False}))
    assert empty.pawn[("s0C4", "uf")] == 0 and empty.res[0]["intrigue"] == 4


def test_deep_alchemy_limited_by_the_box_and_the_variant():
    ctx = FakeContext()
    ctx.box_deep = 1
    run(ctx, steps({"op": "deep_alchemy", "n": 2}))
    assert ctx.res[0]["deep_alchemy"] == 1 and ctx.box_deep == 0
    off = FakeContext(flags={"deep_alchemy": False})
    run(off, C.secret("mariners-3-06").options[0].effect)
    assert off.res[0]["deep_alchemy"] == 0


def test_assign_offers_legal_relic_slot_pairs_only():
    ctx = FakeContext(script=[("R027", 4)])
    ctx.rhand[0] = ["R055", "R027"]  # Ruby Toad (bright), Goremaw Staff (dark)
    ctx.slots[0][2] = "R001"  # slot 3 filled
    run(ctx, steps({"op": "assign", "slot": "empty"}))
    opts = set(ctx.requests[0].options)
    assert opts == {("R055", k) for k in (1, 2, 4, 5, 6)} | {("R027", 4)}
    assert ctx.slots[0] == [None, None, "R001", "R027", None, None] and ctx.rhand[0] == ["R055"]
    swap = FakeContext(script=[("R055", 3)])
    swap.rhand[0] = ["R055"]
    swap.slots[0][2] = "R001"
    run(swap, steps({"op": "assign", "slot": "filled"}))
    assert swap.slots[0][2] == "R055" and swap.rhand[0] == ["R001"]
    none = FakeContext()
    run(none, steps({"op": "assign", "slot": "any"}))  # empty hand: nothing, nothing asked
    assert none.requests == []


def test_extra_secret():
    ctx = FakeContext()
    run(ctx, C.tile("T-IV-Sword-L").flip)  # Whispering Campaign: extra Secret; lose 2 Chaos
    assert ctx.extra_secrets == [1, 0]


def test_extra_action_runs_once_even_when_paused():
    ctx = FakeContext()
    ctx.suspend_actions = True
    r = run_effect(steps({"op": "extra_action", "leader": "public"}), 0, ctx)
    assert not r.done
    assert r.resume(ctx) and ctx.extra_actions == [0]


def test_opponents_clockwise_with_their_own_choices():
    ctx = FakeContext(n=3, societies=("twilight", "blue", "garden"), script=[1, 0])
    for s in range(3):
        ctx.res[s]["gold"] = 1
    run(
        ctx,
        steps(
            {"op": "opponents", "who": "each", "effect": [{"op": "lose", "res": "gold", "n": 1}]},
            {
                "op": "opponents",
                "who": "each",
                "effect": [
                    {
                        "op": "choose",
                        "options": [
                            [{"op": "gain", "res": "gold", "n": 2}],
                            [{"op": "gain", "res": "energy", "n": 1}],
                        ],
                    }
                ],
            },
        ),
        seat=2,
    )
    # seat 0 chose option 1 (Energy), then seat 1 option 0 (2 Gold)
    assert [ctx.res[s]["gold"] for s in range(3)] == [0, 2, 1]
    assert [ctx.res[s]["energy"] for s in range(3)] == [1, 0, 0]
    assert [r.seat for r in ctx.requests] == [0, 1]  # seat 0 (left of 2) first, each chooses


def test_choose_performs_the_chosen_option():
    economic = C.ascension.suit_effect("Disk")
    ctx = FakeContext(script=[0])
    ctx.counts[(0, "ascender_level", None)] = 3
    run(ctx, economic)
    assert ctx.res[0]["gold"] == 3 and ctx.requests[0].kind == "choose"
    other = FakeContext(script=[1])
    other.relic_deck = ["R001"]
    run(other, economic)
    assert other.rhand[0] == ["R001"] and other.res[0]["gold"] == 0


def test_spend_uf_performs_each_per_returned_uf():
    ctx = FakeContext(script=[("p2", "uf"), ("s0C1", "uf"), None])
    ctx.pawn.update({("p2", "uf"): 1, ("s0C1", "uf"): 2})
    run(ctx, C.conjunction_secrets["blue"].options[1].effect)  # Independence Day B
    assert (
        ctx.res[0]["intrigue"] == 4
        and ctx.pawn[("s0C1", "uf")] == 1
        and ctx.pawn[("p2", "uf")] == 0
    )
    assert all(r.can_pass for r in ctx.requests)


def test_military_sweep():
    ctx = FakeContext()
    run(ctx, C.ascension.suit_effect("Rod"))
    assert ctx.swept == 1


def test_invest_own_is_strict_and_supply_places_what_fits():
    poor = FakeContext(societies=("garden", "blue"))
    poor.res[0]["gold"] = 2
    run(poor, steps({"op": "invest", "n": 3, "target": "any", "src": "own"}))
    assert poor.res[0]["gold"] == 2 and not poor.investments
    ctx = FakeContext(societies=("garden", "blue"), script=["p3"])
    ctx.res[0]["gold"] = 5
    run(ctx, steps({"op": "invest", "n": 3, "target": "any", "src": "own"}))  # Endowment 2
    assert ctx.requests[0].options == ("p2", "p3")  # Routes hold at most 2: no room for 3
    assert ctx.res[0]["gold"] == 2 and ctx.investments["p3"] == 3
    free = FakeContext(societies=("garden", "blue"), script=["R1"])
    run(
        free, C.secret("garden-4-02").options[0].effect
    )  # [1 Energy] Invest 4 (Gold from the supply)
    assert free.investments["R1"] == 2 and free.res[0]["gold"] == 0
    blue = FakeContext()  # not the Garden Club: nothing
    blue.res[0]["gold"] = 9
    run(blue, steps({"op": "invest", "n": 1, "target": "space", "src": "own"}))
    assert not blue.investments


def test_place_chaos_from_supply_and_from_own_tableau():
    ctx = FakeContext(societies=("twilight", "blue"), script=["p0", "p0"])
    ctx.masks_chaos["p1"] = 3
    ctx.masks_chaos["R1.0"] = 3
    run(ctx, C.secret("twilight-3-02").options[1].effect)  # place 2 Chaos (supply)
    assert ctx.masks_chaos["p0"] == 2 and ctx.requests == []  # only p0 has room: never asked
    own = FakeContext(societies=("twilight", "blue"), script=["p1"])
    own.res[0]["chaos"] = 1
    run(own, C.secret("twilight-2-04").options[1].effect)  # 2 Chaos from your meter, you have 1
    assert own.res[0]["chaos"] == 0 and sum(own.masks_chaos.values()) == 1
    panel = FakeContext(societies=("twilight", "blue"))
    run(panel, steps({"op": "place_chaos", "n": 1, "target": "alchemy_panel", "src": "supply"}))
    assert panel.masks_chaos[(1, 0)] == 1
    off = FakeContext(societies=("twilight", "blue"), flags={"society_powers": False})
    run(off, steps({"op": "place_chaos", "n": 2, "target": "space_or_relic", "src": "supply"}))
    assert not off.masks_chaos


def test_initiate_different_spaces_while_any_are_left():
    ctx = FakeContext(societies=("serpent", "blue"), script=["p1"])
    ctx.initiated.add("p0")
    run(ctx, steps({"op": "initiate", "n": 2}))
    assert ctx.initiated == {"p0", "p1"}


def test_prime_up_to_n_respecting_the_level():
    ctx = FakeContext(societies=("serpent", "blue"), script=[("serpent-1-02", "p0"), None])
    ctx.initiated.update({"p0", "p1"})
    ctx.shand[0] = ["serpent-1-02", "serpent-1-03"]
    ctx.primed.append(("serpent-1-01", "p1"))  # p1 is full at Level 1
    run(ctx, C.secret("serpent-3-03").options[0].effect)  # Prime up to 2
    assert ctx.primed == [("serpent-1-01", "p1"), ("serpent-1-02", "p0")]
    assert set(ctx.requests[0].options) == {("serpent-1-02", "p0"), ("serpent-1-03", "p0")}
    assert ctx.shand[0] == ["serpent-1-03"]


def test_extend_fills_empty_slots_while_the_deck_lasts():
    ctx = FakeContext(societies=("mariners", "blue"), script=["E2"])
    ctx.extension.update(E1="R001", E3="R003", E4="R004")
    ctx.relic_deck = ["R050", "R051"]
    run(ctx, steps({"op": "extend", "n": 2}))
    assert ctx.extension["E2"] == "R050" and ctx.relic_deck == ["R051"]
    dry = FakeContext(societies=("mariners", "blue"))
    run(dry, steps({"op": "extend", "n": 1}))
    assert all(v is None for v in dry.extension.values())
    off = FakeContext(societies=("mariners", "blue"), flags={"map_extension": False})
    off.relic_deck = ["R050"]
    run(off, steps({"op": "extend", "n": 1}))
    assert off.relic_deck == ["R050"]


# --------------------------------------------------------------------------------------- runner


def test_a_paused_runner_copies_pickles_and_rejects_illegal_answers():
    effect = steps(
        {"op": "add_uf", "n": 2, "where": "own_sidewalk"}, {"op": "gain", "res": "gold", "n": 1}
    )
    ctx = FakeContext()
    ctx.suspend_decisions = True
    r = run_effect(effect, 0, ctx)
    assert not r.done and r.pending == Request(
        0, "target", ("p2", "p3", "p4"), op="add_uf", info=(("remaining", 2),)
    )
    with pytest.raises(ValueError, match="not a legal answer"):
        r.resume(ctx, "p9")
    clone, ctx2 = pickle.loads(pickle.dumps(r)), copy.deepcopy(ctx)
    assert not r.resume(ctx, "p3") and r.pending.info == (("remaining", 1),)
    assert r.resume(ctx, "p3") and ctx.pawn[("p3", "uf")] == 2 and ctx.res[0]["gold"] == 1
    assert not clone.resume(ctx2, "p4") and clone.resume(ctx2, "p2")
    assert (
        ctx2.pawn[("p4", "uf")] == 1 and ctx2.pawn[("p2", "uf")] == 1 and ctx2.res[0]["gold"] == 1
    )
    with pytest.raises(RuntimeError):
        r.resume(ctx, None)


def test_pause_inside_opponents_and_choose_resumes_in_the_right_frame():
    effect = steps(
        {
            "op": "opponents",
            "who": "each",
            "effect": [
                {
                    "op": "choose",
                    "options": [
                        [{"op": "gain", "res": "gold", "n": 2}],
                        [{"op": "draw_relic", "n": 1}],
                    ],
                }
            ],
        }
    )
    ctx = FakeContext(n=3, societies=("blue", "garden", "twilight"))
    ctx.suspend_decisions = True
    ctx.relic_deck = ["R001"]
    r = run_effect(effect, 0, ctx)
    assert r.pending.seat == 1
    assert not r.resume(ctx, 1) and r.pending.seat == 2
    assert r.resume(ctx, 0)
    assert ctx.rhand[1] == ["R001"] and ctx.res[2]["gold"] == 2 and ctx.res[1]["gold"] == 0


# --------------------------------------------------------------------------- options and trades


def test_option_allowed_costs_variants_and_mods():
    card = C.secret("mariners-1-01")  # A: Extend the Map 1 (society-only); B: +2 Strength
    ctx = FakeContext(societies=("mariners", "blue"))
    assert ops.option_allowed(card, 0, ctx, 0, {}) and ops.option_allowed(card, 1, ctx, 0, {})
    off = FakeContext(
        societies=("mariners", "blue"), flags={"society_powers": False, "secret_options_b": False}
    )
    assert not ops.option_allowed(card, 0, off, 0, {}) and not ops.option_allowed(
        card, 1, off, 0, {}
    )
    armada = C.secret("mariners-4-02")  # A [1 Energy] +8 Strength; B [2 Energy] extra Action
    ctx.res[0]["energy"] = 1
    assert ops.option_allowed(armada, 0, ctx, 0, {}) and not ops.option_allowed(
        armada, 1, ctx, 0, {}
    )
    assert ops.option_allowed(armada, 1, ctx, 0, {"secret_energy": -1})
    assert ops.secret_option_cost(armada.options[1], {"no_secret_energy": 1}).energy == 0
    patron = C.secret("garden-2-04").options[0]  # [6 Gold] gain 3 Intrigue
    assert ops.secret_option_cost(patron, {"no_secret_energy": 1}).gold == 6


def test_any_time_trades_and_trade_inputs():
    for soc in C.societies.values():
        trades = soc.panel("any_time").trades
        assert [(t.inputs, t.out) for t in trades] == [
            ((("gold", 3),), (dsl.Gain("energy", 1),)),
            ((("gold", 5),), (dsl.Gain("energy", 2),)),
            ((("gold", 6),), (dsl.Gain("energy", 3),)),
        ]
    ctx = FakeContext(script=[("p2", "uf")])
    ctx.res[0].update(gold=5, energy=4)
    blue = C.societies["blue"]
    assert ops.trade_inputs_payable(blue.panels[0].trades[1], ctx, 0)
    assert not ops.trade_inputs_payable(blue.panels[0].trades[2], ctx, 0)
    leader = blue.panel("leader").trades[0]  # 4 Energy + a UF -> new Society Leader
    assert not ops.trade_inputs_payable(leader, ctx, 0)
    ctx.pawn[("p2", "uf")] = 1
    assert ops.trade_inputs_payable(leader, ctx, 0)  # Blue Army cutout 1 opens at Level I
    ctx.res[0]["energy"] = 3
    assert not ops.trade_inputs_payable(leader, ctx, 0)
    assert ops.trade_inputs_payable(leader, ctx, 0, energy_change=-1)  # R013 Chariot Wheel
    run(ctx, leader.out)
    assert ctx.pawn[("p2", "sl0")] == 1 and ctx.res[0]["chaos"] == 1


# ----------------------------------------------------------------------- every card effect runs


def _random_chooser(rng):
    def choose(req):
        opts = list(req.options) + ([None] if req.can_pass else [])
        return opts[rng.randrange(len(opts))]

    return choose


PROTOCOL = sorted(n for n, v in vars(ops.EffectContext).items() if callable(v) and n[0] != "_")


class RecordingContext(FakeContext):
    """FakeContext that records which protocol methods the ops call."""

    called: set = set()

    def __getattribute__(self, name):
        if name in PROTOCOL:
            RecordingContext.called.add(name)
        return super().__getattribute__(name)


def test_fake_context_implements_the_protocol():
    assert len(PROTOCOL) == 40
    assert [n for n in PROTOCOL if not callable(getattr(FakeContext, n, None))] == []


def test_every_content_effect_runs_to_completion_and_uses_the_whole_protocol():
    rng = random.Random(7)
    RecordingContext.called = set()
    for society in sorted(C.societies):
        for label, effect in C.all_effects():
            ctx = RecordingContext(
                n=3, societies=(society, "blue", "garden"), chooser=_random_chooser(rng)
            )
            ctx.res[0].update(gold=4, energy=2, chaos=2)
            ctx.level[0] = 2
            ctx.relic_deck = [r.id for r in C.relics[:5]]
            ctx.secret_deck[0] = [c.id for c in C.secrets[society][:3]]
            ctx.rhand[0] = ["R001", "R027"]
            ctx.shand[0] = [C.secrets[society][5].id]
            ctx.pawn.update({("p0", "pf"): 1, ("p1", "pl"): 1, ("p2", "uf"): 1, ("s0C1", "uf"): 1})
            ctx.initiated.add("p1")
            for key in [(s, c, None) for s in range(3) for c in C.dsl.countables] + [
                (s, "assigned_icons", suit) for s in range(3) for suit in C.constants.suits
            ]:
                ctx.counts.setdefault(key, 2)
            r = run_effect(effect, 0, ctx, source=label)
            assert r.done, (society, label)
            assert all(v >= 0 for s in range(3) for v in ctx.res[s].values()), (society, label)
    # every protocol method is needed by some card effect
    assert set(PROTOCOL) - RecordingContext.called == set()


def test_the_op_tables_document_every_op_and_society_only_steps():
    for name in dsl.OP_CLASSES:
        assert f"\n{name} " in dsl.__doc__ and f"\n{name} " in ops.__doc__, name
    only = {n for n, c in dsl.OP_CLASSES.items() if c.society_only}
    assert only == set(ops.OP_SOCIETY) == {"invest", "place_chaos", "initiate", "prime", "extend"}
    assert dsl.is_society_only(dsl.Act("revolt", 6)) and not dsl.is_society_only(
        dsl.Act("purge", 2)
    )
    assert dsl.only_society_steps(C.secret("mariners-1-01").options[0].effect)
    assert not dsl.only_society_steps(C.secret("mariners-2-02").options[1].effect)  # extend; gold
    assert dsl.describe(C.conjunction_secrets["blue"].options[1].effect) == (
        "spend_uf up to 6: each (gain(res=intrigue, n=2))"
    )
