"""``simulate`` crowd source: pairwise preferences with a known truth and known judge kinds.

Per topic: a hidden latent score per item (standard normal, i.i.d., so the item ids
``i01, i02, ...`` are in a uniformly random order with respect to the truth); truth grades
``0 .. n_grades - 1`` by quantiles of the latent score (grade = floor(n_grades * rank / n),
rank 0-based ascending, so the grade groups have equal sizes up to rounding). Judges get
a kind by ``judge_mix`` (exact counts by largest-remainder rounding, then shuffled):

- ``good``: answers each pair correctly (the item with the higher latent score) with
  probability ``good_accuracy``, independently (a constant-accuracy model, not Thurstonian);
- ``random``: a fair coin;
- ``malicious``: always the item with the lower latent score.

Each judge labels ``pairs_per_judge`` distinct pairs, uniformly at random among all
``n (n - 1) / 2``, each shown in a random left/right orientation; nobody answers "tie".
Since grades are monotone in the latent score, on pairs with different grades a good
judge's eq (18) accuracy is ``good_accuracy`` in expectation, a random one's 1/2, a
malicious one's 0.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from manyjudges.core.random_streams import distinct_draws

JUDGE_KINDS = ("good", "random", "malicious")


def kind_counts(judge_mix: Mapping[str, float], n_judges: int) -> np.ndarray:
    """Return the judges per kind (order of :data:`JUDGE_KINDS`): the mix's shares of ``n_judges``.

    Rounded by largest remainder so the counts sum to ``n_judges`` (remainder ties: kind order).
    """
    unknown = set(judge_mix) - set(JUDGE_KINDS)
    if unknown:
        raise ValueError(f"unknown judge kinds {sorted(unknown)}; known: {', '.join(JUDGE_KINDS)}")
    weights = np.array([float(judge_mix.get(k, 0.0)) for k in JUDGE_KINDS])
    if (weights < 0).any() or weights.sum() <= 0:
        raise ValueError(f"judge_mix weights must be >= 0 with a positive sum, got {dict(judge_mix)}")
    exact = n_judges * weights / weights.sum()
    counts = np.floor(exact).astype(int)
    extra = np.argsort(-(exact - counts), kind="stable")[: n_judges - counts.sum()]
    counts[extra] += 1
    return counts


def _ids(prefix: str, n: int) -> np.ndarray:
    width = max(2, len(str(n)))
    return np.array([f"{prefix}{i:0{width}d}" for i in range(1, n + 1)], dtype=object)


def simulate_crowd(rng: np.random.Generator | int, n_topics: int, n_items: int, n_judges: int,
                   pairs_per_judge: int, judge_mix: Mapping[str, float], good_accuracy: float,
                   n_grades: int = 5) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Simulate crowd preferences (see the module docstring for the model).

    Parameters
    ----------
    rng : numpy.random.Generator or int
        A numpy Generator (or a seed); the output is a deterministic function of its state.
    n_topics, n_items, n_judges : int
        Topics, items per topic, judges per topic.
    pairs_per_judge : int
        Distinct pairs each judge labels (at most n_items (n_items - 1) / 2).
    judge_mix : mapping
        Weights of ``"good"``, ``"random"``, ``"malicious"`` (normalised; missing = 0).
    good_accuracy : float
        Probability that a good judge prefers the truly better item.
    n_grades : int
        Number of truth grades.

    Returns
    -------
    preferences : pandas.DataFrame
        ``topic, judge, left, right, outcome`` (outcome ``"left"`` / ``"right"``).
    truth : pandas.DataFrame
        ``topic, item, grade`` (every item).
    judges : pandas.DataFrame
        ``topic, judge, kind``.

    Notes
    -----
    Topic ids are ``t01, ...``, item ids ``i01, ...`` (per topic), judge ids
    ``<topic>_w01, ...``: each topic has its own judges.
    """
    rng = np.random.default_rng(rng)
    if n_topics < 1 or n_judges < 1 or n_grades < 1:
        raise ValueError("n_topics, n_judges and n_grades must be >= 1")
    if n_items < 2:
        raise ValueError(f"n_items must be >= 2, got {n_items}")
    all_pairs = n_items * (n_items - 1) // 2
    if not 1 <= pairs_per_judge <= all_pairs:
        raise ValueError(f"pairs_per_judge must lie in [1, {all_pairs}] for {n_items} items, got {pairs_per_judge}")
    if not 0.0 <= good_accuracy <= 1.0:
        raise ValueError(f"good_accuracy must lie in [0, 1], got {good_accuracy}")
    counts = kind_counts(judge_mix, n_judges)
    pair_a, pair_b = np.triu_indices(n_items, k=1)
    items = _ids("i", n_items)
    prefs, truths, kinds = [], [], []
    for topic in _ids("t", n_topics):
        latent = rng.standard_normal(n_items)
        grade = (n_grades * np.argsort(np.argsort(latent, kind="stable"), kind="stable")) // n_items
        kind = rng.permutation(np.repeat(np.arange(len(JUDGE_KINDS)), counts))
        judges = _ids(f"{topic}_w", n_judges)
        pick = distinct_draws(rng, n_judges, all_pairs, pairs_per_judge).ravel()
        flip = rng.random(pick.size) < 0.5
        left = np.where(flip, pair_b[pick], pair_a[pick])
        right = np.where(flip, pair_a[pick], pair_b[pick])
        truly_left = latent[left] > latent[right]
        judge_kind = np.repeat(kind, pairs_per_judge)
        u = rng.random(pick.size)
        says_correct = np.select([judge_kind == 0, judge_kind == 1], [u < good_accuracy, u < 0.5], False)
        says_left = truly_left == says_correct
        prefs.append(pd.DataFrame({"topic": topic, "judge": np.repeat(judges, pairs_per_judge),
                                   "left": items[left], "right": items[right],
                                   "outcome": np.where(says_left, "left", "right")}))
        truths.append(pd.DataFrame({"topic": topic, "item": items, "grade": grade.astype(np.int64)}))
        kinds.append(pd.DataFrame({"topic": topic, "judge": judges,
                                   "kind": np.asarray(JUDGE_KINDS, dtype=object)[kind]}))
    return (pd.concat(prefs, ignore_index=True), pd.concat(truths, ignore_index=True),
            pd.concat(kinds, ignore_index=True))
