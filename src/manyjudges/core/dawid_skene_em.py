"""Dawid-Skene EM for categorical labels, vectorised over a long (COO) table of labels: the core
that the graded family's predictor of an unseen judge and the truth family's Dawid-Skene methods
(full and one-coin) both run on.

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

__all__ = ["GOLD_START", "INITS", "MODELS", "STOPS", "UNDERFLOW", "DawidSkeneResult", "dawid_skene", "label_matrix"]

INITS = ("majority", "hard_majority", "gold")
#: what a judge's confusion matrix is: ``full`` (K x K free rows) or ``one_coin`` (one accuracy, errors uniform)
MODELS = ("full", "one_coin")
#: when EM stops: no posterior moves by ``tol``, or EM's objective (the log-likelihood at s = 0) gains less than
#: ``tol`` per label
STOPS = ("posteriors", "log_likelihood")
#: ``init="gold"``: every other item's starting posterior is this times 1/K in every class (no class favoured;
#: it only keeps every confusion cell a judge has labels for above 0 in the first M-step)
GOLD_START = 1e-3
#: log-space gap below a row's maximum past which a posterior term is set to exactly 0 (exp(-700) ~ 1e-304)
UNDERFLOW = -700.0


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
        """argmax of the posteriors per item (the lowest class on ties)."""
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


def _validate(item, judge, label, n_items, n_judges, n_labels, max_iter, tol, smoothing, init, model, stop):
    item, judge, label = _as_index("item", item), _as_index("judge", judge), _as_index("label", label)
    if not (len(item) == len(judge) == len(label)):
        raise ValueError("item, judge and label must have the same length, "
                         f"got {len(item)}, {len(judge)}, {len(label)}")
    if len(item) == 0:
        raise ValueError("no labels: item, judge and label are empty")
    for name, n, lo in (("n_items", n_items, 1), ("n_judges", n_judges, 1), ("n_labels", n_labels, 2)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
            raise ValueError(f"{name} must be an integer >= {lo}, got {n!r}")
    for name, a, n in (("item", item, n_items), ("judge", judge, n_judges), ("label", label, n_labels)):
        bad = (a < 0) | (a >= n)
        if bad.any():
            raise ValueError(f"{name} index {int(a[bad][0])} outside 0..{n - 1} "
                             f"({int(bad.sum())} entries out of range)")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    for name, v in (("tol", tol), ("smoothing", smoothing)):
        try:
            ok = np.isfinite(float(v)) and float(v) >= 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    if init not in INITS:
        raise ValueError(f"init must be one of {', '.join(INITS)}, got {init!r}")
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    if stop not in STOPS:
        raise ValueError(f"stop must be one of {', '.join(STOPS)}, got {stop!r}")
    return item, judge, label


def label_matrix(item: np.ndarray, judge: np.ndarray, label: np.ndarray, n_items: int, n_judges: int,
                 n_labels: int) -> sparse.csr_matrix:
    """(n_items, n_judges * K) CSR count matrix: entry (i, j K + c) = how many times judge j said c about
    item i. Built by scipy's O(n) COO-to-CSR pass (repeats summed, each row's columns sorted, so the
    matrix, and every sum over it, does not depend on the order of the labels); 12 bytes a label
    (float64 count, int32 column). Its transpose ``.T`` is a CSC view of the same arrays."""
    columns = judge * n_labels + label
    if columns.dtype != item.dtype:
        columns = columns.astype(np.int64)
    counts = sparse.coo_matrix((np.ones(len(item)), (item, columns)), shape=(n_items, n_judges * n_labels))
    del columns
    return counts.tocsr()


def dawid_skene(
    item: np.ndarray,
    judge: np.ndarray,
    label: np.ndarray,
    *,
    n_items: int,
    n_judges: int,
    n_labels: int,
    max_iter: int = 100,
    tol: float = 1e-6,
    smoothing: float = 0.01,
    init: str = "majority",
    model: str = "full",
    stop: str = "posteriors",
    known: tuple[np.ndarray, np.ndarray] | None = None,
) -> DawidSkeneResult:
    """Dawid-Skene EM (Dawid & Skene 1979, Applied Statistics 28(1), 20-28) on long-format labels.

    ``item[e]``, ``judge[e]``, ``label[e]`` (0-based ints, equal lengths) is one observed
    label: judge ``judge[e]`` said ``label[e]`` (0..n_labels-1) about item ``item[e]``.

    Starting posteriors T: ``init="majority"`` the per-item label proportions (soft vote),
    ``"hard_majority"`` one-hot on the most frequent label (ties shared equally), ``"gold"`` (with
    ``known``) one-hot on the gold items and 1e-3 / K in every class elsewhere, so the first M-step
    learns the judges' confusions and the priors from the gold items (a judge with no gold item gets
    about 1/K). Then each
    iteration is

        M-step  confusion[j, t, c] = (sum over j's labels equal to c of T[item, t] + s) / row total
                priors[t]         = (sum over labelled items of T[i, t] + s) / (n_labelled + K s)
        E-step  log T[i, t] = log priors[t] + sum over i's labels of log confusion[judge, t, label],
                normalised over t with logsumexp

    with s = ``smoothing`` (pseudo-counts: MAP EM under a symmetric Dirichlet(1 + s) prior;
    s = 0 is plain maximum likelihood). It stops after the first iteration whose E-step
    changes no posterior by ``tol`` or more (``converged=True``), or after ``max_iter``
    iterations. The returned posteriors and ``log_likelihood`` (sum over labelled items of
    log sum_t priors[t] prod_labels confusion[judge, t, label]) are those of the returned
    priors and confusion. With s > 0 EM never decreases log_likelihood + s * (sum of
    log confusion + sum of log priors); with s = 0 it never decreases log_likelihood.
    A posterior term below exp(-700) times its item's largest term is set to exactly 0
    (it cannot change any sum; computing it as a subnormal would only be slow).

    ``model="one_coin"`` ties each judge's confusion matrix to one accuracy a[j]: pi[j, t, t] = a[j]
    and pi[j, t, c] = (1 - a[j]) / (K - 1) for c != t (the one-coin model). Its M-step maximises the
    same objective under that constraint: with R[j] = sum_t cc[j, t, t] (j's posterior mass on its
    own labels) and W[j] = sum_{t != c} cc[j, t, c] (the rest, summed directly, not as n_j - R[j]),

        a[j] = (R[j] + K s) / (R[j] + W[j] + K^2 s)
        pi[j, t, c != t] = (W[j] + K (K - 1) s) / ((R[j] + W[j] + K^2 s) (K - 1))

    (the same Dirichlet(1 + s) prior on each confusion row; a judge with no labels gets 1/K).

    ``stop="log_likelihood"`` stops instead after the first iteration whose objective gains less
    than ``tol`` per label (``tol * len(item)`` in all; the first iteration always runs): the
    objective EM increases, log_likelihood at s = 0, log_likelihood + s * (sum of log confusion +
    sum of log priors) at s > 0 (with either model: the one-coin matrix's K x K entries are summed).
    Crowd-kit's EM stops on a similar rule, on its own loss.

    ``known = (items, classes)``: gold items whose true class is given. Their posteriors are
    one-hot on it from the start and after every E-step, so the M-step learns the judges'
    confusions and the priors from them too (semi-supervised EM), and their term of the
    log-likelihood is the joint log P(labels, class) instead of the marginal.

    Raises ``ValueError`` for empty or mismatched inputs, non-integer or out-of-range
    indices, n_labels < 2, max_iter < 1, negative tol or smoothing, or an unknown init,
    model or stop.
    """
    item, judge, label = _validate(item, judge, label, n_items, n_judges, n_labels, max_iter, tol, smoothing, init,
                                   model, stop)
    k = int(n_labels)
    n_items, n_judges = int(n_items), int(n_judges)
    # The labels as a sparse (judge * K + label) x item count matrix L: the M-step's sums are
    # L @ T and the E-step's L^T @ log confusion, each O(labels x K) (a repeated label counts twice).
    by_item = label_matrix(item, judge, label, n_items, n_judges, k)
    by_label = by_item.T  # a CSC view: no second copy of the labels

    counts = np.bincount(label * n_items + item, minlength=k * n_items).reshape(k, n_items).astype(float)
    per_item = counts.sum(axis=0)
    labelled = per_item > 0
    if init == "hard_majority":
        counts = (counts == counts.max(axis=0)).astype(float)
        per_item = counts.sum(axis=0)
    post = np.full((k, n_items), 1.0 / k)  # T transposed: post[t, i]
    post[:, labelled] = counts[:, labelled] / per_item[labelled]
    if init == "gold":  # the first M-step sees the gold items, the others a faint uniform 1/K (GOLD_START)
        if known is None or len(known[0]) == 0:
            raise ValueError("init='gold' needs gold items (known)")
        post[:] = GOLD_START / k
    if known is not None:
        known_items, known_classes = (np.asarray(a, dtype=np.int64) for a in known)
        if len(known_items) != len(known_classes) or len(np.unique(known_items)) != len(known_items):
            raise ValueError("known: one class per gold item, each item once")
        if len(known_items) and (known_items.min() < 0 or known_items.max() >= n_items or known_classes.min() < 0
                                 or known_classes.max() >= k):
            raise ValueError(f"known: gold items must be in 0..{n_items - 1} and classes in 0..{k - 1}")
        post[:, known_items] = 0.0
        post[known_classes, known_items] = 1.0
    # the labelled items (a slice when all are: no masked copy of the per-item vectors)
    used = slice(None) if labelled.all() else labelled

    s = float(smoothing)
    n_entries = len(item)
    previous = -np.inf  # the log-likelihood of the previous iteration (stop="log_likelihood")
    off_diagonal = ~np.eye(k, dtype=bool)
    converged = False
    n_iter = 0
    for n_iter in range(1, int(max_iter) + 1):  # noqa: B007 (the count is read after the loop)
        # M-step
        # cc[j, t, c] = sum over j's labels equal to c of T[item, t]
        if model == "full":
            cc = (by_label @ post.T).reshape(n_judges, k, k).transpose(0, 2, 1) + s
            total = cc.sum(axis=2, keepdims=True)
            confusion = np.full_like(cc, 1.0 / k)
            np.divide(cc, total, out=confusion, where=total > 0)
        else:
            confusion = _one_coin_confusion((by_label @ post.T).reshape(n_judges, k, k), off_diagonal, s)
        # summed in Fortran order, as a masked copy is laid out (the same sums, bit for bit, as with the mask)
        priors = np.asfortranarray(post[:, used]).sum(axis=1) + s
        priors /= priors.sum()
        # E-step
        with np.errstate(divide="ignore"):
            log_conf = np.log(confusion)
            log_prior = np.log(priors)
        # joint[t, i] = sum over i's labels of log confusion[judge, t, label]
        joint = (by_item @ log_conf.transpose(0, 2, 1).reshape(n_judges * k, k)).T
        joint += log_prior[:, None]
        # the largest term per item, class by class (exact, as joint.max(axis=0), whose reduction over
        # the K values of each item, adjacent in memory, numpy runs several hundred times slower)
        top = joint[0].copy()
        for t in range(1, k):
            np.maximum(top, joint[t], out=top)
        if not np.isfinite(top).all():
            raise FloatingPointError("an item's labels have probability 0 under every class; use smoothing > 0")
        joint -= top
        # exp(x) for x < UNDERFLOW is below 1e-304 of the row's largest term: set to 0 exactly
        # instead of computing subnormals (several times slower and irrelevant to the sums)
        new_post = np.zeros_like(joint)
        np.exp(joint, out=new_post, where=joint > UNDERFLOW)
        row_sum = new_post.sum(axis=0)
        new_post /= row_sum
        if known is not None:
            new_post[:, known_items] = 0.0
            new_post[known_classes, known_items] = 1.0
        if stop == "log_likelihood":
            current = float(_item_log_likelihood(top, row_sum, joint, known)[used].sum())
            if s > 0:  # the MAP objective EM increases (every entry > 0)
                current += s * (float(log_conf.sum()) + float(log_prior.sum()))
            done = current - previous < tol * n_entries
            previous = current
        else:
            done = float(np.max(np.abs(new_post - post))) < tol
        post = new_post
        if done:
            converged = True
            break
    log_likelihood = float(_item_log_likelihood(top, row_sum, joint, known)[used].sum())
    return DawidSkeneResult(np.ascontiguousarray(post.T), confusion, priors, n_iter, log_likelihood, converged)


def _item_log_likelihood(top: np.ndarray, row_sum: np.ndarray, joint: np.ndarray,
                         known: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """Per item, log P(its labels) = top + log row_sum; for a gold item, log P(its labels, its class)
    = joint[class] + top (``joint`` with ``top`` already subtracted)."""
    out = top + np.log(row_sum)
    if known is not None:
        items, classes = (np.asarray(a, dtype=np.int64) for a in known)
        out[items] = joint[classes, items] + top[items]
    return out


def _one_coin_confusion(cc: np.ndarray, off_diagonal: np.ndarray, s: float) -> np.ndarray:
    """The one-coin M-step: cc[j, c, t] = sum of T[item, t] over j's labels equal to c (either
    orientation: only the diagonal and its complement are read) -> (n_judges, K, K) confusions."""
    k = cc.shape[1]
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
