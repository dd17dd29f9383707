"""Evaluation discriminativeness (ED) of an ordering scorer, leave one judge out.

    ED = (1/n) sum_i [ s(O_i; gold without O_i) - s(reverse(O_i); gold without O_i) ]

(Kim, Zhai, Han 2010, s.4; docs/methods.md, "Evaluation discriminativeness"), macro-averaged over sets.

With random (noise) orderings added to a set (s.5.4), ED averages either over every ordering of
the noisy set (``ed_over="all"``: each of the N = n + m orderings is held out in turn against
the N - 1 others) or over the n human judges only (``ed_over="judges"``: the random orderings
are gold standards only); docs/methods.md, "Noise", compares the two readings with the paper.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.ranks import as_rank_matrix, reverse_ranks


def leave_one_out_differences(scorer: Any, humans: np.ndarray, noise: np.ndarray | None = None) -> np.ndarray:
    """Per-judge terms s(O_i; others) - s(rev O_i; others), using a scorer's fast path if it has one."""
    humans = as_rank_matrix(humans)
    n, k = humans.shape
    if n < 2:
        raise ValueError(f"leave-one-judge-out needs at least 2 judges, got {n}")
    noise = np.empty((0, k)) if noise is None or len(noise) == 0 else as_rank_matrix(noise)
    check = getattr(scorer, "_check_params", None)
    if callable(check):  # the fast paths skip fit, so validate here
        check()
    fast = getattr(scorer, "leave_one_out_differences", None)
    if fast is not None:
        return checked_scores(scorer, fast(humans, noise), n)
    return generic_leave_one_out_differences(scorer, humans, noise)


#: which orderings of a noisy set ED averages over
ED_OVER = ("all", "judges")


def noisy_set_differences(scorer: Any, humans: np.ndarray, noise: np.ndarray | None,
                          ed_over: str = "all") -> np.ndarray:
    """Return the ED terms over the orderings ``ed_over`` names.

    The n humans' terms, then (``"all"``) each random ordering's, held out against the humans and
    the other random orderings.

    A scorer whose fast path takes ``judges_in_gold`` (FreSPA, whose threshold may count the
    human judges only) is told how many human judges each random ordering's gold set holds (n).
    """
    if ed_over not in ED_OVER:
        raise ValueError(f"ed_over must be one of {', '.join(ED_OVER)}, got {ed_over!r}")
    judges = leave_one_out_differences(scorer, humans, noise)
    if ed_over == "judges" or noise is None or len(noise) == 0:
        return judges
    humans, noise = as_rank_matrix(humans), as_rank_matrix(noise)
    fast = getattr(scorer, "leave_one_out_differences", None)
    if fast is None:
        randoms = generic_leave_one_out_differences(scorer, noise, humans)
    elif "judges_in_gold" in inspect.signature(fast).parameters:
        randoms = checked_scores(scorer, fast(noise, humans, judges_in_gold=len(humans)), len(noise))
    else:
        randoms = checked_scores(scorer, fast(noise, humans), len(noise))
    return np.concatenate([judges, randoms])


def generic_leave_one_out_differences(scorer: Any, humans: np.ndarray, noise: np.ndarray) -> np.ndarray:
    """Return the ED terms by refitting the scorer on each gold set (any scorer; the reference for fast paths)."""
    n = len(humans)
    reversed_humans = reverse_ranks(humans)
    out = np.empty(n)
    for i in range(n):
        gold = np.vstack([np.delete(humans, i, axis=0), noise])
        scorer.fit(gold)  # score on the scorer itself: a user's fit that forgets to return self still works
        s = checked_scores(scorer, scorer.score(np.vstack([humans[i], reversed_humans[i]])), 2)
        out[i] = s[0] - s[1]
    return out


def checked_scores(scorer: Any, scores: Any, n_candidates: int) -> np.ndarray:
    """``scores`` as a float vector of length ``n_candidates``; a clear error naming the scorer otherwise."""
    out = np.asarray(scores, dtype=float).reshape(-1)
    if out.shape != (n_candidates,):
        raise ValueError(f"scorer {type(scorer).__name__} returned {out.shape} scores for {n_candidates} candidates")
    return out


def evaluation_discriminativeness(scorer: Any, humans: np.ndarray, noise: np.ndarray | None = None) -> float:
    """ED of ``scorer`` on one set of human orderings (plus optional noise gold orderings)."""
    return float(np.mean(leave_one_out_differences(scorer, humans, noise)))


def ed_by_set(scorer: Any, panels: Mapping[str, np.ndarray],
              progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """ED per set (columns ``set_id, ed``) and their mean as a last row ``set_id = "mean"``.

    ``panels``: {set_id: (judges, items) rank matrix}; ``progress(done, total)`` is called
    after each set. The mean is the macro average the paper's Table 1 reports at noise 0.
    """
    if "mean" in map(str, panels):
        raise ValueError("a set may not be called 'mean': that row holds the mean over sets")
    rows = []
    for done, (set_id, humans) in enumerate(panels.items(), 1):
        rows.append((str(set_id), float(np.mean(leave_one_out_differences(scorer, humans)))))
        if progress is not None:
            progress(done, len(panels))
    eds = [ed for _, ed in rows]
    rows.append(("mean", float(np.mean(eds)) if eds else float("nan")))
    return pd.DataFrame(rows, columns=["set_id", "ed"])
