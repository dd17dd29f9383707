"""A simulated crowd-labelled set with known truth: Dawid and Skene's generative model.

Each item's true class is drawn from the class priors (uniform unless given); each item gets
``labels_per_item`` labels from distinct judges drawn uniformly. A judge is ``good`` (says the
truth with probability ``good_accuracy``, otherwise a uniformly drawn other class), ``random``
(a uniformly drawn class, whatever the truth) or ``biased`` (says class 0 with probability
``bias``, else the truth), in the shares of ``judge_mix``. With ``ordinal`` labels a good
judge's errors fall on the neighbouring classes (one step up or down, clipped to 0..K-1), as
graders of an ordinal scale err. Every draw comes from ``rng``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import nullcontext

import numpy as np
import pandas as pd

__all__ = ["JUDGE_KINDS", "simulate_labels"]

JUDGE_KINDS = ("good", "random", "biased")


def _judge_kinds(rng: np.random.Generator, n_judges: int, mix: Mapping[str, float]) -> np.ndarray:
    unknown = sorted(set(mix) - set(JUDGE_KINDS))
    if unknown:
        raise ValueError(f"judge_mix: unknown judge kinds {unknown}; known: {', '.join(JUDGE_KINDS)}")
    shares = np.array([float(mix.get(k, 0.0)) for k in JUDGE_KINDS])
    if (shares < 0).any() or shares.sum() <= 0:
        raise ValueError(f"judge_mix needs non-negative shares with a positive sum, got {dict(mix)!r}")
    counts = np.floor(shares / shares.sum() * n_judges).astype(int)
    counts[0] += n_judges - counts.sum()  # the rounding remainder goes to the good judges
    return rng.permutation(np.repeat(np.arange(len(JUDGE_KINDS)), counts))


def simulate_labels(rng: np.random.Generator, n_items: int = 500, n_judges: int = 30, labels_per_item: int = 5,
                    n_classes: int = 3, judge_mix: Mapping[str, float] | None = None, good_accuracy: float = 0.75,
                    bias: float = 0.6, ordinal: bool = False, workload_skew: float = 0.0
                    ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(labels ``item, judge, label``; truth ``item, truth``; judges ``judge, kind``).

    Item ids are ``i0001``..., judge ids ``w001``...; labels are class codes 0..K-1.
    ``workload_skew`` s > 0 makes a crowd's uneven workload: judge j (from 0) is drawn with weight
    (j + 1)^-s (an item's judges drawn without replacement, by Gumbel top-k), so a few judges label
    thousands of items and most a handful; 0 draws them uniformly.
    """
    if not 1 <= labels_per_item <= n_judges:
        raise ValueError(f"labels_per_item must be in 1..n_judges ({n_judges}), got {labels_per_item}")
    if n_classes < 2 or n_items < 1:
        raise ValueError(f"need n_classes >= 2 and n_items >= 1, got {n_classes}, {n_items}")
    mix = judge_mix or {"good": 0.8, "random": 0.1, "biased": 0.1}
    kinds = _judge_kinds(rng, n_judges, mix)
    truth = rng.integers(0, n_classes, n_items)
    # labels_per_item distinct judges per item: the first columns of a random permutation per item
    u = rng.random((n_items, n_judges))
    if workload_skew > 0:  # the smallest -log w_j + Gumbel draws: weighted draws without replacement
        u = workload_skew * np.log1p(np.arange(n_judges))[None, :] + np.log(-np.log(u))
    judges = np.argsort(u, axis=1)[:, :labels_per_item]
    t = np.repeat(truth, labels_per_item)
    w = judges.ravel()
    kind = kinds[w]
    u = rng.random(len(w))
    if ordinal:
        step = np.where(rng.random(len(w)) < 0.5, -1, 1)
        wrong = np.clip(t + step, 0, n_classes - 1)
        wrong = np.where(wrong == t, t - step, wrong)  # at an end, the one neighbour there is
    else:
        wrong = (t + rng.integers(1, n_classes, len(w))) % n_classes
    label = np.where(u < good_accuracy, t, wrong)
    label = np.where(kind == 1, rng.integers(0, n_classes, len(w)), label)
    label = np.where(kind == 2, np.where(u < bias, 0, t), label)
    item_ids = np.array([f"i{i + 1:04d}" for i in range(n_items)])
    judge_ids = np.array([f"w{j + 1:03d}" for j in range(n_judges)])
    labels = pd.DataFrame({"item": np.repeat(item_ids, labels_per_item), "judge": judge_ids[w],
                           "label": label.astype(np.int64)})
    return (labels, pd.DataFrame({"item": item_ids, "truth": truth.astype(np.int64)}),
            pd.DataFrame({"judge": judge_ids, "kind": np.array(JUDGE_KINDS)[kinds]}))


def _write_simulated_labels(labels_path: str | os.PathLike[str], truth_path: str | os.PathLike[str] | None = None,
                           n_items: int = 10_000_000, labels_per_item: int = 10, n_judges: int = 1000,
                           n_classes: int = 2, accuracy: tuple[float, float] = (0.55, 0.95), seed: int = 0,
                           chunk_items: int = 1_000_000) -> None:
    """Write a large simulated labels table (``item, judge, label``, integer ids and codes) straight to disk.

    The labels go to ``labels_path`` (and ``item, truth`` to ``truth_path``), a block of ``chunk_items`` items
    at a time.

    The default is the shape of spark-crowd's binary4 set: 10M items x 10 labels, 2 classes, 100M
    labels. Item i's true class is uniform; its labels come from the judges ``(s_i + j) mod
    n_judges``, j < ``labels_per_item``, for a uniform start s_i (so no pair repeats); judge w says the
    truth with probability a_w ~ U(``accuracy``), else a uniformly drawn other class (the one-coin
    model). Every draw comes from ``numpy.random.default_rng(seed)``; the files are written atomically.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from manyjudges.core.atomic import atomic_file

    if not 1 <= labels_per_item <= n_judges or n_classes < 2 or n_items < 1:
        raise ValueError(f"need 1 <= labels_per_item <= n_judges, n_classes >= 2 and n_items >= 1, got "
                         f"{labels_per_item}, {n_judges}, {n_classes}, {n_items}")
    rng = np.random.default_rng(seed)
    skill = rng.uniform(accuracy[0], accuracy[1], n_judges)
    options = pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    with atomic_file(labels_path, "wb") as labels_out, \
            (atomic_file(truth_path, "wb") if truth_path is not None else nullcontext()) as truth_out:
        labels_out.write(b"item\tjudge\tlabel\n")
        if truth_out is not None:
            truth_out.write(b"item\ttruth\n")
        for first in range(0, n_items, chunk_items):
            n = min(chunk_items, n_items - first)
            truth = rng.integers(0, n_classes, n)
            start = rng.integers(0, n_judges, n)
            judge = (start[:, None] + np.arange(labels_per_item)[None, :]) % n_judges
            t = np.repeat(truth, labels_per_item)
            w = judge.ravel()
            wrong = (t + rng.integers(1, n_classes, len(w))) % n_classes
            label = np.where(rng.random(len(w)) < skill[w], t, wrong)
            item = np.repeat(np.arange(first, first + n, dtype=np.int64), labels_per_item)
            pacsv.write_csv(pa.table({"item": item, "judge": w.astype(np.int32), "label": label.astype(np.int8)}),
                            labels_out, write_options=options)
            if truth_out is not None:
                pacsv.write_csv(pa.table({"item": np.arange(first, first + n, dtype=np.int64),
                                          "truth": truth.astype(np.int8)}), truth_out, write_options=options)
