"""Dawid-Skene EM for categorical labels, vectorised over a long (COO) table of labels.

It is the core that the graded family's predictor of an unseen judge and the truth family's Dawid-Skene
methods (full and one-coin) both run on.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer
error-rates using the EM algorithm. Journal of the Royal Statistical Society, Series C
(Applied Statistics) 28(1), 20-28. doi:10.2307/2346806.

Every item i has an unobserved true class t in 0..K-1 drawn from the class priors p; judge
j, shown an item of true class t, says c with probability pi[j, t, c] (its confusion
matrix, each row a distribution over c). EM alternates, on the observed labels only:

- M-step (with ``smoothing`` = s pseudo-counts, i.e. a symmetric Dirichlet(1 + s) prior,
  so the estimate is the MAP one; s = 0 is the plain maximum-likelihood step of the paper):

      pi[j, t, c] = (sum_{e: judge_e = j, label_e = c} T[item_e, t] + s) / (sum_{e: judge_e = j} T[item_e, t] + K s)
      p[t]        = (sum_{i labelled} T[i, t] + s) / (n_labelled + K s)

- E-step, in log space:

      log T[i, t] = log p[t] + sum_{e: item_e = i} log pi[judge_e, t, label_e] - logsumexp_t(...)

starting from T = the per-item label proportions (the soft majority vote, the usual
starting point). Both steps are one product of the sparse (judge, label) x item count
matrix of the labels with a K-column array, so an iteration costs O(labels x K) however
sparse the panel is, with no Python loop over items or judges.

A judge may label the same item more than once (the paper's repeated responses): each
label is one entry. Items with no labels end with the priors as posteriors and do not
enter the priors' M-step (they carry no information, and including them would leave the
fixed point unchanged but slow convergence); judges with no labels keep the uniform
confusion 1/K (s / (K s); set to 1/K directly when s = 0). With s = 0 a confusion row with
no posterior mass at all is also set to 1/K.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from manyjudges.core.blocks import _on_blocks
from manyjudges.core.confusion_priors import (
    _check_count,
    _check_shape,
    _ConfusionShape,
    _one_coin_confusion,
    _shaped_counts,
)
from manyjudges.core.label_matrix import _item_class_counts, _row_block, label_matrix
from manyjudges.core.posteriors import _one_hot, posteriors_from_log_joint

__all__ = ["INITS", "DawidSkeneResult", "dawid_skene"]

INITS = ("majority", "hard_majority", "gold")
#: what a judge's confusion matrix is: ``full`` (K x K free rows) or ``one_coin`` (one accuracy, errors uniform)
_MODELS = ("full", "one_coin")
#: when EM stops: no posterior moves by ``tol``, or EM's objective (the log-likelihood at s = 0) gains less than
#: ``tol`` per label, or the log-likelihood per label moves by less than ``tol`` either way
_STOPS = ("posteriors", "log_likelihood", "mean_log_likelihood")
#: ``init="gold"``: every other item's starting posterior is this times 1/K in every class (no class favoured;
#: it only keeps every confusion cell a judge has labels for above 0 in the first M-step)
_GOLD_START = 1e-3
#: items whose posteriors the E-step computes at a time (a few MB of temporaries, whatever the number of items)
_E_STEP_ITEMS = 1 << 18


@dataclass(frozen=True)
class DawidSkeneResult:
    """The fitted model: the E-step posteriors and log-likelihood belong to these parameters."""

    #: (n_items, K) P(true class t | the item's labels); rows sum to 1
    posteriors: np.ndarray
    #: (n_judges, K, K) confusion[j, t, c] = P(judge j says c | true class t); rows sum to 1
    confusion: np.ndarray
    #: (K,) class priors
    priors: np.ndarray
    #: EM iterations run (one iteration = M-step then E-step)
    n_iter: int
    #: marginal log-likelihood log P(observed labels | priors, confusion), natural log
    log_likelihood: float
    #: True when EM stopped on its rule (``stop``: no posterior changed by ``tol`` or more, or the
    #: objective gained less than ``tol`` per label); False when ``max_iter`` iterations ran without it
    converged: bool

    @property
    def labels(self) -> np.ndarray:
        """Argmax of the posteriors per item (the lowest class on ties)."""
        return np.argmax(self.posteriors, axis=1)


def _as_index(name: str, x) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a one-dimensional array, got shape {a.shape}")
    if a.dtype.kind not in "iu":
        if a.size == 0 and a.dtype.kind == "f":  # np.asarray([]) is float64
            return a.astype(np.int64)
        raise ValueError(f"{name} must hold integers, got dtype {a.dtype}")
    return a if a.dtype in (np.int32, np.int64) else a.astype(np.int64)  # int32 codes stay int32 (no copy)


def _validate(item, judge, label, n_items, n_judges, n_classes, max_iter, tol, smoothing, init, model, stop):
    item, judge, label = _as_index("item", item), _as_index("judge", judge), _as_index("label", label)
    if not (len(item) == len(judge) == len(label)):
        raise ValueError("item, judge and label must have the same length, "
                         f"got {len(item)}, {len(judge)}, {len(label)}")
    if len(item) == 0:
        raise ValueError("no labels: item, judge and label are empty")
    for name, n, lo in (("n_items", n_items, 1), ("n_judges", n_judges, 1), ("n_classes", n_classes, 2)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {n!r}")
    for name, a, n in (("item", item, n_items), ("judge", judge, n_judges), ("label", label, n_classes)):
        bad = (a < 0) | (a >= n)
        if bad.any():
            raise ValueError(f"{name} index {int(a[bad][0])} outside 0..{n - 1} "
                             f"({int(bad.sum())} entries out of range)")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    for name, v in (("tol", tol), ("smoothing", smoothing)):
        _check_count(name, v)
    if init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}, got {init!r}")
    if model not in _MODELS:
        raise ValueError(f"model must be one of {', '.join(_MODELS)}, got {model!r}")
    if stop not in _STOPS:
        raise ValueError(f"stop must be one of {', '.join(_STOPS)}, got {stop!r}")
    return item, judge, label


def dawid_skene(item: np.ndarray, judge: np.ndarray, label: np.ndarray, *, n_items: int, n_judges: int,
                n_classes: int, max_iter: int = 100, tol: float = 1e-6, smoothing: float = 0.01, init: str = "majority",
                model: str = "full", stop: str = "posteriors", known: tuple[np.ndarray, np.ndarray] | None = None,
                diagonal: float = 0.0, mirror: tuple[int, ...] | None = None) -> DawidSkeneResult:
    """Dawid-Skene EM (Dawid & Skene 1979, Applied Statistics 28(1), 20-28) on long-format labels.

    From the starting posteriors (:func:`_start`), each iteration is one :func:`_m_step` (confusions and
    priors from the posteriors) then one :func:`_e_step` (posteriors from them), until the stopping rule
    holds or ``max_iter`` iterations ran (:func:`_iterate`).

    Parameters
    ----------
    item, judge, label : array of int
        One observed label per entry (0-based codes, equal lengths): judge ``judge[e]`` said ``label[e]``
        (0..n_classes-1) about item ``item[e]``. A judge may label an item more than once (each is one entry).
    n_items, n_judges, n_classes : int
        The numbers of items, judges and classes K (K >= 2).
    max_iter : int
        At most this many iterations (one iteration: M-step then E-step).
    tol : float
        The stopping threshold (``stop``).
    smoothing : float
        s pseudo-counts on every confusion cell and prior: MAP EM under a symmetric Dirichlet(1 + s) prior;
        s = 0 is the paper's maximum likelihood.
    init : {"majority", "hard_majority", "gold"}
        The starting posteriors: the per-item label shares (soft vote), one-hot on the most frequent labels
        (ties shared), or (with ``known``) the gold items one-hot and GOLD_START / K in every class elsewhere,
        so the first M-step learns the confusions and priors from the gold items.
    model : {"full", "one_coin"}
        A judge's confusion matrix: K x K free rows, or one accuracy with the errors spread uniformly.
    stop : {"posteriors", "log_likelihood", "mean_log_likelihood"}
        Stop after the first iteration whose E-step moves no posterior by ``tol`` or more, or whose objective
        (:func:`_objective`) gains less than ``tol`` per label (``tol * len(item)`` in all; crowd-kit's EM
        stops on a similar rule, on its own loss), or whose log-likelihood per label moves by less than ``tol``.
    known : tuple[ndarray, ndarray], optional
        Gold items and their classes (item codes, class codes; int arrays): their posteriors are one-hot on
        the class from the start and after every E-step (semi-supervised EM), and their term of the
        log-likelihood is log P(labels, class).
    diagonal, mirror : float, tuple of int, optional
        ``model="full"`` only (:class:`~manyjudges.core.confusion_priors._ConfusionShape`): d more pseudo-counts
        on each confusion diagonal (default 0), and a self-inverse relabelling m of the classes whose counts are
        added to the counts: cc[j, t, c] + cc[j, m(t), m(c)].

    Returns
    -------
    DawidSkeneResult
        The last M-step's confusions and priors, and the posteriors and log-likelihood (sum over labelled
        items of log sum_t priors[t] prod_labels confusion[judge, t, label]) of its E-step. With s > 0 EM
        never decreases log_likelihood + s * (sum of log confusion + sum of log priors); with s = 0 it never
        decreases log_likelihood.

    Raises
    ------
    ValueError
        For empty or mismatched inputs, non-integer or out-of-range indices, n_classes < 2, max_iter < 1, negative
        tol, smoothing or diagonal, an unknown init, model or stop, a bad mirror, or bad gold items.
    FloatingPointError
        When an item's labels have probability 0 under every class (possible only at s = 0).
    """
    item, judge, label = _validate(item, judge, label, n_items, n_judges, n_classes, max_iter, tol, smoothing, init,
                                   model, stop)
    k, n_items, n_judges = int(n_classes), int(n_items), int(n_judges)
    shape = _check_shape(k, model, diagonal, mirror)
    gold = _check_known(known, n_items, k, init)
    # the labels as a sparse item x (judge * K + label) count matrix L (M-step: L^T @ T; E-step: L @ log confusion)
    by_item = label_matrix(item, judge, label, n_items, n_judges, k)
    *start, labelled = _start(by_item, n_items, k, init, gold)  # [posteriors]: _iterate takes them out
    # the labelled items (a slice when all are: no masked copy of the per-item vectors)
    used: slice | np.ndarray = slice(None) if labelled.all() else labelled
    threshold = tol * len(item) if stop == "log_likelihood" else tol  # the objective's: a gain per label
    return _iterate(by_item, start, used, gold, max_iter=int(max_iter), tol=threshold, smoothing=float(smoothing),
                    model=model, stop=stop, shape=shape)


def _check_known(known: tuple[np.ndarray, np.ndarray] | None, n_items: int, k: int, init: str
                 ) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the gold items (item codes, class codes) as int64 arrays, checked.

    One class per item, each item once, codes in range; ``init="gold"`` needs at least one.
    """
    if init == "gold" and (known is None or len(known[0]) == 0):
        raise ValueError("init='gold' needs gold items (known)")
    if known is None:
        return None
    items, classes = (np.asarray(a, dtype=np.int64) for a in known)
    if len(items) != len(classes) or len(np.unique(items)) != len(items):
        raise ValueError("known: one class per gold item, each item once")
    if len(items) and (items.min() < 0 or items.max() >= n_items or classes.min() < 0 or classes.max() >= k):
        raise ValueError(f"known: gold items must be in 0..{n_items - 1} and classes in 0..{k - 1}")
    return items, classes


