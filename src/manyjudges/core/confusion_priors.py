"""The Dawid-Skene M-step's priors on the confusion matrices (:mod:`~manyjudges.core.dawid_skene_em`).

The full model's extra prior (:class:`_ConfusionShape`: pseudo-counts on the diagonal, a mirror relabelling
of the classes; checked by :func:`_check_shape`, added by :func:`_shaped_counts`) and the one-coin model's
confusions (:func:`_one_coin_confusion`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class _ConfusionShape:
    """The full model's extra prior: ``pseudo`` = d I (the ``diagonal`` counts), the ``mirror`` (or None).

    ``diagonal`` d: more pseudo-counts on every confusion matrix's diagonal, a Dirichlet prior leaning to "the
    judge says the true class", which breaks the label-switching symmetry of a judge nobody else overlaps.
    ``mirror`` m: a relabelling of the classes (a permutation, its own inverse) under which the model is the
    same, e.g. ``(1, 0, 2)`` for pair labels "first item preferred, second, tie" when which item of a pair is
    first is arbitrary: every M-step count is added to its mirror image, cc[j, t, c] + cc[j, m(t), m(c)], and
    so is every prior count, before the pseudo-counts. The stop ``"mean_log_likelihood"`` (EMeloRating's):
    |L_t - L_(t-1)| / n_labels < tol, L the log-likelihood.
    """

    pseudo: float | np.ndarray
    mirror: np.ndarray | None


def _check_count(name: str, value: object) -> None:
    """Raise a ValueError naming ``name`` unless ``value`` is a finite number >= 0."""
    try:
        ok = np.isfinite(float(value)) and float(value) >= 0  # type: ignore[arg-type]
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")


def _check_shape(k: int, model: str, diagonal: float, mirror: tuple[int, ...] | None) -> _ConfusionShape | None:
    """Return the extra prior of ``diagonal`` and ``mirror`` (None: neither), checked.

    ``diagonal`` a finite number >= 0, ``mirror`` a permutation of 0..K-1 that is its own inverse; both need
    ``model="full"``. The pseudo-counts s + d I are added in one sum, as EMeloRating adds them.
    """
    _check_count("diagonal", diagonal)
    if not diagonal and mirror is None:
        return None
    if model != "full":
        raise ValueError("diagonal and mirror need model='full'")
    perm = None if mirror is None else np.asarray(mirror, dtype=np.int64)
    if perm is not None and (sorted(perm.tolist()) != list(range(k)) or not (perm[perm] == np.arange(k)).all()):
        raise ValueError(f"mirror must be a permutation of 0..{k - 1} that is its own inverse, got {mirror!r}")
    return _ConfusionShape(float(diagonal) * np.eye(k), perm)


def _shaped_counts(counts: np.ndarray, smoothing: float, shape: _ConfusionShape) -> np.ndarray:
    """Return cc[j, t, c] + cc[j, m(t), m(c)] + (s + d [t = c]), from ``counts[j, c, t]`` = cc[j, t, c].

    The mirror image is added first (no ``mirror``: nothing), then the pseudo-counts, in one array s + d I.
    """
    cc = counts.transpose(0, 2, 1)
    if shape.mirror is not None:
        cc = cc + cc[:, shape.mirror][:, :, shape.mirror]
    return cc + (smoothing + shape.pseudo)


def _one_coin_confusion(cc: np.ndarray, s: float) -> np.ndarray:
    """Run the one-coin M-step, returning the (n_judges, K, K) confusions.

    cc[j, c, t] = sum of T[item, t] over j's labels equal to c (either orientation: only the diagonal and
    its complement are read).

    With R[j] = sum_t cc[j, t, t] (j's posterior mass on its own labels) and W[j] = sum_{t != c} cc[j, t, c]
    (the rest, summed directly, not as n_j - R[j]), under the same Dirichlet(1 + s) prior on each row:

        confusion[j, t, t] = (R[j] + K s) / (R[j] + W[j] + K^2 s)
        confusion[j, t, c != t] = (W[j] + K (K - 1) s) / ((R[j] + W[j] + K^2 s) (K - 1))

    (a judge with no mass at all gets 1/K everywhere).
    """
    k = cc.shape[1]
    off_diagonal = ~np.eye(k, dtype=bool)
    right = np.trace(cc, axis1=1, axis2=2) + k * s
    wrong = cc[:, off_diagonal].sum(axis=1) + k * (k - 1) * s
    total = right + wrong
    has = total > 0
    accuracy = np.full(len(cc), 1.0 / k)
    error = np.full(len(cc), 1.0 / k)
    np.divide(right, total, out=accuracy, where=has)
    np.divide(wrong, total * (k - 1), out=error, where=has)
    confusion = np.repeat(error[:, None], k * k, axis=1).reshape(-1, k, k)
    confusion[:, np.arange(k), np.arange(k)] = accuracy[:, None]
    return confusion

