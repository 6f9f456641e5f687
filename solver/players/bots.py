"""Bots that play whole games.  A bot sees only its player's `View` (its
information set) and a seeded `random.Random`; `BOTS` maps names to
factories so front doors can choose by name."""

from __future__ import annotations

import collections
import random
import statistics
import time
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from tacocat.errors import TacocatError
from tacocat.rules.actions import Action
from tacocat.rules.cards import Hand
from tacocat.rules.events import PLAY_DECISIONS, Decision, Event, PlayEvent
from tacocat.rules.game import DUEL, REPLACE, GameState
from tacocat.rules.ruleset import STANDARD
from tacocat.rules.views import View
from tacocat.search.budget import MAX_SAMPLES, Budget, clock_named
from tacocat.search.options import Method, check_options
from tacocat.search.sampling import world_hands

if TYPE_CHECKING:  # pragma: no cover
    from tacocat.search.equilibrium import Endgame, EquilibriumResult, Move
    from tacocat.search.hint import HintResult


class Bot(Protocol):
    name: str

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        """The action to take at `view`'s decision.  `budget`: this call's
        (`SearchBot.call_budget`: its count and time replace the bot's own,
        its stop ends the search with the best answer so far); a bot that
        does not search ignores it."""
        ...


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        return rng.choice(view.legal_actions())


class HeuristicBot:
    """Replace nothing, duel and attack with the highest card, answer with
    the cheapest answer that beats, else the cheapest sacrifice."""

    name = "heuristic"

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        kind = view.decision
        if kind == REPLACE:
            return Action("replace", ())
        if kind == DUEL:
            return Action("duel", (max(view.hand),))
        legal = view.legal_actions()
        if kind == Decision.ATTACK:
            return Action(Decision.ATTACK, (max(view.hand),))
        beating = [a for a in legal if a.beats]
        pool = beating or legal
        return min(pool, key=lambda a: (sum(a.cards), a.cards))


@dataclass(frozen=True)
class BotBudget:
    """A bot's budget (`make_bot(name, **budget)`): what its searches may
    spend and how they search.  None leaves a key at the bot's default; a
    bot reads the keys that concern it and ignores the others, so one
    budget can serve every bot."""

    samples: int | None = None
    """PIMC: worlds a play decision samples (ISMCTS reads it as iterations)."""
    iterations: int | None = None
    """ISMCTS: iterations a decision runs (PIMC reads it as samples)."""
    time_ms: float | None = None
    """A decision's time, alone or beside a count, counted on `clock`."""
    clock: str = "wall"
    """What `time_ms` counts: "wall" (elapsed time) or "cpu" (the searching
    thread's CPU time: a match's default, so that a budget buys the same
    work whatever else the machine runs; `tacocat.search.budget.CPU`)."""
    replace_samples: int | None = None
    """Replacement: evaluations per decision (None: `REPLACE_EVALS`; with
    `time_ms`, except for pimc_classic, as many as the time allows)."""
    duel_samples: int | None = None
    """Duel: sampled deals per decision (None: `DUEL_DEALS`; with `time_ms`,
    except for pimc_classic, as many as the time allows)."""
    candidates: int | None = None
    """Replacement: discard sets compared."""
    seed: int = 0
    """Mixed with the RNG `play_game` hands over: a game is reproducible."""
    threads: int = 1
    """ISMCTS: root-parallel trees."""
    exact_cards: int | None = None
    """ISMCTS: rollouts switch to the exact solver at this many cards."""
    c_uct: float | None = None
    """ISMCTS: the UCB exploration constant."""
    utilities: str | tuple = "game"
    """What a result is worth: "game" (the game's equity) or "round"."""
    exact_budget: int | None = None
    """PIMC: the opponent's hands enumerated exactly up to this many."""
    rollout: str | None = None
    """ISMCTS: the rollout policy."""
    eq_cards: int | None = None
    """pimc_eq: the equilibrium at or below this many cards a hand."""
    inference: str | None = None
    """The model that weights the worlds (`tacocat.search.inference`)."""
    round_search: float | bool = False
    """1: replace and duel searched with the round's continuation."""
    duel: str = "matrix"
    """The duel's search: matrix, or bayes (a Bayesian game over both players' hands)."""
    replace: str = "static"
    """The replacement's search: static, or game (solved as a game with the opponent's reply in it)."""


