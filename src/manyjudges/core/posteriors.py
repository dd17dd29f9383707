"""Posteriors from unnormalised log joint probabilities: the E-step every label model ends with.

The Dawid-Skene EM (:mod:`manyjudges.core.dawid_skene_em`), and the truth family's MACE, GLAD and ordinal
models, each compute log P(item's labels, class) and normalise it here, with gold items pinned to their
known class.
"""
from __future__ import annotations

import numpy as np

__all__ = ["posteriors_from_log_joint"]

#: log-space gap below a row's maximum past which a posterior term is set to exactly 0 (exp(-700) ~ 1e-304)
_UNDERFLOW = -700.0


def posteriors_from_log_joint(joint: np.ndarray, known: tuple[np.ndarray, np.ndarray] | None = None
                              ) -> tuple[np.ndarray, np.ndarray]:
    """(posteriors, log normalisers) of unnormalised log joint probabilities, one column per item.

    ``joint[t, i]`` = log P(item i's labels, class t); returns ``post[t, i]`` = the same normalised over t
    (softmax down each column) and ``log_z[i]`` = log sum_t exp(joint[t, i]). Terms more than 700 nats
    (UNDERFLOW) below their column's largest are set to exactly 0 instead of computed as (slow, irrelevant)
    subnormals. ``joint`` is overwritten: ``post`` is made in its memory.

    ``known = (items, classes)``: gold items, whose posteriors are one-hot on their class,
    post[t, i] = [t = c_i], and whose log normaliser is the joint term log_z[i] = joint[c_i, i] =
    log P(labels, c_i) (the semi-supervised objective counts them with their known class).

    Raises ``FloatingPointError`` when a column has no finite largest term (an item whose labels have
    probability 0 under every class).
    """
    top = _column_max(joint)
    if not np.isfinite(top).all():
        raise FloatingPointError("an item's labels have probability 0 under every class; use smoothing > 0")
    gold_terms = None if known is None else joint[known[1], known[0]]
    joint -= top
    keep = joint > _UNDERFLOW
    np.exp(joint, out=joint, where=keep)  # the posteriors are made in the joint's own memory
    np.copyto(joint, 0.0, where=~keep)
    post = joint
    total = _column_sum(post) if len(post) < 8 else post.sum(axis=0)
    post /= total
    log_z = top + np.log(total)
    if known is not None:
        _one_hot(post, known)
        log_z[known[0]] = gold_terms
    return post, log_z


def _one_hot(post: np.ndarray, known: tuple[np.ndarray, np.ndarray]) -> None:
    """Set the gold items' posteriors (columns of ``post``, (K, n_items)) to T[i, t] = [t = c_i], in place."""
    items, classes = known
    post[:, items] = 0.0
    post[classes, items] = 1.0


def _column_sum(values: np.ndarray) -> np.ndarray:
    """Return (n,) the sum of each column of ``values`` (K, n): ``values.sum(axis=0)`` exactly.

    Computed as K - 1 element-wise additions: for K < 8 the terms in the order numpy's reduction adds them
    (so the same floats, whatever the layout; from 8 terms on numpy adds pairwise when a column's values are
    adjacent in memory, so callers use it for K < 8 only), without its slow pass over K adjacent values.
    """
    total = values[0].copy()
    for t in range(1, len(values)):
        total += values[t]
    return total


def _column_max(values: np.ndarray) -> np.ndarray:
    """Return (n,) the largest value of each column of ``values`` (K, n): ``values.max(axis=0)`` exactly.

    Computed as K - 1 element-wise passes (when each column's K values are adjacent in memory, numpy's
    reduction over them runs several hundred times slower).
    """
    top = values[0].copy()
    for t in range(1, len(values)):
        np.maximum(top, values[t], out=top)
    return top
