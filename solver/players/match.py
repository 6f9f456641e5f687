"""Bots against bots in duplicate format (used by `tacocat arena` and
`results/strength.py`).

Every deal is played twice with the same shuffle and the seats swapped, so
the luck of the cards cancels: what is left is the difference in play.

- mode "play": the play phase alone.  The deal gives each player 8 cards
  (the rest is the draw pile, no card face up) and player 0 attacks first;
  one round, scored +1 / 0 / -1 by its showdown (R17).  Search bots use
  round utilities here.
- mode "game": whole games from `GameState.new(rules, seed=deal seed)`
  (the standard ruleset unless `rules` is given), scored +1 / -1 by the
  game's winner (R19) and 0 for a drawn game (`max_deals` deals without a
  winner, RULES §8).

`score` is bot A's mean score in [-1, 1] over all games (0 = equal).  The
unit of independence is the deal: `ci95` is [lo, hi], the mean of the
per-deal duplicate scores ± 1.96 standard errors, clipped to [-1, 1].
`points` is the same on the 0..1 scale (win 1, draw 1/2, loss 0).

Beside the score: the Elo difference with its 95% interval, the normalized
Elo and the deals by pair score (the pentanomial; in game mode its draw-only
cells stay empty unless a game was drawn), and optionally an SPRT that stops the match once decided
(`tacocat.players.stats`).

`luck_adjusted`: the same score with the luck of the cards taken out of
each game (`tacocat.players.luck`: every deal and replacement draw valued
by a fixed reference, a correction of mean 0 whatever the bots, so the
adjusted score estimates the same thing as the raw one with less noise in
mode game).  A deal's adjusted score is the mean of A's two results less
their corrections; `ci95` is its mean ± 1.96 standard errors, and
`variance_ratio` the raw per-deal variance over the adjusted one (how many
times fewer deals the adjusted score needs for the same interval).  In mode
game the SPRT tests the adjusted scores (`stats.SPRT.llr_scores`, normal
approximation); in mode play the deal, the only chance event, is the same
in both seatings, so adjusted equals raw (variance ratio 1.0) and the SPRT
stays pentanomial.

Seeding: deal d uses the shuffle seed "{seed}/{d}" and bot RNGs derived from
it, and results are put back in deal order, so a match gives the same
numbers whatever the backend (`tacocat.players.cluster`: this process, local
processes, Ray), the number of workers and the batch size."""

from __future__ import annotations

import contextlib
import math
import random
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, Callable, Mapping, Sequence

from tacocat.errors import TacocatError
from tacocat.players import stats
from tacocat.players.bots import BOTS, choose, make_bot, play_game, searches
from tacocat.players.cluster import Cluster, RunStats, Stopped, run_tasks
from tacocat.players.luck import game_correction
from tacocat.players.stats import SPRT
from tacocat.rules.game import GameState
from tacocat.rules.ruleset import STANDARD, Ruleset
from tacocat.search.options import parse_options


class Mode(StrEnum):
    """A match's deals: `play`, the play phase of 8-card hands dealt from the
    standard deck; `game`, whole games under a ruleset."""

    PLAY = "play"
    GAME = "game"


MODES = tuple(m.value for m in Mode)
PLAY_HAND = 8
PROGRESS_EVERY = 0.2
"""Seconds between two progress reports of `run_match`."""