BUDGET_KEYS = frozenset(f.name for f in fields(BotBudget))
"""Keys a bot budget may hold (the fields of `BotBudget`: the declared
options of `tacocat.search.options.OPTIONS`, a test holds them equal)."""
_KNOBS_AS_GIVEN = ("threads", "exact_cards", "c_uct", "rollout", "inference", "duel", "replace")
"""Budget keys a search bot hands to `Knobs` as they are (same name, no bot default)."""
REPLACE_EVALS = 240
DUEL_DEALS = 24
"""A search bot's replacement evaluations and duel deals per decision when
no count is given and no time (`SearchBot.decision_counts`)."""


def _check_search_bot(method: str, b: BotBudget) -> None:
    """A search bot's method and its round search's setting."""
    if method not in (Method.PIMC, Method.ISMCTS):
        raise TacocatError(f"search bot method {method!r} unknown; expected pimc or ismcts")
    if b.round_search not in (0, 1):
        raise TacocatError(f"search bot: round_search must be 0 (off) or 1 (on), got {b.round_search!r}")


def _play_count(method: str, b: BotBudget) -> int | None:
    """The play-phase count per decision: PIMC's worlds (`samples`, or its
    synonym `iterations`), ISMCTS's iterations (or `samples`); without a
    count or a time, 100 worlds or 20,000 iterations."""
    if method == Method.PIMC:
        count = b.samples if b.samples is not None else b.iterations
        default = 100
    else:
        count = b.iterations if b.iterations is not None else b.samples
        default = 20_000
    return default if count is None and b.time_ms is None else count


def given_or(value: int | None, default: int) -> int:
    return value if value is not None else default


def _listed_moves(view: View) -> list[Action] | None:
    """The legal moves, listed once for the search to take as they are;
    None for a replacement with a choice: two options at least (keep all,
    or discard one), and listing hundreds of discards costs ms."""
    if view.decision == REPLACE and view.replace_cap != 0:
        return None
    return view.legal_actions()


def played(result: HintResult, kind: str, rng: random.Random) -> Action:
    """The move a search's answer plays: the duel card drawn from its
    optimal mix with the seeded RNG (R9), a replacement from the
    replacement game's mix when it has one, else the best move."""
    if kind == DUEL:
        from tacocat.search.decisions import sample_mixed

        assert result.mixed is not None  # a duel always answers its mixed strategy
        return sample_mixed(result.mixed, rng)
    if kind == REPLACE and getattr(result.search, "discard_mix", None):
        from tacocat.search.replace_game import sample_discard

        return sample_discard(result.search, rng)  # the replacement game's mix, like the duel's
    return result.action


