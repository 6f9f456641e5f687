"""Inference (issue 24, deliverable 1): worlds weighted by the likelihood of
the opponent's public actions this round under a model of its play.

- with inference off or `uniform`, hints and bots are bit for bit what they
  are without it (seeded decisions of every kind; pimc replays
  pimc_classic's reference games);
- the static-policy model's likelihood is checked against a brute force over
  card subsets (the drawn cards S of the hand after the replacement);
- a weighted enumeration sums to 1 and moves weight toward the hands the
  model finds likelier; every hint says which model it used."""

from __future__ import annotations

import functools
import itertools
import json
import math
import random
from pathlib import Path

import pytest

from tacocat.errors import TacocatError
from tacocat.players.bots import make_bot, play_game
from tacocat.rules.actions import Action
from tacocat.rules.cards import hand
from tacocat.rules.events import DuelEvent, ReplaceEvent
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.budget import Budget
from tacocat.search.hint import Knobs, hint
from tacocat.search.inference import InferenceSampler, StaticSoftmax, check_inference, inference_sampler, observations
from tacocat.search.sampling import HandSampler

REFERENCE = json.loads(Path(__file__).with_name("pimc_classic_reference.json").read_text())["games"]


def decisions(seed: int, n: int = 60) -> list:
    """The views of a seeded game between level-3 bots, every decision kind."""
    bots = (make_bot("pimc_classic", samples=2, replace_samples=8, duel_samples=2, candidates=4),) * 2
    end = play_game(bots, seed, STANDARD)
    replay = GameState.new(STANDARD, seed)
    out = []
    for a in end.actions[:n]:
        p = a["player"]
        v = replay.view(p)
        if v.decision is not None and len(v.legal_actions()) > 1:
            out.append(v)
        replay.apply(p, Action.from_dict({k: x for k, x in a.items() if k != "player"}))
    return out


@functools.cache
def views() -> list:
    """The views of seed 3's game, played when a test first asks (not at
    collection, which every xdist worker pays)."""
    return decisions(3)


QUICK = Knobs(duel_samples=4, duel_exact_budget=-1, replace_samples=16, candidates=4)


def test_uniform_is_bit_for_bit_on_one_decision_of_each_kind():
    seen = {}
    for v in views():
        seen.setdefault(v.decision, v)
    assert set(seen) == {"replace", "duel", "attack", "answer"}
    for v in seen.values():
        base = hint(v, Budget(samples=8, seed=5), knobs=QUICK)
        other = hint(v, Budget(samples=8, seed=5), knobs=QUICK, inference="uniform")
        assert strip(other.to_dict()) == strip(base.to_dict())


def strip(d: dict) -> dict:
    d = dict(d)
    d.pop("seconds")
    return d


@pytest.mark.slow
@pytest.mark.parametrize("name", ["off", "uniform"])
def test_inference_off_or_uniform_gives_todays_hints_bit_for_bit(name):
    kinds = set()
    for v in views()[:24]:
        base = hint(v, Budget(samples=20, seed=5))
        other = hint(v, Budget(samples=20, seed=5), inference=name)
        assert strip(other.to_dict()) == strip(base.to_dict())
        assert other.to_dict()["inference"] == "off"
        kinds.add(v.decision)
    assert kinds == {"replace", "duel", "attack", "answer"}


@pytest.mark.slow
@pytest.mark.parametrize("game", REFERENCE[:5], ids=lambda g: f"{g['case']}-{g['seed']}")
@pytest.mark.parametrize("name", [None, "uniform"])
def test_pimc_with_inference_off_plays_pimc_classic_games(game, name):
    rules = STANDARD if game["rules"] is None else Ruleset.from_dict(game["rules"])
    extra = {} if name is None else {"inference": name}
    bots = (
        make_bot("pimc", seed=game["seed"], **game["budget"], **extra),
        make_bot("pimc", seed=game["seed"] + 1000, **game["budget"], **extra),
    )
    assert [dict(a) for a in play_game(bots, game["seed"], rules).actions] == game["actions"]


