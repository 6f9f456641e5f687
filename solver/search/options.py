"""What a search can be asked, declared once.

Every option a bot or a hint takes is an `Option` here: its name, type,
bounds or choices, default and one line of help, as a chess engine
declares its UCI options and a scikit-learn estimator its parameter
constraints.  The doors read this table and nothing else: the bot specs
of `arena` (`pimc@samples=40,clock=cpu`, `tacocat.players.match.parse_bot`),
`make_bot`'s validation, the strength `LEVELS` of `move`, the protocol's
`move`/`hint` fields and `hello`'s list of options, the CLI's search flags.

Two kinds of option: the *budget* (`samples`, `iterations`, `time_ms`,
`clock`, `seed`: what a search may spend, `tacocat.search.budget.Budget`,
which a caller may also give per call with a `stop`), and the *shape* of
the search (the rest: how a bot spends its budget, what it plays for)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, Mapping

from tacocat.errors import TacocatError, shorten
from tacocat.search.budget import CLOCKS, MAX_SAMPLES, MAX_TIME_MS

TYPE_NAMES = {int: "integer", float: "number", str: "string", bool: "boolean"}


@dataclass(frozen=True)
class Option:
    """One search option (module docstring)."""

    name: str
    type: type
    """int, float (an int is a float too), str or bool."""
    default: Any
    """None: the search's own default, which depends on the bot and the budget (`help` says)."""
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    budget: bool = False
    """Part of the budget (what a search may spend) rather than its shape."""
    above: bool = False
    """The minimum is exclusive (a time must be more than 0)."""
    check_text: Callable[[str], Any] | None = None
    """A string option's own check (the inference model's grammar); returns the value."""
    bot: bool = True
    """A bot takes it (`tacocat.players.bots.BotBudget`); else only a hint does."""

    def check(self, value: Any, where: str = "") -> Any:
        """`value` if it fits the option, else a one-line `TacocatError`
        naming the option (and `where` it was given)."""
        if value is None:
            return None
        fits = {bool: self._fits_flag, int: self._fits_number, float: self._fits_number}.get(self.type, self._fits_text)
        problem = fits(value)
        if problem:
            raise TacocatError(f"{where + ': ' if where else ''}{problem}")
        return value

    def _fits_flag(self, value: Any) -> str | None:
        if value in (0, 1) and not isinstance(value, float):  # True, False, and the specs' 0 and 1
            return None
        return f"{self.name} must be 0 (off) or 1 (on), got {shorten(value)}"

    def _fits_number(self, value: Any) -> str | None:
        kinds = int if self.type is int else (int, float)
        lo, hi = self.minimum, self.maximum
        if (
            not isinstance(value, kinds)
            or isinstance(value, bool)
            or value != value  # NaN
            or (lo is not None and (value <= lo if self.above else value < lo))
            or (hi is not None and value > hi)
        ):
            return f"{self.name} must be {self._range()}, got {shorten(value)}"
        return None

    def _fits_text(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"{self.name} must be a string, got {shorten(value)}"
        if self.choices is not None and value not in self.choices:
            return f"{self.name} must be one of {', '.join(self.choices)}, got {shorten(value)}"
        if self.check_text is not None:
            try:
                self.check_text(value)
            except TacocatError as exc:
                return str(exc)
        return None

    def _range(self) -> str:
        kind = "a whole number" if self.type is int else "a number"
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            lo_, hi_ = _number(lo), _number(hi)
            return f"{kind} above {lo_}, at most {hi_}" if self.above else f"{kind} from {lo_} to {hi_}"
        if lo is not None:
            return f"{kind} {'above' if self.above else 'of at least'} {_number(lo)}"
        return kind

    def parse(self, text: str, where: str = "") -> Any:
        """The value of `text` as a spec or a command line writes it
        (`samples=40`, `clock=cpu`, `round_search=1`), checked.  A number
        option keeps a whole number an int, so a spec echoes as it was written."""
        at = f"{where}: " if where else ""
        if self.type is str:
            return self.check(text, where)
        if self.type is bool:
            flags = {"0": 0, "1": 1, "false": False, "true": True, "off": False, "on": True}
            if text.lower() not in flags:
                raise TacocatError(f"{at}{self.name} must be 0 (off) or 1 (on), got {shorten(text)}")
            return flags[text.lower()]
        try:
            value: Any = int(text)
        except ValueError:
            try:
                value = float(text) if self.type is float else text
            except ValueError:
                value = text
        if isinstance(value, str):
            raise TacocatError(f"{at}{self.name} must be {self._range()}, got {shorten(text)}")
        return self.check(value, where)

    def describe(self) -> dict[str, Any]:
        """The option as `hello` lists it (JSON)."""
        d: dict[str, Any] = {"name": self.name, "type": TYPE_NAMES[self.type], "default": self.default}
        if self.minimum is not None:
            d["exclusive_minimum" if self.above else "minimum"] = self.minimum
        if self.maximum is not None:
            d["maximum"] = self.maximum
        if self.choices is not None:
            d["choices"] = list(self.choices)
        d["budget"] = self.budget
        d["help"] = self.help
        return d


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _inference(text: str) -> str:
    from tacocat.search.inference import check_inference

    return check_inference(text)


class Method(StrEnum):
    """The hint methods (`tacocat.search.hint`): `auto` picks one of the others."""

    AUTO = "auto"
    EXACT = "exact"
    PIMC = "pimc"
    ISMCTS = "ismcts"
    EQUILIBRIUM = "equilibrium"


class Rollout(StrEnum):
    """ISMCTS's rollout policies (`tacocat.search.ismcts.ROLLOUTS`, checked to agree by a test)."""

    RANDOM = "random"
    GREEDY = "greedy"


METHODS = tuple(m.value for m in Method)
"""The hint methods' words, as the options, the protocol and the CLI take them."""
ROLLOUT_NAMES = tuple(r.value for r in Rollout)

OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option(
            "samples",
            int,
            None,
            "PIMC: worlds (sampled opponent hands) a play decision searches; ISMCTS reads it as iterations "
            "(default 100 without a time budget).",
            1,
            MAX_SAMPLES,
            budget=True,
        ),
        Option(
            "iterations",
            int,
            None,
            "ISMCTS: iterations a decision runs (default 20,000 without a time budget); PIMC reads it as samples.",
            1,
            MAX_SAMPLES,
            budget=True,
        ),
        Option(
            "time_ms",
            float,
            None,
            "A decision's time in milliseconds, counted on `clock`; with a count, the first reached ends the search.",
            0,
            MAX_TIME_MS,
            budget=True,
            above=True,
        ),
        Option(
            "clock",
            str,
            "wall",
            "What time_ms counts: wall (elapsed time, what a person waits) or cpu (the searching thread's own "
            "CPU time: the same work on an idle or a loaded machine; matches' default).",
            choices=tuple(CLOCKS),
            budget=True,
        ),
        Option(
            "seed",
            int,
            0,
            "Mixed into every random choice of the search: the same seed and count budget give the same moves.",
            budget=True,
        ),
        Option(
            "replace_samples",
            int,
            None,
            "Replacement: (discard, deal) evaluations a decision makes (default 240; with time_ms, except "
            "for pimc_classic, as many as the time allows).",
            1,
            MAX_SAMPLES,
        ),
        Option(
            "duel_samples",
            int,
            None,
            "Duel: sampled deals a decision averages (default 24; with time_ms, except for pimc_classic, "
            "as many as the time allows).",
            1,
            MAX_SAMPLES,
        ),
        Option("candidates", int, None, "Replacement: discard sets compared (default 24).", 1, MAX_SAMPLES),
        Option("threads", int, 1, "ISMCTS: root-parallel trees.", 1, 64),
        Option(
            "exact_cards",
            int,
            None,
            "ISMCTS: rollouts switch to the exact solver at this many cards a hand.",
            0,
            12,
        ),
        Option("c_uct", float, None, "ISMCTS: the UCB exploration constant.", 0, 100),
        Option(
            "utilities",
            str,
            "game",
            "What a result is worth: game (the game equity of the board it leads to) or round (1 / 0 / -1).",
            choices=("game", "round"),
        ),
        Option(
            "exact_budget",
            int,
            None,
            "PIMC: the opponent's possible hands are enumerated exactly up to this many (default 300).",
            0,
            MAX_SAMPLES,
        ),
        Option("rollout", str, None, "ISMCTS: the rollout policy.", choices=ROLLOUT_NAMES),
        Option(
            "eq_cards",
            int,
            None,
            "pimc_eq: the hidden-hand equilibrium at or below this many cards a hand (default 3).",
            0,
            12,
        ),
        Option(
            "inference",
            str,
            None,
            'The model that weights the opponent\'s possible hands by its choices this round: "off" (R20 alone), '
            '"uniform", or "policy[:T]" (a temperature T).',
            check_text=_inference,
        ),
        Option(
            "round_search",
            bool,
            False,
            "1: the replace and duel decisions searched with the round's real continuation (about 8x "
            "a replacement's cost); 0: the classic search.",
        ),
        Option(
            "duel",
            str,
            "matrix",
            "The duel's search: matrix (one matrix game over the sampled worlds: the opponent plays one mix "
            "whatever its hand) or bayes (a Bayesian game: each hand of either player its own card, "
            "tacocat.search.duel_game; about 8x the cost at equal samples).",
            choices=("matrix", "bayes"),
        ),
        Option(
            "replace",
            str,
            "static",
            "The replacement's search: static (my discards ranked against an opponent replying by a fixed "
            "policy) or game (the replacement solved as a game: the opponent's reply a strategy with its own "
            "hands, tacocat.search.replace_game) or guided (the static search's best discards corrected by "
            "the game on common worlds, tacocat.search.replace_game.guided_replace).",
            choices=("static", "game", "guided"),
        ),
        Option(
            "method",
            str,
            "auto",
            "How a hint searches: auto (the equilibrium for small endgames, exact when the opponent's hands are "
            "few, else PIMC), exact, pimc, ismcts or equilibrium.",
            choices=METHODS,
            bot=False,
        ),
    )
}
"""Every search option, by name (module docstring)."""


