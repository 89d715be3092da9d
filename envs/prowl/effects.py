"""The 24 card effects of design/prowl.md, registered in :mod:`envs.prowl.cards`.

Each effect function is ``fn(state, player, card_type)``; decisions are asked through
``state.ask(kind, player, handler_id, options, ctx)`` and resolved by a handler
``fn(state, player, ctx, value)``. "Another clan" (rulebook FAQ) is any clan other than the clan
of the card whose effect is resolving (``state.type_clan[card_type]``). Movement caused here is
*effect* movement (Glacier applies); opponents protected by a Bodyguard are never offered as
targets (design, Bodyguard).
"""

from __future__ import annotations

from .cards import register_effect, register_handler, register_leader_condition

# decision kinds (mirrors engine constants; imported there)
K_OPP, K_CLAN, K_YESNO, K_SIDE, K_REWARD = 3, 4, 5, 6, 7


def _all_clans(s):
    return tuple(range(s.C))


# ------------------------------------------------------------------------------------ Spring
def high_mage(s, p, t):
    """Name a clan: your Pact (public)."""
    s.ask(K_CLAN, p, "pact", _all_clans(s), {"card": t})


def _pact(s, p, ctx, c):
    s.pact[p] = c


def hooded_figure(s, p, t):
    """Choose left or right: all unprotected players pass their clan card simultaneously
    (nothing to choose when every opponent is protected: ruling 3)."""
    if s.targetable(p):
        s.ask(K_SIDE, p, "hooded_pass", (0, 1), {"card": t})


def _hooded_pass(s, p, ctx, side):
    s.pass_clans(p, side)


def seer(s, p, t):
    """Peek at an opponent's clan."""
    opts = s.targetable(p)
    if opts:
        s.ask(K_OPP, p, "peek_clan", opts, {"card": t})


def _peek_clan(s, p, ctx, q):
    s.peek_clan(p, q)


def hexer(s, p, t):
    """Lower another clan by 1."""
    own = s.type_clan[t]
    s.ask(K_CLAN, p, "lower1", tuple(c for c in range(s.C) if c != own), {"card": t})


def _lower1(s, p, ctx, c):
    s.lower(c, 1, p, effect=True)


def changeling(s, p, t):
    """Swap your clan card with an opponent's (facings travel with the cards)."""
    opts = s.targetable(p)
    if opts:
        s.ask(K_OPP, p, "swap_clan", opts, {"card": t})


def _swap_clan(s, p, ctx, q):
    s.swap_clans(p, q)


def whisperer(s, p, t):
    """Peek at all cards in an opponent's hand (Early)."""
    opts = s.targetable(p)
    if opts:
        s.ask(K_OPP, p, "peek_hand", opts, {"card": t})


def _peek_hand(s, p, ctx, q):
    s.peek_hand(p, q)


# ------------------------------------------------------------------------------------ Summer
def wanderer(s, p, t):
    """Swap the track positions of two other clans."""
    own = s.type_clan[t]
    s.ask(K_CLAN, p, "wander1", tuple(c for c in range(s.C) if c != own), {"card": t})


def _wander1(s, p, ctx, a):
    own = s.type_clan[ctx["card"]]
    s.ask(K_CLAN, p, "wander2", tuple(c for c in range(s.C) if c != own and c != a),
          {"card": ctx["card"], "clan": a})


def _wander2(s, p, ctx, b):
    s.swap_track(ctx["clan"], b, p, effect=True)


def raider(s, p, t):
    """Accuse an opponent (effect: no discard)."""
    opts = s.accusable(p)
    if opts:
        s.ask(K_OPP, p, "acc_opp", opts, {"card": t, "effect": True})


def berserker(s, p, t):
    """Lower the clan on top of the track by 1 (nothing if this card's clan is on top)."""
    top = s.track[0]
    if top != s.type_clan[t]:
        s.lower(top, 1, p, effect=True)


def firebrand(s, p, t):
    """Name a clan: opponents whose face-down clan is that clan turn it face-up (no reward)."""
    s.ask(K_CLAN, p, "firebrand", _all_clans(s), {"card": t})


def _firebrand(s, p, ctx, c):
    s.firebrand(p, c)


def last_stand(s, p, t):
    """Raise this card's clan by 2 (Final)."""
    s.raise_(s.type_clan[t], 2, p, effect=True)


# ------------------------------------------------------------------------------------ Autumn
def headstrong_scout(s, p, t):
    """If this card's clan is at the bottom of the track, raise it by 2."""
    c = s.type_clan[t]
    if s.pos[c] == s.C - 1:
        s.raise_(c, 2, p, effect=True)


def captain(s, p, t):
    """Gain the Dominance token; if already held, raise a clan of your choice by 1."""
    if s.dominance == p:
        s.ask(K_CLAN, p, "raise1", _all_clans(s), {"card": t})
    else:
        s.dominance = p


def _raise1(s, p, ctx, c):
    s.raise_(c, 1, p, effect=True)


def herald(s, p, t):
    """Peek at an opponent's clan; then you may force them to Change on their next turn."""
    opts = s.targetable(p)
    if opts:
        s.ask(K_OPP, p, "herald_peek", opts, {"card": t})