@dataclass
class MatchResult:
    a: str
    b: str
    mode: str
    deals: int
    """Deals played (fewer than asked when the SPRT decided or the run was stopped)."""
    seed: int
    score: float
    """A's mean score in [-1, 1] (0 = equal)."""
    ci95: list[float]
    """[lo, hi]: 95% confidence interval of `score` over deals."""
    wins: int
    """Games A won (each deal is two games)."""
    draws: int
    losses: int
    budget: dict = field(default_factory=dict)
    seconds: float = 0.0
    deal_scores: list[float] = field(default_factory=list)
    """Per deal, A's mean score over the two seatings (in deal order)."""
    elo: float | None = None
    """Logistic Elo difference of A over B (`tacocat.players.stats`); None if unbounded."""
    elo_ci95: list = field(default_factory=lambda: [None, None])
    nelo: float | None = None
    """Normalized Elo (the SPRT's scale)."""
    pairs: list[int] = field(default_factory=list)
    """Deals by pair score, the pentanomial `stats.PAIR_VALUES` (in game mode the
    draw-only cells count deals with one drawn game, RULES §8)."""
    sprt: dict | None = None
    """The SPRT's bounds, its log-likelihood ratio and `verdict` (H0, H1 or None)."""
    stopped: str | None = None
    """Why fewer deals than asked: "sprt" (decided) or "interrupted"."""
    deals_asked: int = 0
    retried: int = 0
    """Batches run again after a worker died (each deal still counts once)."""
    outcomes: dict = field(default_factory=dict)
    """Deal index -> (A's result as player 0, A's result as player 1)."""
    think: dict = field(default_factory=dict)
    """Each side's real think time ("a", "b"): `ThinkTimer.summary` over the
    deals played in this run (a resumed run's earlier deals were timed there)."""
    luck_adjusted: dict = field(default_factory=dict)
    """The luck-adjusted score: "score", "ci95", "variance_ratio" (raw over
    adjusted per-deal variance; None when undefined), "elo", "elo_ci95",
    "nelo" (the normalized Elo the SPRT of mode game tests), and
    "deals_without_luck" (deals of a resumed run saved without their luck:
    counted with correction 0, which keeps the score unbiased)."""
    luck: dict = field(default_factory=dict)
    """Deal index -> A's luck correction of (its game as player 0, as player 1)."""

    @property
    def half_width(self) -> float:
        return (self.ci95[1] - self.ci95[0]) / 2

    @property
    def points(self) -> float:
        return (self.score + 1) / 2

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("deal_scores")
        d.pop("outcomes")
        d.pop("luck")
        d["games"] = 2 * self.deals
        d["points"] = self.points
        d["points_ci95"] = [(self.ci95[0] + 1) / 2, (self.ci95[1] + 1) / 2]
        return d


# ------------------------------------------------------------------ games


def _play_state(deal_seed: str) -> GameState:
    """A play-phase state: 8 cards each, player 0 attacks, nothing seen."""
    rng = random.Random(f"play/{deal_seed}")
    deck = list(STANDARD.deck_cards())
    rng.shuffle(deck)
    return GameState.at_play_phase(
        [deck[:PLAY_HAND], deck[PLAY_HAND : 2 * PLAY_HAND]], attacker=0, draw_pile=deck[2 * PLAY_HAND :]
    )


def play_round(bots, deal_seed: str) -> int:
    """Player 0's result (+1 / 0 / -1) of the play phase of one deal."""
    state = _play_state(deal_seed)
    rngs = [random.Random(f"{deal_seed}/bot{p}") for p in (0, 1)]
    for _ in range(100):
        if state.rounds:
            w = state.rounds[0]["winner"]
            return 0 if w is None else (1 if w == 0 else -1)
        for player in state.acting_players():
            state.apply(player, choose(bots[player], state, player, rngs[player]))
    raise TacocatError(f"play phase of deal {deal_seed} did not end")


def play_whole_game(bots, deal_seed: str, rules: Ruleset | None = None) -> int:
    """Player 0's result of a whole game: +1 won, -1 lost, 0 drawn (the
    ruleset's `max_deals` deals without a winner, RULES §8)."""
    return _result(_whole_game(bots, deal_seed, rules))


def play_whole_game_with_luck(bots, deal_seed: str, rules: Ruleset | None = None) -> tuple[int, float]:
    """Player 0's result of a whole game (as `play_whole_game`) and its luck
    correction (`tacocat.players.luck.game_correction`): the luck-adjusted
    result is the result less the correction.  Apart from `play_whole_game`,
    whose plain result other scripts and tests read, so that they pay no replay."""
    state = _whole_game(bots, deal_seed, rules)
    return _result(state), game_correction(state)


def _whole_game(bots, deal_seed: str, rules: Ruleset | None) -> GameState:
    seed = int(random.Random(f"game/{deal_seed}").getrandbits(48))
    return play_game(bots, seed, rules)


def _result(state: GameState) -> int:
    if state.winner is None:
        return 0
    return 1 if state.winner == 0 else -1