class SearchBot:
    """A bot that searches the hidden hands: play-phase decisions by PIMC
    (`method="pimc"`, exact when the opponent's hands are few) or by ISMCTS
    (`method="ismcts"`); replacement and duel by `tacocat.search.decisions` (the
    duel card is drawn from the optimal mixed strategy with the seeded RNG).

    Budget per decision: `samples` worlds (PIMC; `iterations` is a synonym)
    or `iterations` (ISMCTS), and/or `time_ms`; `replace_samples` and
    `duel_samples` for the other decisions.  `seed` is mixed with the RNG
    that `play_game` hands over, so a game is reproducible.

    Search choices (RULES section 5): `inference` (the model that weights
    the worlds, `tacocat.search.inference`) and `round_search` (1: replace
    and duel searched with the round's real continuation,
    `tacocat.search.decisions`); both off by default (results/strength_whole.md),
    and with both off `pimc` plays as `pimc_classic` (`tacocat.players.reference`)
    under sample budgets."""

    def __init__(self, method: str = "pimc", **budget) -> None:
        from tacocat.search.hint import Knobs
        from tacocat.search.pimc import PerfectSolver

        b = BotBudget(**budget)
        _check_search_bot(method, b)
        self.name = method
        self.method = method
        if b.inference is not None:
            from tacocat.search.inference import check_inference

            check_inference(b.inference)  # a bad model name is refused when the bot is made, in one line
        self.inference = b.inference
        self.budget = _play_count(method, b)
        self.time_ms = b.time_ms
        self.clock = clock_named(b.clock)
        self.replace_samples, self.duel_samples = self.decision_counts(b)
        self.candidates = given_or(b.candidates, 24)
        self.seed = int(b.seed)
        self.threads = b.threads
        self.exact_cards = b.exact_cards
        self.c_uct = b.c_uct
        self.utilities = b.utilities
        self.exact_budget = 300 if b.exact_budget is None else b.exact_budget
        self.rollout = b.rollout
        self.solver = PerfectSolver()
        # per decision kind, how far the last decisions ran past their search's
        # time (ms): what `choose` keeps back from the next search's budget
        self._overruns: dict[str, collections.deque[float]] = {}
        self.knobs = Knobs(
            duel_samples=self.duel_samples,
            duel_exact_budget=-1,
            replace_samples=self.replace_samples,
            candidates=self.candidates,
            equilibrium_cards=0,  # plain PIMC stays PIMC; EquilibriumBot adds it
            round_search=bool(b.round_search),
            **{key: getattr(b, key) for key in _KNOBS_AS_GIVEN},
        )

    def decision_counts(self, b: BotBudget) -> tuple[int, int]:
        """The replacement's evaluations and the duel's deals per decision:
        the budget's, else `REPLACE_EVALS` and `DUEL_DEALS`, or with a time
        budget as many as the time allows.  A time budget is spent where it
        buys strength (issue 24): 240 evaluations leave a replacement 0.062
        of a round short of its own search's best (2,000 evaluations:
        0.011), and 24 deals leave a duel 0.018 short
        (results/decision_noise.md), while either takes a few ms; spent,
        they gain +0.11 at 20 and 100 ms (strength_whole.md)."""
        to_the_clock = b.time_ms is not None
        return (
            given_or(b.replace_samples, MAX_SAMPLES if to_the_clock else REPLACE_EVALS),
            given_or(b.duel_samples, MAX_SAMPLES if to_the_clock else DUEL_DEALS),
        )

    def call_budget(self, budget: Budget | None) -> Budget:
        """This decision's budget: the call's count and its time (on its
        clock) where it gives them, else the bot's own; the call's stop and
        progress.  A server gives every call its time cap and its stop
        this way; a match gives none, and the bot spends what it was built with."""
        if budget is None:
            return Budget(samples=self.budget, time_ms=self.time_ms, clock=self.clock)
        own_time = budget.time_ms is None
        return budget.with_(
            samples=self.budget if budget.samples is None else budget.samples,
            time_ms=self.time_ms if own_time else budget.time_ms,
            clock=self.clock if own_time else budget.clock,
            start=None if own_time else budget.start,
        )

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        """The search `hint` runs for this budget (one dispatcher): PIMC
        (exact when the hands are few) or ISMCTS in the play phase, the
        duel card drawn from the optimal mix with the seeded RNG.
        `budget`: this call's (`call_budget`); stopped, the search's best
        so far is played."""
        call = self.call_budget(budget)
        # The budget's clock starts now (issue 24: a time budget is a limit):
        # the forced-move check below and hint's set-up are inside it.
        start = call.clock.now() if call.start is None else call.start
        self.last_forced = False
        legal = _listed_moves(view)
        if legal is not None and len(legal) == 1:
            self.last_forced = True  # no search: a match's think time leaves it out
            return legal[0]
        seed = rng.getrandbits(62) ^ self.seed
        kind = view.decision
        assert kind is not None  # a bot is asked only at its own decision
        return self.decide(view, kind, call.with_(seed=seed, start=start), legal, rng)

    def decide(self, view: View, kind: str, call: Budget, legal: list[Action] | None, rng: random.Random) -> Action:
        """The move `hint` finds for a `kind` decision within the call's
        time less what `reserve_ms` keeps back (the call starts at `choose`);
        how far it ran past that time is remembered.  `legal`: the moves,
        listed once."""
        from tacocat.search.hint import hint

        searched_ms = call.time_ms
        if searched_ms is not None:
            searched_ms -= self.reserve_ms(kind, searched_ms)
        result = hint(
            view,
            call.with_(time_ms=searched_ms),
            method=Method.AUTO if self.method == Method.PIMC else Method.ISMCTS,
            utilities=self.utilities,
            exact_budget=self.exact_budget,
            solver=self.solver,
            knobs=self.knobs,
            legal=legal,  # listed once: the play-phase search takes them as they are
        )
        action = played(result, kind, rng)
        if searched_ms is not None:
            assert call.start is not None  # `choose` starts the call's clock
            past = self._overruns.setdefault(kind, collections.deque(maxlen=self.OVERRUN_MEMORY))
            past.append(1000.0 * (call.clock.now() - call.start) - searched_ms)
        return action

    last_forced = False
    """Whether the last `choose` answered a forced move without searching."""

    OVERRUN_MEMORY = 9
    """Decisions of a kind whose overrun `reserve_ms` reads."""
    RESERVE_SHARE = 0.5
    """The most of a time budget `reserve_ms` keeps back."""

    def reserve_ms(self, decision: str, time_ms: float | None = None) -> float:
        """Milliseconds of the time budget kept back from the search of a
        `decision` (issue 24: a time budget is a limit).  A search stops at
        its deadline, but the answer is assembled after it (the moves'
        odds, a duel's matrix game, the last world or cell finishing), and
        at 1 ms that tail is a third of the budget: the median of how far
        the last `OVERRUN_MEMORY` decisions of this kind ran past their
        search's time (a median, so that one decision the machine delayed
        moves it little), at least 0 and at most `RESERVE_SHARE` of the
        budget (`time_ms`: the decision's, the bot's own by default).
        pimc_classic keeps nothing back (`tacocat.players.reference`)."""
        time_ms = self.time_ms if time_ms is None else time_ms
        assert time_ms is not None  # only a time budget is kept back from
        past = self._overruns.get(decision)
        if not past:
            return 0.0
        return min(max(0.0, statistics.median(past)), self.RESERVE_SHARE * time_ms)


