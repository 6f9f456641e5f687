"""Elo and the sequential probability ratio test (SPRT) for duplicate matches.

The unit of a duplicate match is the deal: the same cards played twice with
the seats swapped.  The two games of a deal are not independent (the same
cards favour the same seat twice), so the statistics here are over *pairs*:
a deal's pair score is A's points over its two games divided by 2, on the
0..1 scale (win 1, draw 1/2, loss 0).

- mode "play" (rounds can be drawn, R17): a pair score is one of 0, 1/4,
  1/2, 3/4, 1 - the **pentanomial** model (LL, LD, WL or DD, WD, WW);
- mode "game": the same pentanomial, since a game reaching `max_deals`
  deals without a winner is drawn (RULES §8).  Under the standard ruleset
  that bound is never met in practice, so the draw-only cells (LD, WD) stay
  empty; the SPRT leaves an empty draw-only cell out rather than padding it
  (`game_cells`), so that without drawn games the model is the **trinomial**
  over pairs (LL, WL, WW) and impossible-in-practice cells cannot pull the
  estimates.

This is fishtest's model for paired games with reversed colours, and it
measures the variance of the score correctly where a trinomial over single
games would overstate it (the pair correlation cancels).

- `elo` / `elo_interval`: the logistic Elo difference of the mean score,
  Elo = -400 log10(1/s - 1), with the 95% interval from the pair variance
  (s ± 1.96 sd/√N mapped through the same curve); an end at score 0 or 1 is
  unbounded (None).
- `nelo`: normalized Elo, (s - 1/2)/sd over pairs times 800/ln10/√2: the
  Elo a player would need to have this t-value, independent of the draw
  rate (fishtest's scale for SPRT bounds).
- `SPRT`: the generalized SPRT over the pair-score distribution (fishtest's
  `elo0=..,elo1=..,alpha=..,beta=..` form, bounds in normalized Elo).  The
  log-likelihood ratio compares the most likely pair-score distributions
  with normalized Elo elo1 and elo0 given the observed one; the test stops
  at LLR <= ln(beta/(1-alpha)) (H0: not better than elo0) or
  LLR >= ln((1-beta)/alpha) (H1: at least elo1).
- `SPRT.llr_scores`: the same test for pair scores that take any value
  (the luck-adjusted scores of `tacocat.players.luck`, which are not
  pentanomial), under the normal approximation: with t = (mean - 1/2)/sd
  of the pair scores and t_k = elo_k / `NELO_PER_T`,
  LLR = n (t1 - t0) (2 t - t0 - t1) / 2, the pentanomial LLR's limit for
  many deals.  `elo_interval_scores` and `nelo_scores` are `elo_interval`
  and `nelo` for such scores."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from tacocat.errors import TacocatError

Z95 = 1.959963984540054
NELO_PER_T = 800 / math.log(10) / math.sqrt(2)
"""Normalized Elo per unit of t-value (mean - 1/2)/sd when the sample is pairs."""
PAIR_VALUES = {"play": (0.0, 0.25, 0.5, 0.75, 1.0), "game": (0.0, 0.25, 0.5, 0.75, 1.0)}
"""The pair scores each mode can produce (see the module docstring)."""
DRAW_ONLY = (0.25, 0.75)
"""Pair scores only a drawn game gives (a deal with one drawn game and one
decided game); in game mode, where drawn games are rare (RULES §8), they
enter the SPRT only once seen."""
REGULARIZE = 1e-3
"""Stands in for an empty cell of the observed distribution so that every
log-likelihood is finite (fishtest does the same)."""
PRIOR_DEALS = 0.25
"""`SPRT.llr_scores`: pseudo-deals at each extreme pair score, 0 and 1.
The spread of a few continuous scores cannot be trusted (two deals of
nearly equal score would give a huge t), so it is pulled toward the widest
one; the pull fades as 1/n (t is a few tenths of a percent smaller at 200
deals, on the cautious side)."""


def pair_score(deal_score: float) -> float:
    """A deal's score in [-1, 1] (A's mean result over both seatings) as a
    pair score in [0, 1]."""
    return (deal_score + 1) / 2


def pair_counts(deal_scores: Sequence[float], mode: str) -> list[int]:
    """How many deals gave each pair score of `PAIR_VALUES[mode]`."""
    values = PAIR_VALUES[mode]
    counts = [0] * len(values)
    for s in deal_scores:
        p = pair_score(s)
        i = min(range(len(values)), key=lambda k: abs(values[k] - p))
        if abs(values[i] - p) > 1e-9:
            raise TacocatError(f"deal score {s} is not a duplicate result of mode {mode!r}")
        counts[i] += 1
    return counts


def model_cells(counts: Sequence[int], mode: str) -> tuple[tuple[float, ...], list[int]]:
    """The pair scores and counts the SPRT models: every cell in play mode;
    in game mode the draw-only cells (`DRAW_ONLY`) only when some deal gave
    one, so that a match without drawn games is the trinomial over pairs."""
    values = PAIR_VALUES[mode]
    if len(counts) != len(values):
        raise TacocatError(f"expected {len(values)} pair-score counts for mode {mode!r}, got {len(counts)}")
    keep = [i for i, c in enumerate(counts) if mode != "game" or c or values[i] not in DRAW_ONLY]
    return tuple(values[i] for i in keep), [counts[i] for i in keep]


def _mean_var(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(a * p for a, p in zip(values, probs))
    return mu, max(0.0, sum(p * (a - mu) ** 2 for a, p in zip(values, probs)))


def elo(score: float) -> float | None:
    """Logistic Elo difference of a mean score in [0, 1]; None at 0 or 1."""
    if not 0 < score < 1:
        return None
    return -400 * math.log10(1 / score - 1) + 0.0  # no -0.0 at an even score


def elo_interval(counts: Sequence[int], mode: str) -> tuple[float | None, list[float | None]]:
    """(Elo, [lo, hi] 95%) of the pair-score counts; None where unbounded."""
    n = sum(counts)
    if n == 0:
        return None, [None, None]
    mu, var = _mean_var(PAIR_VALUES[mode], [c / n for c in counts])
    half = Z95 * math.sqrt(var / n) if n > 1 else 1.0
    lo, hi = mu - half, mu + half
    return elo(mu), [elo(lo) if lo > 0 else None, elo(hi) if hi < 1 else None]


def elo_interval_scores(pair_scores: Sequence[float]) -> tuple[float | None, list[float | None]]:
    """`elo_interval` of pair scores of any value (0..1 scale): the Elo of
    their mean, the interval from their variance (the same formula)."""
    n = len(pair_scores)
    if n == 0:
        return None, [None, None]
    mu = sum(pair_scores) / n
    var = max(0.0, sum((x - mu) ** 2 for x in pair_scores) / n)
    half = Z95 * math.sqrt(var / n) if n > 1 else 1.0
    lo, hi = mu - half, mu + half
    return elo(mu), [elo(lo) if lo > 0 else None, elo(hi) if hi < 1 else None]


def nelo_scores(pair_scores: Sequence[float]) -> float | None:
    """`nelo` of pair scores of any value (None when the spread is 0)."""
    n = len(pair_scores)
    if n == 0:
        return None
    mu = sum(pair_scores) / n
    var = sum((x - mu) ** 2 for x in pair_scores) / n
    return None if var == 0 else NELO_PER_T * (mu - 0.5) / math.sqrt(var)


def nelo(counts: Sequence[int], mode: str) -> float | None:
    """Normalized Elo of the pair-score counts (None when the spread is 0)."""
    n = sum(counts)
    if n == 0:
        return None
    mu, var = _mean_var(PAIR_VALUES[mode], [c / n for c in counts])
    return None if var == 0 else NELO_PER_T * (mu - 0.5) / math.sqrt(var)


def _secular(phat: Sequence[float], g: Sequence[float]) -> float | None:
    """The x with sum phat_i g_i / (1 + x g_i) = 0 and every 1 + x g_i > 0,
    or None when g does not change sign (no such distribution)."""
    gmax, gmin = max(g), min(g)
    if not (gmax > 0 > gmin):
        return None
    lo, hi = -1 / gmax, -1 / gmin
    f = lambda x: sum(p * gi / (1 + x * gi) for p, gi in zip(phat, g))  # noqa: E731
    x = 0.0
    for _ in range(200):  # Newton inside a shrinking bracket, bisection when it leaves it
        fx = f(x)
        if fx > 0:
            lo = x
        else:
            hi = x
        d = -sum(p * gi * gi / (1 + x * gi) ** 2 for p, gi in zip(phat, g))
        step = x - fx / d if d < 0 else None
        nxt = step if step is not None and lo < step < hi else (lo + hi) / 2
        if abs(nxt - x) < 1e-15 * max(1.0, abs(x)):
            return nxt
        x = nxt
    return x


def mle_t_value(values: Sequence[float], phat: Sequence[float], t: float, ref: float = 0.5) -> list[float]:
    """The distribution on `values` nearest the observed `phat` (maximum
    likelihood) whose t-value (mean - ref)/sd is `t`.

    Lagrange: p_i = phat_i / (1 + x g_i) with g_i = a_i - ref - t((a_i - mu)^2
    + var)/(2 sd), the constraint's gradient shifted so that sum p_i g_i is
    the constraint itself; mu and sd are taken from the previous iterate."""
    p = list(phat)
    for _ in range(100):
        mu, var = _mean_var(values, p)
        sd = math.sqrt(var) if var > 0 else 1e-12
        g = [a - ref - t * ((a - mu) ** 2 + var) / (2 * sd) for a in values]
        x = _secular(phat, g)
        if x is None:
            return p
        new = [q / (1 + x * gi) for q, gi in zip(phat, g)]
        total = sum(new)
        new = [q / total for q in new]
        if max(abs(u - v) for u, v in zip(new, p)) < 1e-11:  # float noise stays near 1e-12
            return new
        p = new
    return p


def _sprt_fields(text: str) -> dict[str, float]:
    """The numbers of 'elo0=0,elo1=10,alpha=0.05,beta=0.05'."""
    fields: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in ("elo0", "elo1", "alpha", "beta"):
            raise TacocatError(
                f"--sprt: expected key=value with keys elo0, elo1, alpha, beta "
                f"(e.g. elo0=0,elo1=10,alpha=0.05,beta=0.05), got {item!r}"
            )
        try:
            fields[key] = float(value)
        except ValueError:
            raise TacocatError(f"--sprt: {key} must be a number, got {value!r}") from None
    return fields


@dataclass(frozen=True)
class SPRT:
    """Fishtest's SPRT: H0 normalized Elo = elo0 against H1 = elo1."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> "SPRT":
        """'elo0=0,elo1=10,alpha=0.05,beta=0.05' (any key may be left out)."""
        sprt = cls(**_sprt_fields(text))
        sprt._check()
        return sprt

    def _check(self) -> None:
        """H1 above H0, both within -1000..1000, error rates in (0, 0.5)."""
        if not self.elo1 > self.elo0:
            raise TacocatError(f"--sprt: elo1 must be above elo0, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        if not (-1000 <= self.elo0 and self.elo1 <= 1000):
            raise TacocatError("--sprt: elo0 and elo1 must lie in -1000..1000 (normalized Elo)")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise TacocatError(f"--sprt: {name} must lie strictly between 0 and 0.5, got {getattr(self, name):g}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): accept H0 at or below lower, H1 at or above upper."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int], mode: str) -> float:
        """Log-likelihood ratio of H1 against H0 for the pair-score counts."""
        if sum(counts) == 0:
            return 0.0
        values, counts = model_cells(counts, mode)
        reg = [c if c > 0 else REGULARIZE for c in counts]
        n = sum(reg)
        phat = [c / n for c in reg]
        p0 = mle_t_value(values, phat, self.elo0 / NELO_PER_T)
        p1 = mle_t_value(values, phat, self.elo1 / NELO_PER_T)
        return n * sum(q * math.log(b / a) for q, a, b in zip(phat, p0, p1))

    def llr_scores(self, pair_scores: Sequence[float]) -> float:
        """Log-likelihood ratio of H1 against H0 for pair scores of any value
        (0..1 scale; the luck-adjusted ones), normal approximation."""
        return self.llr_moments(len(pair_scores), sum(pair_scores), sum(x * x for x in pair_scores))

    def llr_moments(self, n: int, total: float, total_sq: float) -> float:
        """`llr_scores` from n pair scores' sum and sum of squares (a running
        match keeps these), with `PRIOR_DEALS` at each extreme pair score."""
        if n == 0:
            return 0.0
        m = n + 2 * PRIOR_DEALS
        mean = (total + PRIOR_DEALS) / m
        var = max((total_sq + PRIOR_DEALS) / m - mean * mean, 1e-12)
        t = (mean - 0.5) / math.sqrt(var)
        t0, t1 = self.elo0 / NELO_PER_T, self.elo1 / NELO_PER_T
        return m * (t1 - t0) * (2 * t - t0 - t1) / 2

    def verdict(self, llr: float) -> str | None:
        """'H0', 'H1' or None (keep playing)."""
        lower, upper = self.bounds
        return "H0" if llr <= lower else "H1" if llr >= upper else None

    def to_dict(self) -> dict:
        lower, upper = self.bounds
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "bounds": [lower, upper]}

    def __str__(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"
