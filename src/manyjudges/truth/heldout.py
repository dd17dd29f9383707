"""Labels withheld from a fit, and how well the fit's posteriors predict them.

The criterion that ``Auto`` chooses by and that posterior tempering is fitted on, computed from the
labels alone (never a truth):

- **Folds over labels** (:func:`_label_folds`). Each item's labels are put in a seeded random order
  and dealt round the ``n_folds`` folds from a seeded random start, so an item's labels fall in
  different folds and every fit keeps at least one label of every item with two or more; items
  with a single label are never withheld (fold -1). The order comes from the coded item and judge
  (ids in natural order), so the folds do not depend on the table's row order.
- **The judge model of a fit** (:func:`_judge_confusions`): one Dawid-Skene M-step on the fit's
  posteriors T over the labels it saw, each judge's counts shrunk towards the pooled confusion
  (a Dirichlet prior of total weight ``strength`` per row, centred on the panel's):

      pi[w, t, c] = (n[w, t, c] + a P[t, c]) / (sum_c n[w, t, c] + a),
      n[w, t, c] = sum_{e: judge_e = w, label_e = c} T[item_e, t],   P[t, c] ∝ sum_w n[w, t, c].

  The same model judges every method, so methods are compared by their posteriors alone. Two
  coarser judge models (:func:`_judge_model_confusions`) cannot explain a judge's bias towards a
  class: ``one_coin``, each judge's expected accuracy a_w = (sum_{e of w} T[i_e, y_e] + A) /
  (n_w + 1) with errors spread evenly, and ``pooled``, one accuracy A = mean_e T[i_e, y_e] for all,
  both held at 1/K or above.
- **Predictive probability** of a withheld label (item i, judge w, class c):
  P(c) = sum_t T_beta[i, t] pi[w, t, c] (:func:`predictive`), where T_beta[i, t] ∝ T[i, t]^beta
  is the posterior tempered by beta (:func:`temper`; beta < 1 softens it, beta = 1 leaves it).
- **Tempering** (:func:`_fit_tempering`): the beta that maximises the mean log predictive
  probability of the withheld labels (bounded scalar search of log beta in [log 0.02, log 5]):
  the posteriors are made as confident as they prove to be on labels they did not see (Guo et al.
  2017's temperature scaling, fitted on withheld labels instead of a validation truth).
- **Stacking** (:func:`_stacking_weights`): weights w on the simplex maximising
  sum_e log sum_m w_m P_m(e) over the withheld labels, the stacking of predictive distributions of
  Yao, Vehtari, Simpson and Gelman (2018, Bayesian Analysis 13(3), eq. 4), by SLSQP.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from manyjudges.core.coded_labels import CrowdLabels
from manyjudges.core.random_streams import rng_for

__all__ = [
    "DEFAULT_FOLDS", "JUDGE_MODELS", "JUDGE_PRIOR", "FoldSplit", "HeldOut", "Known", "held_out", "log_score",
    "predictive", "subset", "temper",
]

#: folds over labels (each fit sees about 4/5 of every item's labels)
DEFAULT_FOLDS = 5
#: the pooled confusion's weight in each judge's confusion row (pseudo-labels)
JUDGE_PRIOR = 1.0
#: how a withheld label is predicted from a fit's posteriors (:func:`_judge_model_confusions`)
JUDGE_MODELS = ("confusion", "one_coin", "pooled")
#: the tempering search's range of beta
BETA_RANGE = (0.02, 5.0)
#: a predictive probability below this counts as this (log 1e-300 ~ -690)
FLOOR = 1e-300


def _label_folds(data: CrowdLabels, n_folds: int = DEFAULT_FOLDS, seed: int = 0) -> np.ndarray:
    """(n_labels,) fold 0..n_folds-1 of each label, -1 for the labels of items with a single label."""
    rng = rng_for(seed, "truth", "label folds")
    item_key = rng.random(data.n_items)
    judge_key = rng.random(data.n_judges)
    offset = rng.integers(0, n_folds, data.n_items)
    key = (item_key[data.item] + judge_key[data.judge]) % 1.0
    order = np.lexsort((data.label, key, data.item))
    counts = np.bincount(data.item, minlength=data.n_items)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(data.n_labels, dtype=np.int64)
    rank[order] = np.arange(data.n_labels) - first[data.item[order]]
    folds = (rank + offset[data.item]) % n_folds
    folds[counts[data.item] < 2] = -1
    return folds


def subset(data: CrowdLabels, keep: np.ndarray) -> CrowdLabels:
    """Return the labels where ``keep`` is True, with every item, judge and class code of ``data`` kept."""
    return CrowdLabels(item=data.item[keep], judge=data.judge[keep], label=data.label[keep], items=data.items,
                       judges=data.judges, classes=data.classes)


def _judge_confusions(data: CrowdLabels, posteriors: np.ndarray, strength: float = JUDGE_PRIOR) -> np.ndarray:
    """(n_judges, K, K) pi[w, t, c]: the M-step on ``posteriors`` (n_items, K), shrunk towards the pooled confusion."""
    k, n_judges = data.n_classes, data.n_judges
    # cell (w, t, c) of label e: posterior T[item_e, t] at ((w_e K + t) K + c_e), summed by one bincount
    cells = (data.judge[:, None].astype(np.int64) * k + np.arange(k)) * k + data.label[:, None]
    counts = np.bincount(cells.ravel(), weights=posteriors[data.item].ravel(), minlength=n_judges * k * k)
    counts = counts.reshape(n_judges, k, k)
    pooled = counts.sum(axis=0) + 1e-9
    pooled /= pooled.sum(axis=1, keepdims=True)
    return (counts + strength * pooled) / (counts.sum(axis=2, keepdims=True) + strength)


def _judge_accuracies(data: CrowdLabels, posteriors: np.ndarray, strength: float = JUDGE_PRIOR
                      ) -> tuple[np.ndarray, float]:
    """((n_judges,) a_w, A): each judge's expected accuracy under ``posteriors``, shrunk towards the pooled one.

    a_w = (sum_{e of w} T[item_e, label_e] + s A) / (n_w + s), A = sum_e T[item_e, label_e] / n, both held at
    1/K or above (judges beat chance).
    """
    k = data.n_classes
    agree = posteriors[data.item, data.label]
    pooled = max(float(agree.mean()) if len(agree) else 1.0 / k, 1.0 / k)
    sums = np.bincount(data.judge, weights=agree, minlength=data.n_judges)
    counts = np.bincount(data.judge, minlength=data.n_judges)
    return np.maximum((sums + strength * pooled) / (counts + strength), 1.0 / k), pooled


def _coins(accuracy: np.ndarray, k: int) -> np.ndarray:
    """(W, K, K) pi[w, t, c] = a_w if c = t, else (1 - a_w) / (K - 1)."""
    eye = np.eye(k)
    a = np.asarray(accuracy, dtype=float)[:, None, None]
    return a * eye + (1.0 - a) / (k - 1) * (1.0 - eye)


def _judge_model_confusions(data: CrowdLabels, posteriors: np.ndarray, model: str = "confusion") -> np.ndarray:
    """(n_judges, K, K) the judge model by which withheld labels are predicted from a fit's posteriors.

    One of:

    - ``"confusion"``: each judge's confusion matrix (:func:`_judge_confusions`): it explains a judge's
      bias towards a class as well as its skill;
    - ``"one_coin"``: each judge's accuracy a_w (:func:`_judge_accuracies`), errors spread evenly: no
      judge's bias can be explained, only how often it agrees with the posteriors' class;
    - ``"pooled"``: one accuracy A for every judge.

    In the last two, accuracies are held at 1/K or above, so posteriors whose classes are inverted predict
    the withheld labels badly.
    """
    if model == "confusion":
        return _judge_confusions(data, posteriors)
    accuracy, pooled = _judge_accuracies(data, posteriors)
    if model == "one_coin":
        return _coins(accuracy, data.n_classes)
    if model == "pooled":
        return _coins(np.full(data.n_judges, pooled), data.n_classes)
    raise ValueError(f"judge model must be one of {', '.join(JUDGE_MODELS)}, got {model!r}")


def temper(posteriors: np.ndarray, beta: float) -> np.ndarray:
    """T_beta[i, t] ∝ T[i, t]^beta, rows summing to 1 (a class with posterior 0 stays 0)."""
    if beta == 1.0:
        return posteriors
    with np.errstate(divide="ignore"):
        log_t = np.log(posteriors) * beta
    log_t -= log_t.max(axis=1, keepdims=True)
    out = np.exp(log_t)
    return out / out.sum(axis=1, keepdims=True)


def predictive(posteriors: np.ndarray, said: np.ndarray) -> np.ndarray:
    """(n,) sum_t T[t] pi[t, c] from the withheld labels' item posteriors (n, K) and pi[w, :, c] (n, K)."""
    return np.einsum("et,et->e", posteriors, said)