class EquilibriumBot(SearchBot):
    """PIMC (or ISMCTS, `method`) above `eq_cards` cards a hand; at or below
    it, the equilibrium of the hidden-hand endgame (`tacocat.search.equilibrium`,
    solved once when the endgame is entered, to exploitability 1e-3), each
    move drawn from the equilibrium strategy with the seeded RNG.  The solved
    endgame is kept for the rest of the round and followed by the public
    history (re-solved only if play leaves it).

    With a `time_ms` budget the decision stays within it: the solve gets
    `EQ_SHARE` of the budget (its size is estimated first, its build and
    iterations stop at the deadline); when it cannot reach the target in
    that time the decision falls back to PIMC with the time left, and the
    endgame of that size is not tried again this round."""

    EQ_SHARE = 0.5

    def __init__(self, method: str = "pimc", **budget) -> None:
        super().__init__(method, **budget)
        self.name = f"{method}+equilibrium"
        eq_cards = budget.get("eq_cards")
        self.eq_cards = 3 if eq_cards is None else int(eq_cards)
        self._kept: _KeptSolve | None = None
        self._failed: set = set()  # (round, sizes, table) the budget could not solve

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        if view.decision not in PLAY_DECISIONS or max(len(view.hand), view.opponent_hand_size) > self.eq_cards:
            return super().choose(view, rng, budget)
        legal = view.legal_actions()
        self.last_forced = len(legal) == 1
        if self.last_forced:
            return legal[0]
        call = self.call_budget(budget)
        t0 = call.clock.now()
        moves = self.strategy(view, call)
        if moves is None:  # not solvable in the budget: PIMC with the time left
            if call.time_ms is not None:
                call = call.with_(time_ms=max(1.0, call.time_ms - 1000 * (call.clock.now() - t0)), start=None)
            return super().choose(view, rng, call)
        x, acc = rng.random(), 0.0
        for m in moves:
            acc += m.probability
            if x < acc:
                return m.action
        return moves[-1].action

    def strategy(self, view: View, budget: Budget | None = None) -> list[Move] | None:
        """The equilibrium's moves at a play-phase `view` (each with its
        probability): from the kept solve when the view's node lies below
        the node it was solved at, else from a new solve (kept in its
        place, given `EQ_SHARE` of `budget`'s time, the bot's own by
        default); None when the budget cannot solve this endgame."""
        from tacocat.search.equilibrium import endgame_from_view
        from tacocat.search.gamevalue import round_utilities

        node = _DecisionNode.of(view)
        if self._kept is not None:
            moves = self._kept.strategy(node, view)
            if moves is not None:
                return moves
        tried = (node.round, len(view.hand), view.opponent_hand_size, node.table)
        if tried in self._failed:
            return None
        eg = endgame_from_view(view, round_utilities(view.board, view.player, view.rules, self.utilities))
        result = self._solve(eg, self.call_budget(budget), tried)
        if result is None:
            return None
        self._kept = _KeptSolve(node, result)
        return result.strategy(view.player, view.hand, ())

    def _solve(self, eg: Endgame, call: Budget, tried: tuple) -> EquilibriumResult | None:
        """The endgame solved to the whole budget's end, or within
        `EQ_SHARE` of its time or until its stop; None (and the endgame
        remembered as too large for the budget, unless stopped) when that
        leaves it unsolved or above the target exploitability."""
        from tacocat.search.equilibrium import DEFAULT_TARGET, EndgameTooLarge, EquilibriumStopped, solve

        if call.time_ms is None and call.stop is None:
            return solve(eg)
        try:
            time_ms = None if call.time_ms is None else call.time_ms * self.EQ_SHARE
            result = solve(eg, time_ms=time_ms, stop=call.stop, clock=call.clock)
        except (EquilibriumStopped, EndgameTooLarge):
            result = None
        if result is None or result.exploitability > DEFAULT_TARGET:
            if not call.stopped():  # a stop says nothing of what the budget can solve
                self._failed.add(tried)
            return None
        return result


