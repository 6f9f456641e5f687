"""The whole-round equilibrium checked by OpenSpiel (the `openspiel`
extra): a strategy of `tacocat.search.round_game` evaluated on OpenSpiel's
own tree of the same round.  It lives in this layer because it drives the
OpenSpiel games; the round game and its solver stay below it in `search`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tacocat.search.round_game import events_of

if TYPE_CHECKING:
    import numpy as np

    from tacocat.search.round_game import RoundGame


def openspiel_check(game: RoundGame, sigma: np.ndarray) -> dict:
    """An independent evaluation of `sigma` in OpenSpiel (needs the
    `openspiel` extra): the round as OpenSpiel's `tacocat_turn` game with
    one deal (`max_deals` 1, `units` round: +1 / 0 / -1) — its own tree,
    dealt card by card — where `sigma` is looked up by this module's
    information-set key (the dealt hand, the drawn cards and the public
    history of OpenSpiel's state) and evaluated by OpenSpiel's
    `expected_game_score` and its exact best responses (`exploitability`).
    Returns player 0's value and the exploitability (NashConv / 2)."""
    import pyspiel  # noqa: F401
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import expected_game_score
    from open_spiel.python.algorithms import exploitability as os_expl

    import tacocat.openspiel  # noqa: F401  (registers the games)

    rules = game.rules
    params = {
        "deck": " ".join(map(str, rules.deck)),
        "board": " ".join(map(str, rules.board)),
        "arrows": " ".join(rules.arrows),
        "tie": rules.tie,
        "max_deals": 1,
        "units": "round",
    }
    os_game = pyspiel.load_game("tacocat_turn", params)
    index = {key: i for i, key in enumerate(game.keys)}

    class _Sigma(os_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            p = state.current_player()
            rec = state.records[-1][p]
            key = (p, tuple(rec["dealt"]), tuple(sorted(rec["drawn"])), events_of(state.gs.history))
            i = index[key]
            off = game.iset_offset[i]
            return {state.g.codec.encode(a): float(sigma[off + k]) for k, a in enumerate(game.iset_actions[i])}

    pol = _Sigma(os_game, [0, 1])
    value = expected_game_score.policy_value(os_game.new_initial_state(), [pol, pol])[0]
    return {"value": float(value), "exploitability": float(os_expl.nash_conv(os_game, pol)) / 2.0}