def log_score(probabilities: np.ndarray) -> float:
    """Mean log of predictive probabilities (each floored at 1e-300)."""
    return float(np.mean(np.log(np.maximum(probabilities, FLOOR)))) if len(probabilities) else 0.0


@dataclass(frozen=True, eq=False)
class HeldOut:
    """What a method's fits on the folds predict of the labels each fit did not see."""

    #: (n, K) the fit's posterior of each withheld label's item
    posteriors: np.ndarray
    #: (n, K) pi[judge, t, label] of each withheld label, t = 0..K-1
    said: np.ndarray

    @cached_property
    def _gaps(self) -> np.ndarray:
        """Log T[t] - max_t log T[t] of each withheld label's item (-inf for a class of posterior 0)."""
        with np.errstate(divide="ignore"):
            log_t = np.log(self.posteriors)
        return log_t - log_t.max(axis=1, keepdims=True)

    def probabilities(self, beta: float = 1.0) -> np.ndarray:
        """(n,) the predictive probability of each withheld label with the posteriors tempered by ``beta``.

        It is sum_t exp(beta g[t]) pi[t] / sum_t exp(beta g[t]), g = the log posterior less its largest term.
        """
        if beta == 1.0:
            return predictive(self.posteriors, self.said)
        weight = np.exp(beta * self._gaps)
        return np.einsum("et,et->e", weight, self.said) / np.einsum("et->e", weight)