@dataclass(frozen=True)
class _DecisionNode:
    """A play-phase decision node as the public facts fix it: the round
    (ruleset, rounds played, board), the round's public history before the
    attack on the table, that table and the cards face up.  The deciding
    player's own hand is not part of it: an endgame solve holds every hand
    the unseen cards allow (`tacocat.search.equilibrium`), so the hand is
    the solve's index, not its key."""

    round: tuple
    past: tuple[Event, ...]
    table: tuple[int, ...]
    seen: tuple[int, ...]

    @classmethod
    def of(cls, view: View) -> "_DecisionNode":
        past = tuple(view.history)
        if view.table and past and past[-1].event == Decision.ATTACK:
            past = past[:-1]  # the attack to answer is the node's table
        return cls((view.rules, len(view.rounds), view.board), past, tuple(view.table), tuple(view.seen))


@dataclass(frozen=True)
class _KeptSolve:
    """An equilibrium solved at `root`, reused below it for the round."""

    root: _DecisionNode
    result: EquilibriumResult

    def strategy(self, node: _DecisionNode, view: View) -> list[Move] | None:
        """The kept moves at `node`, or None unless `node` lies below the
        root: the same round, the root's public history and then the root's
        attack, its face-up cards those of the root and the plays since (a
        hand the solve does not hold is refused by its lookup)."""
        from tacocat.errors import PositionError

        since = self._plays_since(node) if self._follows_root(node) else None
        if since is None:
            return None
        try:
            moves = self.result.strategy(view.player, view.hand, since)
        except PositionError:
            return None
        # A guard: a kept move that is not legal here means the node was misread.
        legal = set(view.legal_actions())
        return moves if moves and all(m.action in legal for m in moves) else None

    def _follows_root(self, node: _DecisionNode) -> bool:
        """The same round, the root's public history, then the root's
        attack (or, with nothing since, the root's table)."""
        root = self.root
        n = len(root.past)
        if node.round != root.round or node.past[:n] != root.past:
            return False
        if root.table and node.past[n:] and node.past[n] != PlayEvent.attack(self.result.endgame.attacker, root.table):
            return False  # the round went another way from the root's history
        return bool(node.past[n:]) or node.table == root.table

    def _plays_since(self, node: _DecisionNode) -> list[PlayEvent] | None:
        """The attacks and answers since the root's, when the node's face-up
        cards are the root's and those plays'; else None."""
        root = self.root
        rest = node.past[len(root.past) + (1 if root.table else 0) :]
        since = [e for e in rest if isinstance(e, PlayEvent)]
        if len(since) != len(rest):
            return None  # only attacks and answers follow a play-phase node
        cards = [c for e in since for c in e.cards]
        if sorted(root.seen + root.table + tuple(cards)) != sorted(node.seen + node.table):
            return None
        return since