def parse_bot(spec: str) -> tuple[str, dict]:
    """A bot name, optionally with its own budget: "ismcts@exact_cards=3,c_uct=1.5"
    (options of `tacocat.search.options.OPTIONS`, each read and checked by
    its declaration: a whole number stays an int, `clock=cpu` a string)."""
    name, _, rest = spec.partition("@")
    if name not in BOTS:
        raise TacocatError(f"unknown bot {name!r}; expected one of {', '.join(sorted(BOTS))}")
    return name, parse_options(rest, f"bot spec {spec!r}")


def _bot_budget(spec: str, budget: dict, mode: str) -> tuple[str, dict]:
    """(bot name, its budget) of `spec` in a match: the match's budget, the
    spec's own keys over it; a play-phase match scores rounds."""
    name, extra = parse_bot(spec)
    kw = dict(budget)
    if mode == "play":
        kw.setdefault("utilities", "round")
    kw.update(extra)
    return name, kw


def _make(spec: str, budget: dict, mode: str):
    name, kw = _bot_budget(spec, budget, mode)
    return make_bot(name, **kw)


def _time_budget(spec: str, budget: dict, mode: str) -> dict:
    """`{"time_ms", "clock"}` of a searching bot's time budget in a match
    (what its think time is read against), else {}."""
    name, kw = _bot_budget(spec, budget, mode)
    if kw.get("time_ms") is None or not searches(name):
        return {}
    return {"time_ms": kw["time_ms"], "clock": kw.get("clock", "wall")}


class ThinkTimer:
    """A bot with its think time counted on both clocks: the searching
    thread's CPU time and the wall time of every decision it searched (a
    forced move a search bot answers without searching, `last_forced`, is
    counted apart).  A match reports both for each side, so that a bot that
    does not spend its time budget (fixed counts) or overruns it is seen."""

    def __init__(self, bot) -> None:
        self.bot = bot
        self.reset()

    def __getattr__(self, name: str):
        return getattr(self.bot, name)  # name, needs_state, ...: the bot's own

    def reset(self) -> None:
        self.searched, self.forced, self.cpu_s, self.wall_s = 0, 0, 0.0, 0.0

    def tally(self) -> list:
        """[decisions searched, forced moves, CPU seconds, wall seconds] since `reset`."""
        return [self.searched, self.forced, self.cpu_s, self.wall_s]

    def _timed(self, choose, *args):
        c, w = time.thread_time(), time.perf_counter()
        action = choose(*args)
        if getattr(self.bot, "last_forced", False):
            self.forced += 1
        else:
            self.searched += 1
            self.cpu_s += time.thread_time() - c
            self.wall_s += time.perf_counter() - w
        return action

    def choose(self, view, rng, *budget):
        return self._timed(self.bot.choose, view, rng, *budget)

    def choose_state(self, state, player, rng, *budget):
        return self._timed(self.bot.choose_state, state, player, rng, *budget)

    @staticmethod
    def summary(tallies) -> dict:
        """Per-decision means of summed `tally` lists: decisions searched,
        forced moves, mean CPU and wall milliseconds a searched decision."""
        n, f, cpu, wall = (sum(t[i] for t in tallies) for i in range(4))
        return {
            "decisions": n,
            "forced": f,
            "cpu_ms": round(1000 * cpu / n, 3) if n else None,
            "wall_ms": round(1000 * wall / n, 3) if n else None,
        }


_BOT_CACHE: dict = {}


def _bots(a: str, b: str, budget: dict, mode: str):
    key = (a, b, tuple(sorted(budget.items())), mode)
    if key not in _BOT_CACHE:
        _BOT_CACHE.clear()
        _BOT_CACHE[key] = (ThinkTimer(_make(a, budget, mode)), ThinkTimer(_make(b, budget, mode)))
    return _BOT_CACHE[key]


