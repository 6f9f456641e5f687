"""The luck correction of whole games (`tacocat.players.luck`) and the
luck-adjusted duplicate score built on it (`tacocat.players.match`,
`tacocat arena`): zero mean by construction, so the adjusted score agrees
with the raw one, and the SPRT of mode game tests it."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest
from cli_output import output_of
from helpers import deep
from helpers import run_cli as run

from tacocat.errors import TacocatError
from tacocat.players import stats
from tacocat.players.bots import make_bot, play_game
from tacocat.players.luck import (
    LuckWeights,
    deal_term,
    draw_term,
    game_correction,
    hand_strength,
    load_weights,
    luck_terms,
    round_scale,
)
from tacocat.players.match import _deal, run_match
from tacocat.players.stats import SPRT
from tacocat.rules.board import Board
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD, Ruleset

FAST_PIMC = "pimc_classic@samples=4,replace_samples=16,duel_samples=4,candidates=4"
CHEAP_PIMC = "pimc_classic@samples=2,replace_samples=8,duel_samples=2,candidates=3"
"""The slow pairing's budget: FAST_PIMC against the heuristic costs about
0.55 s a deal here, so 2,000 deals would take 18 minutes of one core; this
one about 0.19 s (2,000 deals in about 6 minutes of one core)."""
BOARDS = [Board(), Board(cat=2, covered=frozenset({3})), Board(cat=5, covered=frozenset({3, 4})), Board(cat=0)]


def _mean_se(xs) -> tuple[float, float]:
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, math.sqrt(var / n)


def _games(pairs, n, seed0=0):
    bots = {name: make_bot(name) for name in ("random", "heuristic")}
    return [play_game((bots[a], bots[b]), seed0 + i) for i, (a, b) in zip(range(n), itertools.cycle(pairs))]


# ------------------------------------------------------------ the reference


def test_the_shipped_weights_cover_every_standard_hand_size():
    w = load_weights()
    assert set(STANDARD.board) <= set(w.by_size) and 0 < w.beta < 2
    assert {"bot", "games", "seed", "commit", "fit"} <= set(w.about)
    # a board dealing another size takes the nearest fitted row
    assert w.of(5) == w.by_size[4] and w.of(12) == w.by_size[max(w.by_size)]


def test_the_deal_term_is_exactly_antisymmetric():
    w = load_weights()
    rng = random.Random(3)
    for _ in range(300):
        board = rng.choice(BOARDS)
        deck = list(STANDARD.deck_cards())
        rng.shuffle(deck)
        n = board.hand_size(STANDARD)
        h0, h1 = sorted(deck[:n]), sorted(deck[n : 2 * n])
        assert deal_term(board, (h1, h0), STANDARD, w) == -deal_term(board, (h0, h1), STANDARD, w)
        assert deal_term(board, (h0, h0), STANDARD, w) == 0
    # a constant added to every weight of a size changes nothing: both hands hold N cards
    row = w.of(7)
    h0, h1 = [1, 2, 2, 5, 9, 11, 12], [3, 3, 4, 6, 7, 8, 10]
    assert hand_strength(h0, h1, [x + 0.5 for x in row]) == pytest.approx(hand_strength(h0, h1, row), abs=1e-12)


def test_a_draw_has_mean_zero_over_every_possible_draw():
    w = load_weights()
    pile = [1, 2, 2, 5, 7, 7, 9, 12]
    for board, player, k in itertools.product(BOARDS[:2], (0, 1), (1, 2, 3)):
        # every order of the pile is equally likely, so every k-subset of its places is the draw
        terms = [
            draw_term(board, player, [pile[i] for i in places], pile, STANDARD, w)
            for places in itertools.combinations(range(len(pile)), k)
        ]
        assert abs(sum(terms) / len(terms)) < 1e-12
        assert max(abs(t) for t in terms) > 0.001  # not zero for a trivial reason
    assert draw_term(Board(), 0, [], pile, STANDARD, w) == 0.0


def test_the_scale_is_half_a_rounds_swing_in_game_equity():
    for board in BOARDS:
        assert 0 < round_scale(board, STANDARD) < 1
    # a round that ends the game whoever wins it swings the whole game
    assert round_scale(Board(cat=3, covered=frozenset({0, 1, 2, 4, 5, 6})), STANDARD) == 1.0


def test_bad_weights_are_one_line_errors(tmp_path):
    with pytest.raises(TacocatError, match="12 numbers"):
        LuckWeights({7: (1.0, 2.0)})
    bad = tmp_path / "w.json"
    bad.write_text('{"weights": 3}')
    with pytest.raises(TacocatError, match="luck weights"):
        load_weights(str(bad))
    with pytest.raises(TacocatError, match="cannot be read"):
        load_weights(str(tmp_path / "missing.json"))


# ------------------------------------------------------------ the replay


def test_the_replay_finds_every_chance_event_of_the_game():
    bots = (make_bot("heuristic"), make_bot("random"))
    for seed in range(6):
        state = play_game(bots, seed)
        terms = luck_terms(state)  # raises when the replay does not reach the played game
        deals = [t.deal for t in terms if t.kind == "deal"]
        assert deals == list(range(1, state.deals + 1)) and len(state.rounds) == state.deals
        replaces = [a for a in state.actions if a["kind"] == "replace" and a["cards"]]
        assert len([t for t in terms if t.kind == "draw"]) == len(replaces)
        assert game_correction(state) == pytest.approx(load_weights().beta * sum(t.value for t in terms))
    # a two-arrow round (R8): both draw, player 0 first from the end of the pile
    state = GameState.new(STANDARD, 5)
    pile = list(state.draw_pile)
    state.apply(1, state.legal_actions(1)[-1])  # player 1 submits first: the order of the draws stays
    state.apply(0, state.legal_actions(0)[-1])
    k0, k1 = (len(a["cards"]) for a in sorted(state.actions, key=lambda a: a["player"]))
    draws = [t for t in luck_terms(state) if t.kind == "draw"]
    w = load_weights()
    expect0 = draw_term(Board(), 0, pile[len(pile) - k0 :], pile, STANDARD, w)
    rest = pile[: len(pile) - k0]
    expect1 = draw_term(Board(), 1, rest[len(rest) - k1 :], rest, STANDARD, w)
    assert [(t.player, t.value) for t in draws] == [(0, expect0), (1, expect1)]


def test_a_state_not_played_from_its_seed_is_refused():
    state = GameState.at_play_phase([[1, 5, 9], [2, 6, 10]], attacker=0)
    with pytest.raises(TacocatError, match="does not give the same game"):
        luck_terms(state)


def test_another_ruleset_is_corrected_with_its_own_values():
    rules = Ruleset(board=(3, 5, 8, 6, 8, 5, 3), tie="arrow")
    state = play_game((make_bot("heuristic"), make_bot("heuristic")), 2, rules)
    terms = luck_terms(state)
    assert len([t for t in terms if t.kind == "deal"]) == state.deals


# ------------------------------------------------------------ zero mean


def test_the_correction_has_mean_zero_over_deals_and_draws():
    # the events one at a time, many of them: each deal of a seed, and a
    # draw after a discard chosen without looking at the pile
    w = load_weights()
    rng = random.Random(11)
    deals, draws = [], []
    for seed in range(1500):
        board = BOARDS[seed % len(BOARDS)]
        state = GameState.new(STANDARD, seed, board)
        deals.append(deal_term(board, state.hands, STANDARD, w))
        k = rng.randint(1, board.hand_size(STANDARD))
        pile = state.draw_pile
        draws.append(draw_term(board, seed % 2, pile[len(pile) - k :], pile, STANDARD, w))
    for terms in (deals, draws):
        mean, se = _mean_se(terms)
        assert abs(mean) < 3 * se and se > 0


def test_the_correction_of_whole_games_has_mean_zero_small():
    corrections = [game_correction(s) for s in _games([("heuristic", "heuristic")], 25, seed0=100)]
    mean, se = _mean_se(corrections)
    assert abs(mean) < 3 * se


@pytest.mark.slow
def test_the_correction_of_whole_games_has_mean_zero():
    pairs = [("heuristic", "heuristic"), ("heuristic", "random"), ("random", "heuristic"), ("random", "random")]
    corrections = [game_correction(s) for s in _games(pairs, deep(2000, 8000), seed0=10_000)]
    mean, se = _mean_se(corrections)
    assert abs(mean) < 3 * se, (mean, se)


# ------------------------------------------------------------ the match


def test_a_deal_carries_the_luck_of_both_games_from_as_side():
    d, first, second, extra = _deal(("heuristic", "heuristic", 0, 4, "game", {}, None))
    # the same bot in both seats plays the same game twice: A's luck as player 1 is minus its luck as player 0
    c0, c1 = extra["luck"]
    assert first == -second and c0 == -c1 and c0 != 0
    bots = (make_bot("heuristic"), make_bot("heuristic"))
    state = play_game(bots, int(random.Random("game/4/0").getrandbits(48)))
    assert c0 == game_correction(state)
    assert _deal(("heuristic", "random", 0, 4, "play", {}))[3]["luck"] == (0.0, 0.0)


def _agree(r) -> None:
    adj = r.luck_adjusted
    assert adj["ci95"][0] <= r.ci95[1] and r.ci95[0] <= adj["ci95"][1]  # the intervals overlap
    # the mean correction of a deal is 0 within its own error
    corrections = [(r.luck[d][0] + r.luck[d][1]) / 2 for d in sorted(r.luck)]
    mean, se = _mean_se(corrections)
    assert abs(mean) < 3 * se + 1e-12
    assert adj["score"] == pytest.approx(r.score - mean)


@pytest.mark.parametrize("a, b, deals", [("heuristic", "random", 12), (FAST_PIMC, "heuristic", 1)])
def test_adjusted_and_raw_scores_agree_small(a, b, deals):
    r = run_match(a, b, deals=deals, seed=7, mode="game")
    assert len(r.luck) == deals and r.luck_adjusted["deals_without_luck"] == 0
    if deals > 2:
        _agree(r)


@pytest.mark.slow
@pytest.mark.parametrize("a, b, deals", [("heuristic", "random", 2000), (CHEAP_PIMC, "heuristic", 2000)])
def test_adjusted_and_raw_scores_agree(a, b, deals):
    r = run_match(a, b, deals=deals, seed=8, mode="game")
    _agree(r)


def test_the_match_result_reports_the_adjusted_score():
    r = run_match("heuristic", "random", deals=8, seed=3, mode="game")
    d = r.to_dict()
    adj = d["luck_adjusted"]
    assert set(adj) == {"score", "ci95", "variance_ratio", "elo", "elo_ci95", "nelo", "deals_without_luck"}
    assert adj["ci95"][0] <= adj["score"] <= adj["ci95"][1] and adj["variance_ratio"] > 0
    scores = [(x - r.luck[k][0] + y - r.luck[k][1]) / 2 for k, (x, y) in sorted(r.outcomes.items())]
    assert adj["score"] == pytest.approx(sum(scores) / len(scores))
    assert "luck" not in d and json.dumps(d)
    # mode play: the deal cancels within the deal, the adjusted score is the raw one
    p = run_match("heuristic", "random", deals=8, seed=3, mode="play").luck_adjusted
    assert p["variance_ratio"] == 1.0 and p["deals_without_luck"] == 0


def test_a_resumed_match_carries_the_luck_and_an_old_one_counts_it_zero():
    full = run_match("heuristic", "random", deals=6, seed=2, mode="game")
    known = {d: full.outcomes[d] for d in range(3)}
    again = run_match(
        "heuristic", "random", deals=6, seed=2, mode="game", known=known, known_luck={d: full.luck[d] for d in known}
    )
    assert again.luck_adjusted == full.luck_adjusted
    old = run_match("heuristic", "random", deals=6, seed=2, mode="game", known=full.outcomes)
    assert old.luck_adjusted["deals_without_luck"] == 6 and old.luck_adjusted["score"] == full.score


def test_the_sprt_of_mode_game_tests_the_adjusted_scores():
    test = SPRT(elo0=0, elo1=50)
    r = run_match("heuristic", "random", deals=100, seed=5, mode="game", sprt=test)
    assert r.stopped == "sprt" and r.sprt["verdict"] == "H1" and r.deals < 20
    assert r.sprt["scores"].startswith("luck-adjusted")
    adjusted = [stats.pair_score((x - r.luck[d][0] + y - r.luck[d][1]) / 2) for d, (x, y) in sorted(r.outcomes.items())]
    assert r.sprt["llr"] == pytest.approx(test.llr_scores(adjusted)) and r.sprt["llr"] >= test.bounds[1]
    assert r.deals > 2 and test.verdict(test.llr_scores(adjusted[:-1])) is None  # it stopped at the first decision


@pytest.mark.parametrize(
    "counts", [[40, 210, 900, 260, 50], [10, 50, 200, 60, 12], [5, 30, 100, 20, 3], [12, 80, 300, 75, 15]]
)
def test_the_normal_llr_is_close_to_the_pentanomial_one_on_pentanomial_scores(counts):
    for test in (SPRT(), SPRT(elo0=-5, elo1=5), SPRT(elo0=0, elo1=30)):
        scores = [v for v, c in zip(stats.PAIR_VALUES["play"], counts) for _ in range(c)]
        pent, normal = test.llr(counts, "play"), test.llr_scores(scores)
        assert normal == pytest.approx(pent, rel=0.03, abs=0.02)
        assert test.llr_moments(len(scores), sum(scores), sum(x * x for x in scores)) == normal


def test_the_normal_llr_stays_finite_on_equal_scores():
    test = SPRT()
    assert test.llr_scores([]) == 0.0
    assert test.verdict(test.llr_scores([1.0, 1.0])) is None  # two won deals decide nothing
    assert math.isfinite(test.llr_scores([0.5] * 30)) and test.llr_scores([0.5] * 30) < 0


# ------------------------------------------------------------ tacocat arena


def test_arena_reports_both_scores(tmp_path):
    out = tmp_path / "run.json"
    args = ["arena", "heuristic", "random", "--mode", "game", "--deals", "4", "--seed", "3"]
    rows = json.loads(output_of(run([*args, "--json", "--out", str(out)])))
    adj = rows[0]["luck_adjusted"]
    assert adj["ci95"][0] <= adj["score"] <= adj["ci95"][1] and "score" in rows[0] and "ci95" in rows[0]
    saved = json.loads(out.read_text())
    assert sorted(d for d, _, _ in saved["luck"]["heuristic vs random"]) == [0, 1, 2, 3]
    table = output_of(run(args))
    line = next(x for x in table.splitlines() if x.strip().startswith("luck-adjusted"))
    assert f"{adj['score']:+.3f}" in line and "variance ratio" in line
    # an --out file from before the luck was saved still resumes
    del saved["luck"]
    out.write_text(json.dumps(saved))
    old = json.loads(output_of(run([*args, "--json", "--out", str(out)])))
    assert old[0]["score"] == rows[0]["score"] and old[0]["luck_adjusted"]["deals_without_luck"] == 4
    assert "luck-adjusted" in output_of(run(["arena", "--help"])).lower()