def _herald_peek(s, p, ctx, q):
    s.peek_clan(p, q)
    s.ask(K_YESNO, p, "herald_force", (0, 1), {"card": ctx["card"], "opp": q})


def _herald_force(s, p, ctx, yes):
    if yes:
        s.forced[ctx["opp"]] = True


def drillmaster(s, p, t):
    """If you hold the Dominance token, raise this card's clan by 1 (Early)."""
    if s.dominance == p:
        s.raise_(s.type_clan[t], 1, p, effect=True)


def marshal(s, p, t):
    """Raise a clan of your choice by 1, then lower another clan (not this card's) by 1."""
    s.ask(K_CLAN, p, "marshal_raise", _all_clans(s), {"card": t})


def _marshal_raise(s, p, ctx, c):
    s.raise_(c, 1, p, effect=True)
    own = s.type_clan[ctx["card"]]
    s.ask(K_CLAN, p, "lower1", tuple(x for x in range(s.C) if x != own),
          {"card": ctx["card"], "clan": c})


# ------------------------------------------------------------------------------------ Winter
def magistrate(s, p, t):
    """Choose an opponent: they must Change on their next turn."""
    opts = s.targetable(p)
    if opts:
        s.ask(K_OPP, p, "force", opts, {"card": t})


def _force(s, p, ctx, q):
    s.forced[q] = True


def assassin(s, p, t):
    """If this card's clan is in the top two of the track, lower any clan by 2."""
    if s.pos[s.type_clan[t]] <= 1:
        s.ask(K_CLAN, p, "lower2", _all_clans(s), {"card": t})


def _lower2(s, p, ctx, c):
    s.lower(c, 2, p, effect=True)


def usurper(s, p, t):
    """If this card's clan is in the top two, take the Dominance token and raise it by 1 (Final)."""
    c = s.type_clan[t]
    if s.pos[c] <= 1:
        s.dominance = p
        s.raise_(c, 1, p, effect=True)


def _passive(s, p, t):
    """Attachments whose effect is a passive while attached (Bodyguard, Glacier) or a leader's
    game-end condition (Warmonger, Warlord, Regent): nothing happens when played."""


# ------------------------------------------------------------------------------------ Accuse
def _acc_opp(s, p, ctx, q):
    s.ask(K_CLAN, p, "acc_clan", _all_clans(s), {**ctx, "opp": q})


def _acc_clan(s, p, ctx, c):
    s.resolve_accusation(p, ctx["opp"], c, ctx.get("effect", False), ctx)


def _acc_reward(s, p, ctx, choice):
    if choice == 0:
        if s.dominance == p:
            s.ask(K_CLAN, p, "reward_raise", _all_clans(s), dict(ctx))
        else:
            s.dominance = p
    else:
        s.forced[ctx["opp"]] = True


def _reward_raise(s, p, ctx, c):
    s.raise_(c, 1, p, effect=bool(ctx.get("effect", False)))


# ------------------------------------------------------------------------------------ leaders
def _cond_warmonger(s, q, t):
    return all(s.face_up[o] for o in range(s.n) if o != q)


def _cond_warlord(s, q, t):
    return s.dominance == q and s.track[0] == s.type_clan[t]


def _cond_regent(s, q, t):
    return (not s.face_up[q]) and s.track[1] == s.type_clan[t]


def _cond_high_mage(s, q, t):
    pact = s.pact[q]
    return pact >= 0 and s.clan_of(q) == pact and s.track[0] == pact


for _id, _fn in [("high_mage", high_mage), ("hooded_figure", hooded_figure), ("seer", seer),
                 ("hexer", hexer), ("changeling", changeling), ("whisperer", whisperer),
                 ("warmonger", _passive), ("wanderer", wanderer), ("raider", raider),
                 ("berserker", berserker), ("firebrand", firebrand), ("last_stand", last_stand),
                 ("warlord", _passive), ("headstrong_scout", headstrong_scout),
                 ("captain", captain), ("herald", herald), ("drillmaster", drillmaster),
                 ("marshal", marshal), ("regent", _passive), ("bodyguard", _passive),
                 ("magistrate", magistrate), ("glacier", _passive), ("assassin", assassin),
                 ("usurper", usurper)]:
    register_effect(_id, _fn)

for _id, _fn in [("pact", _pact), ("hooded_pass", _hooded_pass), ("peek_clan", _peek_clan),
                 ("lower1", _lower1), ("swap_clan", _swap_clan), ("peek_hand", _peek_hand),
                 ("wander1", _wander1), ("wander2", _wander2), ("firebrand", _firebrand),
                 ("raise1", _raise1), ("herald_peek", _herald_peek),
                 ("herald_force", _herald_force), ("marshal_raise", _marshal_raise),
                 ("force", _force), ("lower2", _lower2), ("acc_opp", _acc_opp),
                 ("acc_clan", _acc_clan), ("acc_reward", _acc_reward),
                 ("reward_raise", _reward_raise)]:
    register_handler(_id, _fn)

for _id, _fn in [("warmonger", _cond_warmonger), ("warlord", _cond_warlord),
                 ("regent", _cond_regent), ("high_mage", _cond_high_mage)]:
    register_leader_condition(_id, _fn)