Known = tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True, eq=False)
class FoldSplit:
    """Each fold's withheld labels and gold answers, and what its fit is given.

    Made once and shared by every method fitted on the folds.
    """

    #: (n_labels,) the fold of each label (-1: never withheld)
    folds: np.ndarray
    #: the label indices each fold withholds
    withheld: tuple[np.ndarray, ...]
    #: the labels each fold's fit sees
    seen: tuple[CrowdLabels, ...]
    #: the gold items (item codes, class codes) each fold's fit is given (None without gold)
    known: tuple[Known | None, ...]
    #: the gold items each fold withholds (item codes, class codes), scored as a perfect judge's labels
    gold_withheld: tuple[Known, ...]


def _fold_split(data: CrowdLabels, folds: np.ndarray, known: Known | None = None, seed: int = 0) -> FoldSplit:
    """Return the :class:`FoldSplit` of ``folds`` (from :func:`_label_folds`) on ``data``.

    Gold items ``known`` (item codes, class codes) are dealt round the same folds in a seeded random order of
    their items, so each fold's fit is given the gold of the other folds.
    """
    n_folds = int(folds.max()) + 1
    if known is None or len(known[0]) == 0:
        gold_fold = np.zeros(0, dtype=np.int64)
        gold_items, gold_classes = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    else:
        gold_items, gold_classes = (np.asarray(a, dtype=np.int64) for a in known)
        key = rng_for(seed, "truth", "gold folds").random(data.n_items)[gold_items]
        gold_fold = np.empty(len(gold_items), dtype=np.int64)
        gold_fold[np.lexsort((gold_items, key))] = np.arange(len(gold_items)) % max(n_folds, 1)
    withheld, seen, given, gold_out = [], [], [], []
    for fold in range(n_folds):
        out = folds == fold
        gold_here = gold_fold == fold
        if not out.any() and not gold_here.any():
            continue
        withheld.append(np.flatnonzero(out))
        seen.append(subset(data, ~out))
        given.append(None if known is None else (gold_items[~gold_here], gold_classes[~gold_here]))
        gold_out.append((gold_items[gold_here], gold_classes[gold_here]))
    return FoldSplit(folds, tuple(withheld), tuple(seen), tuple(given), tuple(gold_out))


def _split_without_gold(split: FoldSplit) -> FoldSplit:
    """``split`` with no gold given to any fit nor withheld by any fold: the same folds of labels."""
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    return FoldSplit(split.folds, split.withheld, split.seen, tuple(None for _ in split.known),
                     tuple(empty for _ in split.gold_withheld))