class OracleBot:
    """Cheats, for measurement only: sees both hands (not the draw pile) and
    plays the play phase perfectly; duels by the matrix game with both hands
    known; replaces by simulating the draws against the known hand."""

    name = "oracle"
    needs_state = True

    def __init__(self, **budget) -> None:
        from tacocat.search.pimc import PerfectSolver

        b = BotBudget(**budget)
        self.replace_samples = b.replace_samples if b.replace_samples is not None else 160
        self.candidates = b.candidates if b.candidates is not None else 16
        self.seed = int(b.seed)
        self.utilities = b.utilities
        self.solver = PerfectSolver()

    def choose(self, view: View, rng: random.Random, budget: Budget | None = None) -> Action:
        raise TacocatError(
            "the oracle bot needs the whole game state (play_game passes it); it cannot play from a view"
        )

    def choose_state(self, state: GameState, player: int, rng: random.Random, budget: Budget | None = None) -> Action:
        from tacocat.search.gamevalue import round_utilities

        view = state.view(player)
        legal = view.legal_actions()
        if len(legal) == 1:
            return legal[0]
        util = round_utilities(view.board, player, view.rules, self.utilities)
        opp = state.hands[1 - player]
        kind = view.decision
        if kind in PLAY_DECISIONS:
            return self._play(view, kind, state, util, opp, rng)
        if kind == DUEL:
            return self._duel(view, util, opp, rng)
        return self._replace(view, util, opp, rng, budget)

    def _play(
        self, view: View, kind: Decision, state: GameState, util: Sequence[float], opp: Hand, rng: random.Random
    ) -> Action:
        """Perfect play with both hands known (R10-R17): a best move, ties
        broken by the seeded RNG."""
        player = view.player
        assert state.attacker is not None  # the play phase has an attacker
        scored = []
        for cards, beats, o in self.solver.move_outcomes(world_hands(view, opp), state.attacker, state.table):
            own = o if player == 0 else -o
            scored.append((util[1 - own], Action(kind, cards, beats if kind == Decision.ANSWER else None)))
        top = max(u for u, _ in scored)
        best = sorted((a for u, a in scored if u == top), key=lambda a: (a.cards, bool(a.beats)))
        return rng.choice(best)

    def _duel(self, view: View, util: Sequence[float], opp: Hand, rng: random.Random) -> Action:
        """The duel as the matrix game with both hands known (R9)."""
        from tacocat.search.decisions import cell_outcome, sample_mixed, solve_matrix_game
        from tacocat.search.results import MixedMove

        mine, theirs = sorted(set(view.hand)), sorted(set(opp))
        m = [[util[1 - cell_outcome(view.hand, opp, i, j, self.solver)] for j in theirs] for i in mine]
        x, _, _ = solve_matrix_game(m)
        return sample_mixed([MixedMove(r, float(p)) for r, p in zip(mine, x, strict=True)], rng)

    def _replace(
        self, view: View, util: Sequence[float], opp: Hand, rng: random.Random, budget: Budget | None
    ) -> Action:
        """The replacement by simulating the draws against the known hand (R7-R8)."""
        from tacocat.search.decisions import KnownHandSampler, replace_eval

        seed = rng.getrandbits(62) ^ self.seed
        res = replace_eval(
            view,
            Budget(samples=self.replace_samples, seed=seed, stop=None if budget is None else budget.stop),
            utilities=util,
            candidates=self.candidates,
            solver=self.solver,
            sampler=KnownHandSampler(opp, view.unseen_pool),
        )
        return res.moves[0].action


def _search_factory(method: str) -> Callable[..., Bot]:
    def make(**budget) -> Bot:
        return SearchBot(method, **budget)

    make.__name__ = f"{method}_bot"
    make.__doc__ = SearchBot.__doc__
    return make


def _reference(name: str) -> Callable[..., Bot]:
    """The factory of a reference bot, frozen in a module of its own
    (`tacocat.players.reference`, which builds on `SearchBot`)."""

    def make(**budget) -> Bot:
        from tacocat.players import reference

        return reference.REFERENCE_BOTS[name](**budget)

    make.__name__ = name
    return make


