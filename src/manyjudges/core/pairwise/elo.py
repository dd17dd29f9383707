"""Elo ratings (Elo 1978, "The rating of chessplayers, past and present") of games replayed in rounds.

Every game (a, b, score S of a) moves R_a += K (S - E) and R_b -= K (S - E), with E = 1 / (1 +
10^((R_b - R_a) / scale)). The games are replayed in a fixed seeded order grouped into rounds in
which no item plays twice (:func:`_elo_schedule`), so a round's updates run at once.
"""
from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from manyjudges.core.parameters import Constraint, Interval

__all__ = ["elo_ratings"]

#: the parameters of :func:`elo_ratings` a rating takes, and what each may be (both families' Elo declare them)
ELO_CONSTRAINTS: dict[str, list[Constraint]] = {
    "k_factor": [Interval(Real, 0, None, closed="neither")],
    "n_passes": [Interval(Integral, 1, None)],
    "scale": [Interval(Real, 0, None, closed="neither")],
    "random_state": [Interval(Integral, 0, None)],
}

#: below this many game updates the Elo passes run as a plain Python loop (same arithmetic)
_LOOP_GAMES = 20_000


def _elo_schedule(a: np.ndarray, b: np.ndarray, n_items: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Games in rounds: ``(order, round_starts)``.

    The games are visited in a fixed pseudo-random order (``seed``) and each goes to the first
    round after both its items' previous games, so an item plays at most once per round and
    the rounds' games can be updated at the same time.
    """
    order = np.random.default_rng(seed).permutation(len(a))
    free = [0] * n_items
    rounds = [0] * len(a)
    al, bl = a.tolist(), b.tolist()
    for g in order.tolist():
        i, j = al[g], bl[g]
        r = max(free[i], free[j])
        rounds[g] = r
        free[i] = free[j] = r + 1
    rounds_arr = np.asarray(rounds, dtype=np.int64)
    by_round = np.argsort(rounds_arr, kind="stable")
    starts = np.searchsorted(rounds_arr[by_round], np.arange(int(rounds_arr.max(initial=-1)) + 2))
    return by_round, starts


def elo_ratings(a: np.ndarray, b: np.ndarray, score: np.ndarray, n_items: int, k_factor: float = 32.0,
                n_passes: int = 10, initial: float = 1500.0, scale: float = 400.0, seed: int = 0) -> np.ndarray:
    """Elo ratings after ``n_passes`` passes over the games ``(a, b, score of a)`` in round order."""
    ratings = np.full(n_items, float(initial))
    if len(a) == 0:
        return ratings
    order, starts = _elo_schedule(a, b, n_items, seed)
    a, b, score = a[order], b[order], np.asarray(score, dtype=float)[order]
    if len(a) * n_passes <= _LOOP_GAMES:
        r = ratings.tolist()
        games = list(zip(a.tolist(), b.tolist(), score.tolist()))
        for _ in range(n_passes):
            for i, j, s in games:
                d = k_factor * (s - 1.0 / (1.0 + math.pow(10.0, (r[j] - r[i]) / scale)))
                r[i] += d
                r[j] -= d
        return np.asarray(r)
    rounds = [(a[lo:hi], b[lo:hi], score[lo:hi]) for lo, hi in zip(starts[:-1].tolist(), starts[1:].tolist())]
    for _ in range(n_passes):
        for i, j, s in rounds:
            # d = K (S - 1 / (1 + 10^((R_j - R_i) / scale))), in place
            d = ratings[j]
            d -= ratings[i]
            d /= scale
            np.power(10.0, d, out=d)
            d += 1.0
            np.divide(1.0, d, out=d)
            np.subtract(s, d, out=d)
            d *= k_factor
            ratings[i] += d
            ratings[j] -= d
    return ratings

