"""The consensus measure as an ordered-list scorer (the ``consensus`` row of the ED tables)."""
from __future__ import annotations

import numpy as np

from manyjudges.consensus.measure import consensus_measure, log2_kappa_plus_one
from manyjudges.counting import common_precedence, count_paths_by_length
from manyjudges.orderings.base import OrderingScorer
from manyjudges.orderings.evaluation import generic_leave_one_out_differences
from manyjudges.ranks import precedence_matrices, reverse_ranks

__all__ = ["ConsensusScorer"]


class ConsensusScorer(OrderingScorer):
    """Ordered-list scorer from the consensus measure (extra row ``consensus``; Lin, Li, Guo).

    s(O; O_1..O_n) = mean_i log2(1 + kappa({O, O_i})) / log2(1 + kappa({O}))

    kappa({O}) counts every subsequence of O (2^k - 1 with lambda = gamma = 1), so each
    term is the "effective length" of what O shares with judge i relative to O itself:
    1 when they agree, log2(k + 1) / k for the reverse. **Choice** (a better-founded
    normalisation; docs/methods.md, consensus section): the raw ratio kappa({O, O_i}) / kappa({O})
    is dominated by the longest subsequences and is ~0 for any real disagreement; the
    log ratio keeps a usable scale. With lambda or gamma < 1 a shared subsequence may
    weigh more than in O alone, so the mean is clipped to [0, 1].
    """

    def __init__(self, lam: float = 1.0, gamma: float = 1.0) -> None:
        self.lam, self.gamma = lam, gamma

    def _check_params(self) -> None:
        for name, value in (("lam", self.lam), ("gamma", self.gamma)):
            if not float(value) > 0:
                raise ValueError(f"{name} must be positive, got {value!r}")

    def leave_one_out_differences(self, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
        """ED terms; unweighted (lambda = gamma = 1) by batched DAG counting, else the generic loop."""
        humans = np.atleast_2d(np.asarray(humans, dtype=float))
        n, k = humans.shape
        allg = humans if noise is None or len(noise) == 0 else np.vstack([humans, np.asarray(noise, dtype=float)])
        if not (self.lam == 1 and self.gamma == 1):
            return generic_leave_one_out_differences(self, humans, allg[n:])
        big_n = len(allg)
        prec = precedence_matrices(np.vstack([allg, reverse_ranks(humans)]))  # rows: gold..., reversed humans
        # one DAG per (candidate, gold ordering): candidate i is O_i, candidate big_n + i is rev(O_i)
        candidates = np.stack([np.arange(n), big_n + np.arange(n)], axis=1).repeat(big_n)
        golds = np.tile(np.arange(big_n), 2 * n)
        masks = np.zeros((len(candidates), big_n + n), dtype=bool)
        masks[np.arange(len(candidates)), candidates] = True
        masks[np.arange(len(candidates)), golds] = True
        # minus 1: the empty sequence
        totals = count_paths_by_length(common_precedence(prec, masks)).sum(axis=1).astype(float) - 1.0
        logs = np.log2(1.0 + totals).reshape(n, 2, big_n)
        own = count_paths_by_length(prec[:n]).sum(axis=1).astype(float) - 1.0
        base = np.log2(1.0 + own)  # a reversed ordering has as many subsequences as the ordering
        others = ~np.eye(n, big_n, dtype=bool)
        scores = np.clip((logs * others[:, None, :]).sum(axis=2) / (big_n - 1) / base[:, None], 0.0, 1.0)
        return scores[:, 0] - scores[:, 1]

    def score(self, candidates: np.ndarray) -> np.ndarray:
        gold_pos = [dict(enumerate(row)) for row in self._fitted_gold()]
        out = []
        for row in np.atleast_2d(np.asarray(candidates, dtype=float)):
            own = dict(enumerate(row))
            base = log2_kappa_plus_one(consensus_measure([], self.lam, self.gamma, by_length=False, positions=[own]))
            terms = [
                log2_kappa_plus_one(consensus_measure([], self.lam, self.gamma, by_length=False,
                                                      positions=[own, g])) / base
                for g in gold_pos
            ]
            out.append(float(np.clip(np.mean(terms), 0.0, 1.0)))
        return np.array(out)