def _plain(cls) -> Callable[..., Bot]:
    def make(**budget) -> Bot:
        return cls()

    make.__name__ = cls.__name__
    make.__doc__ = cls.__doc__
    make.searches = False  # type: ignore[attr-defined]
    return make


BOTS: dict[str, Callable[..., Bot]] = {
    "random": _plain(RandomBot),
    "heuristic": _plain(HeuristicBot),
    "pimc": _search_factory("pimc"),
    "ismcts": _search_factory("ismcts"),
    "oracle": OracleBot,
    "pimc_eq": lambda **budget: EquilibriumBot("pimc", **budget),
    "pimc_classic": _reference("pimc_classic"),
    "pimc_static": _reference("pimc_static"),
}


def searches(name: str) -> bool:
    """Whether bot `name` searches (and so reads the search options,
    inference and round_search); the plain bots ignore every budget key."""
    return getattr(BOTS[name], "searches", True)


SEAT_BOTS: tuple[str, ...] = tuple(name for name, make in BOTS.items() if not getattr(make, "needs_state", False))
"""The bots that choose from a seat's view alone (its information set,
RULES section 5): the only ones a door that serves a seat may offer.  The
others (the oracle, `needs_state`) read the opponent's hand and play only
where no seat is hidden: arena, selfplay, analysis of finished games."""


def make_bot(name: str, **budget) -> Bot:
    """A bot by name, with an optional search budget (`BUDGET_KEYS`, each
    checked against its declaration in `tacocat.search.options`); raises
    TacocatError naming the known bots, or the key and what it expects."""
    if name not in BOTS:
        raise TacocatError(f"unknown bot {name!r}; expected one of {', '.join(sorted(BOTS))}")
    return BOTS[name](**check_options(budget, f"bot {name!r} budget"))


def choose(bot: Bot, state: GameState, player: int, rng: random.Random, budget: Budget | None = None) -> Action:
    """Ask `bot` for `player`'s action: a bot with `needs_state = True`
    (the oracle) sees the whole state, every other bot its view only.
    `budget`: the call's (`Bot.choose`); None leaves the bot its own."""
    per_call = () if budget is None else (budget,)  # a bot of a caller's own may take none
    if getattr(bot, "needs_state", False):
        return bot.choose_state(state, player, rng, *per_call)  # type: ignore[attr-defined]
    return bot.choose(state.view(player), rng, *per_call)


def play_game(bots: tuple[Bot, Bot], seed: int, rules=None, max_actions: int = 10_000) -> GameState:
    """Play one whole game between `bots` (player 0, player 1) from `seed`.
    The deal and each bot's choices are reproducible from the seed."""
    state = GameState.new(rules or STANDARD, seed)
    rngs = [random.Random(f"{seed}/bot{p}") for p in (0, 1)]
    for _ in range(max_actions):
        if state.over:
            return state
        for player in state.acting_players():
            state.apply(player, choose(bots[player], state, player, rngs[player]))
    raise TacocatError(f"game from seed {seed} did not finish within {max_actions} actions")


def selfplay(
    bots: tuple[Bot, Bot], games: int, seed: int = 0, rules=None, progress: Callable[[int, int], None] | None = None
) -> dict:
    """Play `games` whole games between `bots` (player 0, player 1; game i
    from seed `seed + i`) and count the results: wins of each player (the
    cat in a goal, R19) and drawn games (`max_deals` deals without a winner,
    RULES §8); drawn rounds (R17) are counted too.  `progress(done, total)`
    is called after every game."""
    wins, draws, rounds, drawn = [0, 0], 0, 0, 0
    start = time.perf_counter()
    for i in range(games):
        state = play_game(bots, seed + i, rules)
        if state.winner is None:
            draws += 1  # RULES §8: over at max_deals with the cat in no goal
        else:
            wins[state.winner] += 1
        rounds += len(state.rounds)
        drawn += sum(1 for r in state.rounds if r["winner"] is None)
        if progress is not None:
            progress(i + 1, games)
    return {
        "p0": bots[0].name,
        "p1": bots[1].name,
        "games": games,
        "seed": seed,
        "p0_wins": wins[0],
        "draws": draws,
        "p0_losses": wins[1],
        "rounds": rounds,
        "drawn_rounds": drawn,
        "seconds": round(time.perf_counter() - start, 3),
    }
