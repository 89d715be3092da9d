"""Clandestine content: the design checker on the packaged copy, counts, named cards, bad content.

The design's checker (``design/check_clandestine_content.py``) is imported by path when the
design folder is present and run on the packaged JSON; the named-card values are the rulebook's
card illustrations and worked examples as reproduced by design clandestine_content.md §13.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path

import pytest

from envs.clandestine import dsl
from envs.clandestine.content import DATA_PATH, EXPECTED, ContentError, load_content

DESIGN = Path("/work/shared/design")
CHECKER = DESIGN / "check_clandestine_content.py"
C = load_content()


@pytest.fixture(scope="module")
def raw():
    with open(DATA_PATH, encoding="utf-8") as fh:
        return json.load(fh)


def _run_checker(json_path):
    """Import the design checker by path, run on ``json_path`` (its checks run at import)."""
    if not CHECKER.exists() or not (DESIGN / "clandestine_content.md").exists():
        pytest.skip(f"design checker not present at {CHECKER}")
    spec = importlib.util.spec_from_file_location("check_clandestine_content", CHECKER)
    mod = importlib.util.module_from_spec(spec)
    argv = sys.argv
    sys.argv = [str(CHECKER), str(json_path), str(DESIGN / "clandestine_content.md")]
    try:
        spec.loader.exec_module(mod)
    except SystemExit:
        pass  # the checker exits 1 after listing failures; FAIL holds them
    finally:
        sys.argv = argv
    return mod


@pytest.fixture(scope="module")
def checker():
    """The design checker module, run on the packaged JSON."""
    return _run_checker(DATA_PATH)


# ---------------------------------------------------------------------------------- the checker


def test_design_checker_passes_on_the_packaged_copy(checker):
    assert checker.PATH == str(DATA_PATH)
    assert checker.FAIL == []


def test_design_checker_flags_a_changed_card(tmp_path, raw):
    d = copy.deepcopy(raw)
    d["relics"][54]["value"] = 2  # Ruby Toad: value 1 in Joan's Discover and the md table
    p = tmp_path / "changed.json"
    p.write_text(json.dumps(d))
    fails = _run_checker(p).FAIL
    assert any("R055" in f for f in fails), fails


def test_checker_and_loader_see_the_same_cards_and_ops(checker):
    assert checker.MDCOUNT["secrets"] == 155
    assert checker.DOMINATED == [] and checker.CYCLES == []
    used = {op.name for _, e in C.all_effects() for op in dsl.walk(e)}
    assert used == set(checker.USED_OPS) == set(checker.OPS)
    assert {r.id for r in C.relics} == {r["id"] for r in checker.R}
    assert {t.id for t in C.ascension.tiles} == set(checker.TILE)


def test_packaged_copy_is_byte_identical_to_the_design():
    src = DESIGN / "clandestine_content.json"
    if not src.exists():
        pytest.skip(f"design file not present at {src}")
    assert DATA_PATH.read_bytes() == src.read_bytes()


# --------------------------------------------------------------------------------------- counts


def test_component_counts():
    assert len(C.relics) == 108 and [r.id for r in C.relics] == [f"R{k:03d}" for k in range(1, 109)]
    assert (
        len(C.conjunctions) == 24
        and len(C.ascension.tiles) == 50
        and len(C.ascension.board_slots) == 40
    )
    assert sorted(C.societies) == sorted(["mariners", "garden", "twilight", "serpent", "blue"])
    for sid, cards in C.secrets.items():
        assert len(cards) == 31
        assert [sum(c.level == lv for c in cards) for lv in (1, 2, 3, 4)] == [10, 8, 7, 6]
        assert all(
            c.intrigue == c.level and len(c.suits) == (1 if c.level <= 2 else 2) for c in cards
        )
        assert [c.index for c in C.society_secrets(sid)] == list(range(32))
        assert C.conjunction_secrets[sid].conjunction and C.conjunction_secrets[sid].intrigue == 5
    kinds = [t.kind for t in C.ascension.tiles]
    assert (kinds.count("board"), kinds.count("first_to_level"), kinds.count("starting")) == (
        36,
        4,
        10,
    )
    assert sum(s.start_tile is None for s in C.ascension.board_slots) == 4  # row I right slots
    assert sum(r.tone == "dark" for r in C.relics) > 0
    assert [r.header for r in C.relics].count("plus") == 52


def test_decision_blocks_cover_401_actions():
    d = C.decisions
    assert d.num_actions == EXPECTED["num_actions"] == 401
    assert d.block_names == (
        "PASS",
        "OPT",
        "SPACE",
        "PAWN",
        "DIST",
        "MAP",
        "ROUTE",
        "RELIC",
        "SECRET",
        "TRADE",
        "TILE",
        "AGENTS",
        "SLOT",
        "SUIT",
        "BOARD",
        "PANEL",
    )
    assert (d.block("RELIC").offset, d.block("RELIC").size) == (104, 108)
    assert (d.block("PANEL").offset, d.block("PANEL").stop) == (373, 401)
    assert d.block_of(0)[0].name == "PASS" and d.block_of(212) == (d.block("SECRET"), 0)
    with pytest.raises(ValueError):
        d.block_of(401)
    assert len(d.kinds) == 22


def test_variants_and_map():
    v = C.variants
    assert v.defaults()["offturn_alchemy"] is True and v.basic()["offturn_alchemy"] is False
    assert v.defaults()["finite_pawns"] is False and dict(v.parameters)["max_rounds"] == 40
    assert C.relic_map.map_order[:2] == ("H", "R1.0") and len(C.relic_map.map_order) == 17
    assert C.relic_map.row_extra == (0, 1, 2) and C.relic_map.extension_extra_opponents == 3


# ---------------------------------------------------------------------------------- named cards


def test_ruby_toad():
    r = C.relic("R055")
    assert (r.name, r.value, r.suit, r.tone, r.header, r.when) == (
        "Ruby Toad",
        1,
        "Disk",
        "bright",
        "plus",
        "either",
    )
    assert r.plus == (dsl.Gain("gold", 2),)


def test_surveyors_level_pays_2_sword():
    r = C.relic("R037")
    assert (r.name, r.suit, r.icons, r.value) == ("Surveyor's Level", "Sword", 2, 2)
    assert r.icons_of("Sword") == 2 and r.icons_of("Rod") == 0


def test_cracked_mirror_and_wooden_cup_flags():
    mirror, cup = C.relic("R098"), C.relic("R085")
    assert mirror.name == "Cracked Mirror" and mirror.flag == dsl.Per("assigned_relics")
    assert mirror.flag.value(5) == 5  # Victor's 72: 5 assigned Relics
    assert cup.name == "Wooden Cup" and cup.flag == dsl.Per("assigned_icons", "Chalice")


def test_dark_relic_counts_the_larger_icon_set():
    staff = C.relic("R027")  # 3 Rod, alternate 1 Chalice
    assert staff.dark and staff.icons_of("Rod") == 3 and staff.icons_of("Chalice") == 1
    assert staff.eye.mods == (("deep_alchemy", 1),) and staff.eye.trigger.on == "regroup"


def test_soapbox_speech():
    s = C.secret("blue-1-01")
    assert (s.name, s.level, s.suits, s.intrigue, s.index) == ("Soapbox Speech", 1, ("Rod",), 1, 0)
    assert [o.label for o in s.options] == ["A", "B"]
    assert s.options[0].effect == (dsl.Strength(dsl.Per("uf_on_path", max=2)),)
    assert s.options[1].effect == (dsl.AddUf(1, "own_sidewalk"),)


def test_any_time_panel_on_every_tableau():
    for soc in C.societies.values():
        p = soc.panels[0]
        assert (p.id, p.name, p.timing) == ("any_time", "Any Time", "any")
        assert [(t.cost("gold"), t.out) for t in p.trades] == [
            (3, (dsl.Gain("energy", 1),)),
            (5, (dsl.Gain("energy", 2),)),
            (6, (dsl.Gain("energy", 3),)),
        ]


def test_tiles_suit_effects_and_conjunctions():
    assert C.tile("T-I-Rod-L").flip == (dsl.Act("regroup", 2),)  # Drill Yard
    assert C.tile("T-III-Rod-R").flag == 5  # Monument
    assert C.tile("T-II-Sword-R").eye.mods == (("secret_hand", 1),)  # Inner Circle
    assert C.board_slot("AI-Rod-R").start_tile is None
    assert C.ascension.suit_effect("Rod") == (dsl.MilitarySweep(),)
    j = C.conjunction("J05")
    assert j.name == "Moon over Markets" and j.panel.trades[0].inputs == (("energy", 2),)
    assert j.panel.trades[0].out == (dsl.Gain("gold", 3),)
    assert C.conjunction("J02").panel is None


def test_loader_is_cached_and_accepts_a_path(tmp_path, raw):
    assert load_content() is load_content()
    p = tmp_path / "c.json"
    p.write_text(json.dumps(raw))
    other = load_content(p)
    assert other is not C and other.relic("R055") == C.relic("R055")


# ------------------------------------------------------------------------------- broken content


def _broken(raw, edit):
    d = copy.deepcopy(raw)
    edit(d)
    with pytest.raises(ContentError) as exc:
        load_content(d)
    return exc.value


def test_missing_relic(raw):
    e = _broken(raw, lambda d: d["relics"].pop())
    assert str(e) == "relics: expected 108 relics, found 107"
    assert isinstance(e, ValueError) and e.path == "relics"


def test_duplicate_relic_id(raw):
    e = _broken(raw, lambda d: d["relics"][1].update(id="R001"))
    assert str(e) == "relics: duplicate relic id 'R001'"


def test_duplicate_secret_id(raw):
    e = _broken(raw, lambda d: d["secrets"]["garden"][3].update(id="garden-1-01"))
    assert "duplicate Secret id 'garden-1-01'" in str(e)


def test_unknown_op(raw):
    e = _broken(raw, lambda d: d["relics"][54]["effect"][0].update(op="teleport"))
    assert str(e) == "relics[54].effect[0]: unknown op 'teleport'"


def test_other_broken_content(raw):
    cases = [
        (
            lambda d: d["ascension"]["board_slots"][0].update(start_tile="T-NOPE"),
            "ascension.board_slots[0].start_tile: unknown board tile 'T-NOPE'",
        ),
        (lambda d: d["relics"][0].update(suit="Cup"), "relics[0].suit: 'Cup' is not one of"),
        (lambda d: d["relics"][0].update(tone="grey"), "relics[0].tone: 'grey' is not one of"),
        (lambda d: d["conjunctions"].pop(), "conjunctions: expected 24 conjunctions, found 23"),
        (lambda d: d["ascension"]["tiles"].pop(), "ascension.tiles: expected 50 tiles, found 49"),
        (lambda d: d["secrets"]["blue"].pop(), "secrets.blue: expected 31 Secrets, found 30"),
        (
            lambda d: d["societies"]["blue"]["panels"][0]["trades"][0]["in"].update(mana=1),
            "societies.blue.panels[0].trades[0].in.mana: 'mana' is not one of",
        ),
        (
            lambda d: d["secrets"]["blue"][0]["effects"][0]["effect"][0]["n"].update(max=3),
            "secrets.blue[0].effects[0]: differs from template 'soapbox' at Level 1",
        ),
        (
            lambda d: d["dsl"]["ops"]["gain"]["params"].update(extra="int"),
            "dsl.ops.gain: declared params",
        ),
        (
            lambda d: d["dsl"]["ops"].update(fly={"params": {}}),
            "dsl.ops.fly: declared op 'fly' has no implementation",
        ),
        (
            lambda d: d["decisions"]["action_blocks"][1].update(size=9),
            "decisions.action_blocks[2]: block SPACE starts",
        ),
        (
            lambda d: d["relics"][4]["trigger"].update(on="sneeze"),
            "relics[4].trigger.on: 'sneeze' is not one of",
        ),
        (
            lambda d: d["relics"][12]["mods"].update(flight=1),
            "relics[12].mods.flight: 'flight' is not one of",
        ),
        (
            lambda d: d["societies"]["garden"].update(
                starting_tiles=["T-START-blue-1", "T-START-garden-2"]
            ),
            "societies.garden.starting_tiles[0]: 'T-START-blue-1' is not a starting tile of garden",
        ),
        (lambda d: d["variants"]["basic_preset"].pop("chaos"), "variants.basic_preset: keys"),
        (lambda d: d.pop("visibility"), "visibility: missing"),
    ]
    for edit, message in cases:
        assert message in str(_broken(raw, edit)), message


def test_not_json_is_a_content_error(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(ContentError, match="not valid JSON"):
        load_content(p)


def test_content_pickles_by_reference_and_records_are_shared(raw):
    import pickle

    assert pickle.loads(pickle.dumps(C)) is C and len(pickle.dumps(C)) < 200
    assert copy.deepcopy(C) is C and copy.deepcopy(C.relic("R001")) is C.relic("R001")
    other = load_content(raw)
    back = pickle.loads(pickle.dumps(other))
    assert back is not other and back.secret("blue-1-01") == other.secret("blue-1-01")


def test_variant_config_defaults_preset_overrides_and_errors():
    v = C.variants
    cfg = v.config()
    assert cfg["offturn_alchemy"] and cfg["max_rounds"] == 40 and cfg["margin_weight"] == 0.0
    basic = v.config(basic=True, max_rounds=12, margin_weight=0.5)
    assert (
        not basic["society_powers"] and basic["max_rounds"] == 12 and basic["margin_weight"] == 0.5
    )
    for kw, msg in [
        ({"chaoss": False}, "unknown Clandestine variant 'chaoss'"),
        ({"chaos": 0}, "must be True or False"),
        ({"max_rounds": 0}, "max_rounds must be an integer >= 1"),
        ({"margin_weight": -1.0}, "margin_weight must be a finite number >= 0"),
        ({"margin_weight": float("inf")}, "margin_weight must be a finite number >= 0"),
        ({"margin_scale": 0}, "margin_scale must be a finite number > 0"),
        ({"margin_scale": float("inf")}, "margin_scale must be a finite number > 0"),
    ]:
        with pytest.raises(ValueError, match=msg):
            v.config(**kw)


def test_hood_tiles_flipped_only_in_pre():
    pre_only = {
        t.id for t in C.ascension.tiles if t.flip is not None and dsl.only_extra_secret(t.flip)
    }
    assert pre_only == {"T-I-Sword-L"}  # Second Thoughts


def test_alchemy_inputs_and_actions_match_the_dsl_text():
    from envs.clandestine.content import ACTION_NAMES, ALCHEMY_INPUTS

    text = C.raw["dsl"]["alchemy_inputs"]
    assert all(f"{w} " in text or f"{w}," in text for w in ALCHEMY_INPUTS)
    assert tuple(k for k, _ in C.actions) == ACTION_NAMES
    used = {k for s in C.societies.values() for p in s.panels for t in p.trades for k, _ in t.inputs}
    used |= {k for j in C.conjunctions if j.panel for t in j.panel.trades for k, _ in t.inputs}
    assert used == set(ALCHEMY_INPUTS)