def _deal(args) -> tuple[int, int, int, dict]:
    """(deal index, A's result as player 0, A's result as player 1, extra):
    `extra["think"]` holds each side's `ThinkTimer.tally` over the deal,
    `extra["luck"]` A's luck correction of each of the two games (A's
    perspective, `tacocat.players.luck`; (0.0, 0.0) in mode play).
    `args`: (a, b, deal index, seed, mode, budget[, rules]); the ruleset is
    optional so that six-item jobs (results/scale.py) still run."""
    a, b, d, seed, mode, budget, *rest = args
    rules = rest[0] if rest else None
    bot_a, bot_b = _bots(a, b, budget, mode)
    bot_a.reset()
    bot_b.reset()
    deal_seed = f"{seed}/{d}"
    if mode == "play":
        first = play_round((bot_a, bot_b), deal_seed)
        second = -play_round((bot_b, bot_a), deal_seed)
        luck = (0.0, 0.0)  # the one chance event, the deal, is the same in both seatings: it cancels
    else:
        first, luck_first = play_whole_game_with_luck((bot_a, bot_b), deal_seed, rules)
        second, luck_second = play_whole_game_with_luck((bot_b, bot_a), deal_seed, rules)
        # A is player 1 of the second game: its result and its luck are player 0's negated
        second, luck = -second, (luck_first, -luck_second)
    return d, first, second, {"think": {"a": bot_a.tally(), "b": bot_b.tally()}, "luck": luck}


SPRT_EVERY_DEAL = 200


