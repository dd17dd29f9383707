"""Evaluation discriminativeness (ED) of an ordering scorer, leave one judge out.

    ED = (1/n) sum_i [ s(O_i; gold without O_i) - s(reverse(O_i); gold without O_i) ]

(Kim, Zhai, Han 2010, s.4; METHODS.md s.1), macro-averaged over sets. Noise orderings,
when given, are gold standards only: ED still averages over the n human judges.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .orderings.ranks import as_rank_matrix, reverse_ranks


def leave_one_out_differences(scorer: Any, humans: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
    """Per-judge terms s(O_i; others) - s(rev O_i; others), using a scorer's fast path if it has one."""
    humans = as_rank_matrix(humans)
    n, k = humans.shape
    if n < 2:
        raise ValueError(f"leave-one-judge-out needs at least 2 judges, got {n}")
    noise = np.empty((0, k)) if noise is None or len(noise) == 0 else as_rank_matrix(noise)
    fast = getattr(scorer, "leave_one_out_differences", None)
    if fast is not None:
        return np.asarray(fast(humans, noise), dtype=float)
    return generic_leave_one_out_differences(scorer, humans, noise)


def generic_leave_one_out_differences(scorer: Any, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """The ED terms by refitting the scorer on each gold set (any scorer; the reference for fast paths)."""
    n = len(humans)
    reversed_humans = reverse_ranks(humans)
    out = np.empty(n)
    for i in range(n):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        s = scorer(gold)(np.vstack([humans[i], reversed_humans[i]]))
        out[i] = s[0] - s[1]
    return out


def evaluation_discriminativeness(scorer: Any, humans: np.ndarray, noise: np.ndarray | None = None) -> float:
    """ED of ``scorer`` on one set of human orderings (plus optional noise gold orderings)."""
    return float(np.mean(leave_one_out_differences(scorer, humans, noise)))