def _fold_posteriors(fit: Callable[[CrowdLabels, Known | None], np.ndarray],
                     split: FoldSplit) -> tuple[np.ndarray, ...]:
    """Fit each fold without its withheld labels (``fit(labels, known) -> posteriors``, (n_items, K) each).

    Each fit is given the labels and gold items the fold leaves in.
    """
    return tuple(np.asarray(fit(seen, known), dtype=float) for seen, known in zip(split.seen, split.known))


def held_out(fit: Callable[[CrowdLabels, Known | None], np.ndarray], data: CrowdLabels,
             folds: np.ndarray | FoldSplit, judge_model: str = "confusion") -> HeldOut:
    """Fit without each fold; return the withheld labels' posteriors and judge columns, then the gold's.

    Each fit is ``fit(labels, known) -> posteriors`` on the labels and gold items the fold leaves in. Returned:
    the withheld labels' posteriors and judge columns, in label order, then each withheld
    gold item's posterior and the one-hot of its class (a label from a judge who is always right).
    ``folds``: from :func:`_label_folds`, or their :func:`_fold_split` (with gold, or shared by several
    methods). ``judge_model``: how a withheld label is predicted from the posteriors (:func:`judge_model`).
    """
    split = folds if isinstance(folds, FoldSplit) else _fold_split(data, folds)
    return _held_out_from(_fold_posteriors(fit, split), data, split, judge_model)


def _held_out_from(posteriors_by_fold: tuple[np.ndarray, ...], data: CrowdLabels, split: FoldSplit,
                  judge_model: str = "confusion") -> HeldOut:
    """:func:`held_out` from the folds' fitted posteriors (:func:`_fold_posteriors`), already computed."""
    k = data.n_classes
    posteriors = np.zeros((data.n_labels, k))
    said = np.zeros((data.n_labels, k))
    gold_posteriors, gold_said = [np.zeros((0, k))], [np.zeros((0, k))]
    for fitted, out, seen, (gold_items, gold_classes) in zip(posteriors_by_fold, split.withheld, split.seen,
                                                             split.gold_withheld):
        confusion = _judge_model_confusions(seen, fitted, judge_model)
        posteriors[out] = fitted[data.item[out]]
        said[out] = confusion[data.judge[out], :, data.label[out]]
        gold_posteriors.append(fitted[gold_items])
        gold_said.append(np.eye(k)[gold_classes])
    withheld = split.folds >= 0
    return HeldOut(np.concatenate([posteriors[withheld], *gold_posteriors]),
                   np.concatenate([said[withheld], *gold_said]))


def _fit_tempering(held: HeldOut) -> float:
    """Fit the beta in [0.02, 5] whose tempered posteriors give the withheld labels the highest mean log probability."""
    if len(held.said) == 0:
        return 1.0
    from scipy.optimize import minimize_scalar  # imported when a fit tempers (scipy's optimisers load slowly)

    low, high = np.log(BETA_RANGE[0]), np.log(BETA_RANGE[1])
    res = minimize_scalar(lambda x: -log_score(held.probabilities(float(np.exp(x)))), bounds=(low, high),
                          method="bounded", options={"xatol": 1e-2})
    beta = float(np.exp(res.x))
    # the search is local: keep beta = 1 unless the optimum beats it
    return beta if log_score(held.probabilities(beta)) > log_score(held.probabilities(1.0)) else 1.0


def _stacking_weights(probabilities: np.ndarray) -> np.ndarray:
    """(M,) simplex weights maximising mean_e log sum_m w_m P[m, e] over withheld labels e (P: (M, n)).

    A concave maximisation over the simplex, solved by SLSQP from equal weights with the exact gradient
    mean_e P[m, e] / sum_m' w_m' P[m', e]; equal weights without withheld labels.
    """
    from scipy.optimize import minimize  # imported when a stack is fitted (scipy's optimisers load slowly)

    p = np.maximum(np.asarray(probabilities, dtype=float), FLOOR)
    m = p.shape[0]
    start = np.full(m, 1.0 / m)
    if p.shape[1] == 0 or m == 1:
        return start
    scale = p.max(axis=0)  # per-label scale: the optimum does not depend on it
    p = p / scale

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        mix = np.maximum(w @ p, FLOOR)
        return -float(np.mean(np.log(mix))), -(p @ (1.0 / mix)) / p.shape[1]

    res = minimize(objective, start, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * m,
                   constraints=({"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones(m)},),
                   options={"ftol": 1e-12, "maxiter": 500})
    w = np.clip(res.x, 0.0, None)
    return w / w.sum()