def brute_likelihood(model: StaticSoftmax, post: list[int], discard: tuple, cap: int) -> float:
    """mean over card subsets S of post (the drawn cards) of P(discard | post - S + discard),
    P from the softmax over every legal discard multiset, by brute force."""
    from tacocat.rules.actions import sub_multisets

    def p_discard(dealt):
        opts = sub_multisets(hand(dealt), cap)
        score = {d: math.prod(model.x[c] for c in d) for d in opts}
        return score[hand(discard)] / sum(score.values())

    k = len(discard)
    subsets = list(itertools.combinations(range(len(post)), k))
    total = 0.0
    for s in subsets:
        kept = [c for i, c in enumerate(post) if i not in s]
        total += p_discard(kept + list(discard))
    return total / len(subsets)


def test_policy_likelihood_matches_a_brute_force_over_drawn_cards():
    rng = random.Random(7)
    model = StaticSoftmax(1.0)
    checked = 0
    for v in views():
        s = InferenceSampler(v, model)
        if not s.discard or s.duels or s.played:
            continue
        for _ in range(3):
            opp = s.sample(rng)
            got = s.likelihood(opp)
            want = brute_likelihood(model, list(opp), s.discard, s.cap)
            # equal up to the factor common to every hand: prod_{c in D} x_c
            common = math.prod(model.x[c] for c in s.discard)
            assert got * common == pytest.approx(want, rel=1e-9)
            checked += 1
    assert checked >= 3


def test_weighted_enumeration_is_a_distribution_and_moves_weight():
    moved = 0
    for v in views():
        if v.decision not in ("attack", "answer", "duel"):
            continue
        s = InferenceSampler(v, StaticSoftmax(1.0))
        if not s.active:
            continue
        plain = HandSampler(v).enumerate(3000)
        weighted = s.enumerate(3000)
        if plain is None:
            continue
        assert [h for h, _ in weighted] == [h for h, _ in plain]
        assert sum(p for _, p in weighted) == pytest.approx(1.0)
        assert 0 < s.ess() <= len(plain) + 1e-9
        if max(abs(p - q) for (_, p), (_, q) in zip(plain, weighted)) > 1e-3:
            moved += 1
    assert moved >= 1


def test_every_hint_says_which_model_it_used_and_its_effective_sample():
    said = set()
    for v in views()[:16]:
        d = hint(v, Budget(samples=8, seed=1), method="pimc", inference="policy", knobs=QUICK).to_dict()
        said.add(d["inference"])
        if d["inference"] != "off":
            assert d["effective_samples"] > 0
    assert said == {"off", "policy"}  # off: nothing of the opponent's to read yet (a first replacer)


def test_observations_read_the_opponents_round():
    for v in views():
        discard, cap, duels, _ = observations(v)
        o = 1 - v.player
        events = v.history
        if any(isinstance(e, ReplaceEvent) and e.player == o for e in events):
            assert discard is not None and len(discard) <= cap
        assert len(duels) == sum(1 for e in events if isinstance(e, DuelEvent))


def test_a_bad_inference_option_is_one_line():
    with pytest.raises(TacocatError, match="inference 'psychic' unknown"):
        check_inference("psychic")
    with pytest.raises(TacocatError, match="temperature"):
        check_inference("policy:warm")
    with pytest.raises(TacocatError, match="temperature must be a positive"):
        check_inference("policy:-1")
    assert check_inference("policy:0.5") == "policy:0.5"
    assert isinstance(inference_sampler(views()[0], "off"), HandSampler)


def test_bots_take_inference_as_an_option():
    with pytest.raises(TacocatError, match="inference 'bogus' unknown"):
        make_bot("pimc", inference="bogus")
    bot = make_bot("pimc", samples=4, replace_samples=8, duel_samples=2, candidates=2, inference="policy")
    # a play-phase view whose opponent replaced: the bot's search weights it (hint reports the model)
    v = next(v for v in views() if v.decision in ("attack", "answer") and InferenceSampler(v, StaticSoftmax()).active)
    assert bot.choose(v, random.Random(0)) in v.legal_actions()
    d = hint(v, Budget(samples=4, seed=0), method="pimc", knobs=bot.knobs).to_dict()
    assert d["inference"] == "policy" and d["effective_samples"] > 0