def _start(by_item: sparse.csr_matrix, n_items: int, k: int, init: str,
           known: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """Return (starting posteriors T transposed, (K, n_items); which items have labels).

    ``majority``: T[i, t] = n_it / n_i, the share of item i's labels equal to t (soft vote); ``hard_majority``:
    T[i, t] = [n_it = max_c n_ic] / #{c: n_ic = max_c n_ic}; ``gold``: T[i, t] = GOLD_START / K. An item with no
    labels starts at 1/K (``gold``: GOLD_START / K); a gold item at [t = its class].
    """
    counts = _item_class_counts(by_item, k)
    per_item = counts.sum(axis=0)
    labelled = per_item > 0
    if init == "hard_majority":
        counts = (counts == counts.max(axis=0)).astype(float)
        per_item = counts.sum(axis=0)
    if labelled.all():  # every item labelled: the shares in the counts' own memory
        post = counts
        post /= per_item
    else:
        post = np.full((k, n_items), 1.0 / k)  # T transposed: post[t, i]
        post[:, labelled] = counts[:, labelled] / per_item[labelled]
    if init == "gold":  # the first M-step sees the gold items, the others a faint uniform 1/K (GOLD_START)
        post[:] = _GOLD_START / k
    if known is not None:
        _one_hot(post, known)
    return post, labelled


def _iterate(by_item: sparse.csr_matrix, start: list[np.ndarray], used: slice | np.ndarray,
             known: tuple[np.ndarray, np.ndarray] | None, *, max_iter: int, tol: float, smoothing: float, model: str,
             stop: str, shape: _ConfusionShape | None = None) -> DawidSkeneResult:
    """Run EM from the posteriors ``start[0]`` (K, n_items), taken out of the list (so that they can go).

    Up to ``max_iter`` times :func:`_m_step` then :func:`_e_step`, stopping after the first iteration with
    max_i,t |T'[i, t] - T[i, t]| < tol (``stop="posteriors"``) or with an objective gain (:func:`_objective`)
    below ``tol`` (``"log_likelihood"``; ``tol`` is then the total over the labels; the first iteration
    always runs) or with |L_t - L_(t-1)| / n_labels < tol (``"mean_log_likelihood"``, L the log-likelihood, L_0 =
    -inf).
    """
    by_label = by_item.T  # a CSC view: no second copy of the labels
    post = start.pop()
    n_labels = float(by_item.data.sum())
    previous = -np.inf  # the objective (or log-likelihood per label) after the previous iteration
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 (the count is read after the loop)
        confusion, priors = _m_step(by_label, post, used, smoothing, model, shape)
        if stop == "mean_log_likelihood":
            post, log_z = _e_step(by_item, confusion, priors, known)
            current = float(log_z[used].sum()) / n_labels
            done = abs(current - previous) < tol
            previous = current
        elif stop == "log_likelihood":
            del post  # not needed past the M-step: one (K, n_items) array less at the E-step's peak
            post, log_z = _e_step(by_item, confusion, priors, known)
            current = _objective(log_z, used, confusion, priors, smoothing)
            done = current - previous < tol
            previous = current
        else:
            new_post, log_z = _e_step(by_item, confusion, priors, known)
            done = float(np.max(np.abs(new_post - post))) < tol
            post = new_post
        if done:
            converged = True
            break
    log_likelihood = float(log_z[used].sum())
    return DawidSkeneResult(np.ascontiguousarray(post.T), confusion, priors, n_iter, log_likelihood, converged)


def _m_step(by_label: sparse.csc_matrix, post: np.ndarray, used: slice | np.ndarray, smoothing: float, model: str,
            shape: _ConfusionShape | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(confusion (n_judges, K, K), priors (K,)) from the posteriors ``post`` (K, n_items), with s = ``smoothing``.

    With cc[j, t, c] = sum over j's labels equal to c of T[item, t] (one product of the labels' sparse
    (judge * K + label) x item matrix with T):

        confusion[j, t, c] = (cc[j, t, c] + s) / sum_c' (cc[j, t, c'] + s)        (``model="full"``)
        priors[t]          = (sum over labelled items i of T[i, t] + s) / (n_labelled + K s)

    A confusion row with no mass at all (a judge without labels at s = 0) is 1/K; ``model="one_coin"``:
    :func:`_one_coin_confusion`. With ``shape`` (the options ``diagonal`` d and ``mirror`` m of :func:`dawid_skene`):
    confusion[j, t, c] proportional to cc[j, t, c] + cc[j, m(t), m(c)] + s + d [t = c], and priors[t] to
    sum_i (T[i, t] + T[i, m(t)]) + s.
    """
    k = post.shape[0]
    n_judges = by_label.shape[0] // k
    counts = (by_label @ post.T).reshape(n_judges, k, k)  # counts[j, c, t] = cc[j, t, c]
    if model == "full":
        cc = counts.transpose(0, 2, 1) + smoothing if shape is None else _shaped_counts(counts, smoothing, shape)
        total = cc.sum(axis=2, keepdims=True)
        confusion = np.full_like(cc, 1.0 / k)
        np.divide(cc, total, out=confusion, where=total > 0)
    else:
        confusion = _one_coin_confusion(counts, smoothing)
    # summed in Fortran order, as a masked copy is laid out (the same sums, bit for bit, as with the mask)
    priors = np.asfortranarray(post[:, used]).sum(axis=1)
    if shape is not None and shape.mirror is not None:
        priors = priors + priors[shape.mirror]
    priors = priors + smoothing
    priors /= priors.sum()
    return confusion, priors


def _e_step(by_item: sparse.csr_matrix, confusion: np.ndarray, priors: np.ndarray,
            known: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """Return (posteriors T transposed, (K, n_items); log_z (n_items,)) under ``confusion`` and ``priors``.

    The formulas:

        log T[i, t] = log priors[t] + sum over i's labels of log confusion[judge, t, label] - log_z[i],
        log_z[i]    = logsumexp_t(log priors[t] + sum over i's labels of log confusion[judge, t, label])

    (:func:`posteriors_from_log_joint`; a gold item is one-hot on its class, log_z its joint term). The sums
    over the labels are one product of the labels' sparse item x (judge * K + label) matrix, made for
    :data:`_E_STEP_ITEMS` items at a time on every core (each item's sums and normalisation are its own: the
    same numbers, bit for bit, as one product's, a block's temporaries in place of the whole table's).
    """
    n_judges, k = confusion.shape[:2]
    with np.errstate(divide="ignore"):
        log_conf = np.log(confusion)
        log_prior = np.log(priors)
    table = log_conf.transpose(0, 2, 1).reshape(n_judges * k, k)
    n_items = by_item.shape[0]
    post = np.empty((n_items, k)).T  # (K, n_items), laid out as the transpose of one product's (n_items, K)
    log_z = np.empty(n_items)

    def block(items: slice) -> None:
        # joint[t, i] = sum over i's labels of log confusion[judge, t, label]
        rows = by_item if items.stop - items.start == n_items else _row_block(by_item, items.start, items.stop)
        joint = (rows @ table).T
        joint += log_prior[:, None]
        post[:, items], log_z[items] = posteriors_from_log_joint(joint, _known_in(known, items))

    _on_blocks(block, n_items, _E_STEP_ITEMS)
    return post, log_z


def _known_in(known: tuple[np.ndarray, np.ndarray] | None, items: slice) -> tuple[np.ndarray, np.ndarray] | None:
    """Return the gold items among the positions ``items``, counted from its start, and their classes."""
    if known is None:
        return None
    inside = (known[0] >= items.start) & (known[0] < items.stop)
    return known[0][inside] - items.start, known[1][inside]


def _objective(log_z: np.ndarray, used: slice | np.ndarray, confusion: np.ndarray, priors: np.ndarray,
               smoothing: float) -> float:
    """Return what EM increases.

    That is the log-likelihood sum over labelled items of log_z[i] at s = 0, and at s > 0 (every entry > 0)
    log-likelihood + s * (sum_j,t,c log confusion[j, t, c] + sum_t log priors[t]).
    """
    value = float(log_z[used].sum())
    if smoothing > 0:
        value += smoothing * (float(np.log(confusion).sum()) + float(np.log(priors).sum()))
    return value