def option(name: str, where: str = "") -> Option:
    """The option called `name`, or a one-line error listing them."""
    try:
        return OPTIONS[name]
    except KeyError:
        at = f"{where}: " if where else ""
        raise TacocatError(f"{at}unknown budget key {name!r}; expected one of {', '.join(OPTIONS)}") from None


def check_options(values: Mapping[str, Any], where: str = "", *, bot: bool = True) -> dict[str, Any]:
    """`values` with every key a declared option (a bot's, with `bot`) and
    every value fitting it (None: the default), else a one-line error."""
    out = {}
    for key, value in values.items():
        opt = option(key, where)
        if bot and not opt.bot:
            raise TacocatError(f"{where}: {key} is a hint's option, not a bot's")
        if key == "utilities" and isinstance(value, (tuple, list)):
            out[key] = value  # explicit (win, draw, loss) utilities: the library's own, checked where used
            continue
        out[key] = opt.check(value, where)
    return out


def parse_options(text: str, where: str = "") -> dict[str, Any]:
    """`k=v,k=v` (a bot spec's tail) as checked option values."""
    out: dict[str, Any] = {}
    for item in filter(None, text.split(",")):
        key, eq, value = item.partition("=")
        if not eq:
            raise TacocatError(f"{where}: expected key=value after '@', got {item!r}")
        out[key] = option(key, where).parse(value, where)
    return out


def describe_options() -> list[dict[str, Any]]:
    """Every option as `hello` lists it."""
    return [o.describe() for o in OPTIONS.values()]