def sprt_due(n: int) -> bool:
    """Is the SPRT tested after deal count n?  After every deal up to
    `SPRT_EVERY_DEAL` deals, then every n // SPRT_EVERY_DEAL deals (a stop
    at most 0.5% late, like fishtest testing per batch), so that one driver
    keeps up with many workers: fewer than 200 (3 + ln(n / 200)) tests in all.
    A function of n alone: the stopping point stays the same on every backend."""
    if n < 2:
        return False
    return n <= SPRT_EVERY_DEAL or n % (n // SPRT_EVERY_DEAL) == 0


def summarize(
    a: str,
    b: str,
    mode: str,
    seed: int,
    outcomes: Mapping[int, tuple[int, int]],
    *,
    budget: dict | None = None,
    sprt: SPRT | None = None,
    luck: Mapping[int, Sequence[float]] | None = None,
) -> MatchResult:
    """The statistics of the finished deals `outcomes` (deal index -> the two
    results), in deal order.  `luck`: deal index -> A's luck correction of
    the two games (mode game; a deal without one counts with correction 0)."""
    order = sorted(outcomes)
    games = [r for d in order for r in outcomes[d]]
    per_deal = [(outcomes[d][0] + outcomes[d][1]) / 2 for d in order]
    n = len(per_deal)
    mean, half = _mean_and_half(per_deal)
    pairs = stats.pair_counts(per_deal, mode)
    e, e_ci = stats.elo_interval(pairs, mode)
    ci95 = [max(-1.0, mean - half), min(1.0, mean + half)]
    luck = _luck_of(luck, order, mode)
    if mode == Mode.GAME:
        adjusted = [adjusted_deal_score(outcomes[d], luck.get(d)) for d in order]
        luck_adjusted = _luck_adjusted(per_deal, adjusted, n - len(luck))
    else:  # the deal is the same in both seatings: its luck cancels within the deal
        adjusted = per_deal
        luck_adjusted = {"score": mean, "ci95": ci95, "variance_ratio": 1.0, "elo": e, "elo_ci95": e_ci}
        luck_adjusted.update(nelo=stats.nelo(pairs, mode), deals_without_luck=0)
    wins, draws, losses = _results(games)
    return MatchResult(
        a=a,
        b=b,
        mode=mode,
        deals=n,
        seed=seed,
        score=mean,
        ci95=ci95,
        wins=wins,
        draws=draws,
        losses=losses,
        budget=dict(budget or {}),
        deal_scores=per_deal,
        elo=e,
        elo_ci95=e_ci,
        nelo=stats.nelo(pairs, mode),
        pairs=pairs,
        sprt=_sprt_test(sprt, mode, adjusted, pairs),
        outcomes={d: tuple(outcomes[d]) for d in order},
        luck_adjusted=luck_adjusted,
        luck={d: tuple(luck[d]) for d in luck},
    )


def _mean_and_half(scores: Sequence[float]) -> tuple[float, float]:
    """The mean deal score and the half-width of its 95% interval (2.0,
    the whole range, below two deals)."""
    n = len(scores)
    mean = sum(scores) / n if n else 0.0
    if n > 1:
        var = sum((s - mean) ** 2 for s in scores) / (n - 1)
        return mean, 1.96 * math.sqrt(var / n)
    return mean, 2.0


def _luck_of(luck: Mapping[int, Sequence[float]] | None, order: Sequence[int], mode: str) -> dict:
    """The luck corrections of the finished deals (mode game only)."""
    return {d: luck[d] for d in order if d in luck} if luck and mode == Mode.GAME else {}


def _results(games: Sequence[int]) -> tuple[int, int, int]:
    """A's wins, draws and losses over the games."""
    return sum(1 for g in games if g > 0), sum(1 for g in games if g == 0), sum(1 for g in games if g < 0)


def _sprt_test(sprt: SPRT | None, mode: str, adjusted: Sequence[float], pairs: list[int]) -> dict | None:
    """`MatchResult.sprt`: the SPRT over the luck-adjusted scores (mode
    game) or the pentanomial pair counts (mode play)."""
    if sprt is None:
        return None
    if mode == Mode.GAME:
        llr = sprt.llr_scores([stats.pair_score(x) for x in adjusted])
    else:
        llr = sprt.llr(pairs, mode)
    return dict(sprt.to_dict(), llr=llr, verdict=sprt.verdict(llr), scores=SPRT_SCORES[mode])


SPRT_SCORES = {"game": "luck-adjusted (normal approximation)", "play": "pentanomial"}
"""What the SPRT of each mode tests (`MatchResult.sprt["scores"]`)."""


def adjusted_deal_score(results: Sequence[int], luck: Sequence[float] | None) -> float:
    """A's luck-adjusted score of a deal: the mean of its two results less
    their luck corrections (none known: the raw score, correction 0)."""
    if luck is None:
        return (results[0] + results[1]) / 2
    return (results[0] - luck[0] + results[1] - luck[1]) / 2


def _luck_adjusted(raw: Sequence[float], adjusted: Sequence[float], without: int) -> dict:
    """`MatchResult.luck_adjusted` of the per-deal raw and adjusted scores."""
    n = len(adjusted)
    mean = sum(adjusted) / n if n else 0.0
    ratio = None
    if n > 1:
        var = sum((s - mean) ** 2 for s in adjusted) / (n - 1)
        raw_mean = sum(raw) / n
        raw_var = sum((s - raw_mean) ** 2 for s in raw) / (n - 1)
        half = 1.96 * math.sqrt(var / n)
        ratio = raw_var / var if var > 0 else (1.0 if raw_var == 0 else None)
    else:
        half = 2.0
    pair_scores = [stats.pair_score(s) for s in adjusted]
    e, e_ci = stats.elo_interval_scores(pair_scores)
    return {
        "score": mean,
        "ci95": [mean - half, mean + half],  # not clipped: an adjusted score may leave [-1, 1]
        "variance_ratio": ratio,
        "elo": e,
        "elo_ci95": e_ci,
        "nelo": stats.nelo_scores(pair_scores),
        "deals_without_luck": without,
    }


def run_match(
    a: str,
    b: str,
    *,
    deals: int,
    seed: int = 0,
    mode: str = "play",
    budget: dict | None = None,
    workers: int = 1,
    progress: Callable[..., None] | None = None,
    cluster: Cluster | None = None,
    sprt: SPRT | None = None,
    known: Mapping[int, Sequence[int]] | None = None,
    on_deal: Callable[[int, int, int, dict], None] | None = None,
    rules: Ruleset | None = None,
    known_luck: Mapping[int, Sequence[float]] | None = None,
) -> MatchResult:
    """Duplicate match of bot `a` against bot `b` (see the module docstring).

    `budget` is passed to both bots (`tacocat.players.bots.BUDGET_KEYS`); a bot
    named "name@key=value,..." adds its own keys (`parse_bot`).  Deals run on
    `cluster` (`tacocat.players.cluster.Cluster`; default: `workers` local
    processes, this process for 1); the numbers do not depend on it.

    `sprt`: stop at the first deal count k (tested as `sprt_due` says) at
    which the SPRT over deals 0..k-1 is decided (deal order, not arrival
    order, so the stopping point is the same on every backend); `deals` is
    then the most to play.
    `known`: deal index -> (first, second) results already played (a resumed
    run): those deals are not played again; `known_luck`: deal index -> A's
    luck corrections of those deals' two games (a known deal without them
    counts with correction 0, `MatchResult.luck_adjusted`).
    `on_deal(d, first, second, extra)` is called as each new deal finishes
    (`extra`: `_deal`'s dict, "luck" and "think"); `progress(done, total,
    summary)` after each, with the running score, interval, Elo and LLR in
    `summary`.
    `rules`: the ruleset of mode "game" (standard by default; the play
    phase of mode "play" is always dealt from the standard deck).
    Ctrl-C (or SIGTERM as `cluster.Stopped`) ends the match early: the
    result holds the finished deals and `stopped` is "interrupted" (or
    "terminated")."""
    _check_match(mode, deals, workers, rules)
    cluster = cluster or Cluster("local", workers)
    budget = dict(budget or {})
    _make(a, budget, mode), _make(b, budget, mode)  # validate names and budgets here, not in a worker
    t0 = time.perf_counter()
    outcomes = _known_outcomes(known, deals)
    done = _Deals(mode, sprt, outcomes, _known_luck(known_luck, outcomes))
    run = RunStats()
    done.advance()
    jobs = [(a, b, d, seed, mode, budget, rules) for d in range(deals) if d not in done.outcomes]
    stopped = None
    if done.stop_at is None and jobs:
        report = _Report(progress, a, b, mode, seed, sprt, deals)
        stopped = _play_deals(jobs, cluster, run, done, on_deal, report)
    if done.stop_at is not None:
        stopped = done.cut(done.stop_at, deals)
    result = summarize(a, b, mode, seed, done.outcomes, budget=budget, sprt=sprt, luck=done.luck)
    result.seconds = time.perf_counter() - t0
    result.think = {side: _think(result, done.extras, side, spec, budget, mode) for side, spec in (("a", a), ("b", b))}
    result.deals_asked = deals
    result.retried = run.retried
    result.stopped = stopped if result.deals < deals else None
    return result


def _check_match(mode: str, deals: int, workers: int, rules: Ruleset | None) -> None:
    if mode not in MODES:
        raise TacocatError(f"mode {mode!r} unknown; expected play or game")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise TacocatError(f"deals must be a positive integer, got {deals!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise TacocatError(f"workers must be a positive integer, got {workers!r}")
    if rules is not None and mode != Mode.GAME:
        raise TacocatError("a ruleset applies to mode game only; mode play deals 8 cards from the standard deck")


def _known_outcomes(known: Mapping[int, Sequence[int]] | None, deals: int) -> dict[int, tuple[int, int]]:
    """The results of a resumed run's deals among the first `deals`."""
    outcomes: dict[int, tuple[int, int]] = {}
    for d, pair in (known or {}).items():
        d = int(d)
        if 0 <= d < deals:
            outcomes[d] = (int(pair[0]), int(pair[1]))
    return outcomes


def _known_luck(
    known_luck: Mapping[int, Sequence[float]] | None, outcomes: Mapping[int, tuple[int, int]]
) -> dict[int, tuple[float, float]]:
    """The luck corrections of a resumed run's known deals."""
    luck: dict[int, tuple[float, float]] = {}
    for d, corrections in (known_luck or {}).items():
        if int(d) in outcomes:
            luck[int(d)] = (float(corrections[0]), float(corrections[1]))
    return luck


@dataclass
class _Deals:
    """The deals finished so far, and the finished prefix (deals 0..prefix-1)
    an SPRT reads: deal order, not arrival order, so the stopping point is
    the same on every backend."""

    mode: str
    sprt: SPRT | None
    outcomes: dict[int, tuple[int, int]]
    luck: dict[int, tuple[float, float]]
    extras: dict[int, dict] = field(default_factory=dict)
    """Deal index -> `_deal`'s extra, for the deals played in this run."""
    prefix: int = 0
    stop_at: int | None = None
    """The first deal count at which the SPRT decided."""
    prefix_pairs: list[int] = field(default_factory=list)
    prefix_moments: list[float] = field(default_factory=lambda: [0.0, 0.0])
    """Mode game: sum and sum of squares of the prefix's adjusted pair scores."""

    def __post_init__(self) -> None:
        self.prefix_pairs = [0] * len(stats.PAIR_VALUES[self.mode])

    def cut(self, stop_at: int, deals: int) -> str | None:
        """Keep the deals the SPRT decided on; "sprt" when it ended the match short."""
        self.outcomes = {d: self.outcomes[d] for d in range(stop_at)}
        return "sprt" if stop_at < deals else None

    def add(self, d: int, x: int, y: int, extra: dict) -> None:
        self.outcomes[d] = (x, y)
        self.extras[d] = extra
        self.luck[d] = extra["luck"]

    def advance(self) -> None:
        """Move the finished prefix on; with an SPRT, stop at its first decision."""
        while self.stop_at is None and self.prefix in self.outcomes:
            x, y = self.outcomes[self.prefix]
            self.prefix += 1
            if self.sprt is None:
                continue
            decided = (
                self._game_decided(self.sprt, x, y) if self.mode == Mode.GAME else self._play_decided(self.sprt, x, y)
            )
            if decided:
                self.stop_at = self.prefix

    def _game_decided(self, sprt: SPRT, x: int, y: int) -> bool:
        # the luck-adjusted scores, as `summarize` tests them
        p = stats.pair_score(adjusted_deal_score((x, y), self.luck.get(self.prefix - 1)))
        self.prefix_moments[0] += p
        self.prefix_moments[1] += p * p
        return sprt_due(self.prefix) and sprt.verdict(sprt.llr_moments(self.prefix, *self.prefix_moments)) is not None

    def _play_decided(self, sprt: SPRT, x: int, y: int) -> bool:
        for i, c in enumerate(stats.pair_counts([(x + y) / 2], self.mode)):
            self.prefix_pairs[i] += c
        return sprt_due(self.prefix) and sprt.verdict(sprt.llr(self.prefix_pairs, self.mode)) is not None


@dataclass
class _Report:
    """`progress(done, total, summary)` after a deal, at most every
    `PROGRESS_EVERY` seconds: the summary reads every deal, so that a long
    match does not spend quadratic time on its progress bar."""

    progress: Callable[..., None] | None
    a: str
    b: str
    mode: str
    seed: int
    sprt: SPRT | None
    deals: int
    last: float = 0.0

    def __call__(self, done: _Deals, final: bool) -> None:
        if self.progress is None or not (final or time.perf_counter() - self.last >= PROGRESS_EVERY):
            return
        self.last = time.perf_counter()
        outcomes = done.outcomes
        live = (
            summarize(self.a, self.b, self.mode, self.seed, outcomes, sprt=self.sprt, luck=done.luck)
            if outcomes
            else None
        )
        self.progress(len(outcomes), self.deals, live)


def _play_deals(
    jobs: list[tuple],
    cluster: Cluster,
    run: RunStats,
    done: _Deals,
    on_deal: Callable[[int, int, int, dict], None] | None,
    report: _Report,
) -> str | None:
    """Play the deals on `cluster` as they finish, until all are or the
    SPRT decides; "interrupted" or "terminated" when Ctrl-C or SIGTERM
    ended the match early."""
    try:
        with contextlib.closing(run_tasks(_deal, jobs, cluster, run)) as results:
            for _, (d, x, y, extra) in results:
                done.add(d, x, y, extra)
                if on_deal is not None:
                    on_deal(d, x, y, extra)
                done.advance()
                report(done, final=done.stop_at is not None or len(done.outcomes) == report.deals)
                if done.stop_at is not None:
                    break
    except KeyboardInterrupt as exc:
        return "terminated" if isinstance(exc, Stopped) else "interrupted"
    return None


def _think(result: MatchResult, extras: Mapping[int, dict], side: str, spec: str, budget: dict, mode: str) -> dict:
    """One side's thinking times over the deals played in this run, with its time budget."""
    return ThinkTimer.summary([extras[d]["think"][side] for d in result.outcomes if d in extras]) | _time_budget(
        spec, budget or {}, mode
    )


def standings(results: Sequence[Mapping[str, Any]], bots: Sequence[str]) -> dict[str, float]:
    """Each bot's mean score against the others over the pairings in
    `results` (`MatchResult.to_dict()` rows: B's score is minus A's),
    best first; NaN for a bot with no finished pairing."""
    mean = {}
    for bot in bots:
        scores = [r["score"] if r["a"] == bot else -r["score"] for r in results if bot in (r["a"], r["b"])]
        mean[bot] = sum(scores) / len(scores) if scores else float("nan")
    return dict(sorted(mean.items(), key=lambda kv: -kv[1]))
