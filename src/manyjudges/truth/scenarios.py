"""Simulated crowd-label panels that break what the truth methods assume.

Majority vote, Wawa and the Dawid-Skene family (one-coin, full, smoothed, ordinal) all take the
judges to be independent given an item's true class, and the items to be alike apart from
their class. :mod:`manyjudges.truth.simulate` draws from that model (``dawid_skene`` below); the
four scenarios here do not, so that defaults can be chosen on panels none of the candidates
fits:

- :func:`sparse_biased`: a heavy-tailed workload (most judges give 1-5 labels, a few give
  hundreds), each judge with a strong personal class prior, unbalanced classes;
- :func:`correlated`: clusters of judges that share their errors (G base models x P prompts,
  as LLM judges), item difficulty shared by every model;
- :func:`adversarial_majority`: a majority of judges systematically wrong (a fixed class
  permutation), a reliable minority;
- :func:`difficulty`: hard items, on which every judge is near chance or drawn to one common
  wrong class, beside easy items.

Each function is ``f(rng, **options) -> (labels, truth)``: labels ``item, judge, label``
(class codes 0..K-1, one row per label, items in order), truth ``item, truth``; item ids
``i0001``..., judge ids ``w001``... as :func:`~manyjudges.truth.simulate.simulate_labels`'s;
every draw comes from the numpy Generator ``rng``. A bad option is a ValueError naming it and
its value. In the pipeline, a truth dataset with ``source: simulate`` takes ``scenario: <name>``
and that scenario's options as keys of its entry (``config/README.md``).

:func:`simulated_suite` draws the panels below, each from the stream
``rng_for(seed, "truth", name)``, so a truth dataset of the same name with the same options in a
config reproduces it:

=============================== ===================== ===============================================
panel                           scenario              options (the others at their defaults)
=============================== ===================== ===============================================
``sim_sparse_biased_binary``    sparse_biased         2,000 items, K = 2, priors (0.74, 0.26)
``sim_sparse_biased_k4``        sparse_biased         2,000 items, K = 4, priors prop. to 0.35^k
``sim_correlated_binary``       correlated            1,000 items, K = 2, 4 models x 3 prompts,
                                                      rho = 0.8
``sim_correlated_k3``           correlated            1,000 items, K = 3, 5 models x 3 prompts,
                                                      rho = 0.8
``sim_correlated_big_cluster``  correlated            1,000 items, K = 2, 3 good models (accuracy
                                                      0.75-0.85) x 1 prompt, a cluster of 9 runs of
                                                      a model of accuracy 0.62, rho = 0.9
``sim_adversarial_binary``      adversarial_majority  1,000 items, K = 2, 20 judges, 65% adversarial
``sim_adversarial_k3``          adversarial_majority  1,000 items, K = 3, 20 judges, 65% adversarial
``sim_difficulty_chance``       difficulty            1,000 items, K = 3, 30% hard, at chance
``sim_difficulty_attractor``    difficulty            1,000 items, K = 3, 30% hard, attraction 0.6
=============================== ===================== ===============================================
"""
from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from manyjudges.core.random_streams import rng_for
from manyjudges.truth.panel_draws import (
    Tables,
    _check_int,
    _check_range,
    _fail,
    _label_tables,
    _other_uniform,
    _panel_shape,
    _priors_of,
    categorical,
    check_number,
    distinct_judges,
)
from manyjudges.truth.simulate import simulate_labels

__all__ = [
    "DEFAULT_SCENARIO", "adversarial_majority", "correlated", "difficulty", "scenario_options", "simulated_suite",
    "sparse_biased",
]


# --- the scenarios ---------------------------------------------------------------------------------

def sparse_biased(rng: np.random.Generator, n_items: int = 2000, n_classes: int = 2, labels_per_item: int = 5,
                  class_priors: Sequence[float] | None = None, workload_exponent: float = 2.0,
                  max_workload: int | None = None, accuracy: Sequence[float] = (0.3, 0.8),
                  bias_concentration: float = 0.3) -> Tables:
    r"""Many judges with few labels each, each with a strong personal class prior.

    Generative model (K = ``n_classes``, n = ``n_items``, L = n ``labels_per_item`` labels):

    - truth :math:`y_i \sim \mathrm{Cat}(\pi)`, :math:`\pi` = ``class_priors`` normalised, by
      default :math:`\pi_k \propto 0.35^k` (binary: 0.74, 0.26);
    - workloads :math:`n_w` i.i.d. from the truncated power law
      :math:`P(n_w = k) = k^{-\alpha} / \sum_{j=1}^{M} j^{-\alpha}`, k = 1..M
      (:math:`\alpha` = ``workload_exponent``, M = ``max_workload`` <= n, by default min(500, n)),
      drawn until they sum to at least L; the last judge's is cut so that they sum to L. With
      the defaults (:math:`\alpha = 2`, M = 500) 89% of the judges give 1-5 labels and about
      0.5% 100 or more;
    - assignment: the label slots, judge after judge in draw order, fill position j = 0..L-1,
      and slot j labels item :math:`\sigma(j \bmod n)` for a uniform permutation :math:`\sigma`;
      so every item gets ``labels_per_item`` labels and a judge (n_w <= n) never labels an item
      twice;
    - judge w: accuracy :math:`a_w \sim U(a_{lo}, a_{hi})` (``accuracy``) and personal class
      prior :math:`\theta_w \sim \mathrm{Dirichlet}(\beta \mathbf{1}_K)`
      (:math:`\beta` = ``bias_concentration``; small :math:`\beta`, strong bias); it knows the
      answer with probability :math:`a_w`, else guesses from its prior:

      .. math:: P(\ell = k \mid y, w) = a_w [k = y] + (1 - a_w)\, \theta_{w,k}.

    So pooled over judges :math:`P(\ell = k \mid y) = \bar a [k = y] + (1 - \bar a)/K`, and two
    labels of one judge on two items of class y both say k != y with probability
    :math:`E[(1-a)^2]\, E[\theta_k^2]`, :math:`E[\theta_k^2] = (\beta + 1) / (K (K\beta + 1))`:
    a judge's errors pile up on its own classes. A per-judge confusion matrix then explains
    most of a judge's labels by its bias, from a handful of labels.
    """
    name = "sparse_biased"
    n_items = _check_int(name, "n_items", n_items, 1)
    n_classes = _check_int(name, "n_classes", n_classes, 2)
    labels_per_item = _check_int(name, "labels_per_item", labels_per_item, 1)
    alpha = check_number(name, "workload_exponent", workload_exponent, 0.0)
    top = _check_int(name, "max_workload", min(500, n_items) if max_workload is None else max_workload, 1, n_items)
    lo, hi = _check_range(name, "accuracy", accuracy)
    beta = check_number(name, "bias_concentration", bias_concentration, 0.0, open_low=True)
    pi = _priors_of(name, class_priors, n_classes, 0.35 ** np.arange(n_classes))

    truth = rng.choice(n_classes, n_items, p=pi)
    total = n_items * labels_per_item
    pmf = np.arange(1, top + 1, dtype=float) ** -alpha
    pmf /= pmf.sum()
    mean = float(pmf @ np.arange(1, top + 1))
    loads = np.empty(0, dtype=np.int64)
    while loads.sum() < total:  # draw in batches until the workloads cover the L slots
        batch = int(np.ceil((total - loads.sum()) / mean * 1.1)) + 10
        loads = np.concatenate([loads, rng.choice(np.arange(1, top + 1), batch, p=pmf)])
    n_judges = int(np.searchsorted(np.cumsum(loads), total) + 1)
    loads = loads[:n_judges]
    loads[-1] -= loads.sum() - total
    judge = np.repeat(np.arange(n_judges), loads)
    item = rng.permutation(n_items)[np.arange(total) % n_items]

    skill = rng.uniform(lo, hi, n_judges)
    prior = rng.dirichlet(np.full(n_classes, beta), n_judges)
    y = truth[item]
    guess = categorical(rng, prior[judge])
    label = np.where(rng.random(total) < skill[judge], y, guess)
    return _label_tables(item, judge, label, truth, n_judges)


def correlated(rng: np.random.Generator, n_items: int = 1000, n_classes: int = 2, n_models: int = 4,
               n_prompts: int = 3, rho: float = 0.8, accuracy: Sequence[float] = (0.6, 0.85),
               difficulty_sd: float = 1.0, error_concentration: float = 1.0,
               class_priors: Sequence[float] | None = None, cluster_size: int = 0,
               cluster_accuracy: float = 0.6) -> Tables:
    r"""Clusters of judges sharing their errors: G base models x P prompt-runs each (LLM judges).

    Generative model (every run labels every item):

    - truth :math:`y_i \sim \mathrm{Cat}(\pi)` (``class_priors``, uniform by default); item
      difficulty :math:`d_i \sim N(0, \sigma^2)` (:math:`\sigma` = ``difficulty_sd``);
    - models g = 1..G (``n_models``) with accuracy :math:`p_g \sim U(p_{lo}, p_{hi})`
      (``accuracy``, on an item of difficulty 0), each with ``n_prompts`` runs; with
      ``cluster_size`` C > 0 one more model, of accuracy ``cluster_accuracy``, with C runs (a big
      cluster of one mediocre model outnumbering the independent ones). Judges are numbered
      model after model, the cluster last;
    - model g's error distribution :math:`e_g \sim \mathrm{Dirichlet}(\gamma \mathbf{1}_K)`
      (:math:`\gamma` = ``error_concentration``); a wrong answer to an item of class y is class
      k != y with probability :math:`e_{g,k} / (1 - e_{g,y})`;
    - latent answer :math:`z_{ig}`: y_i with probability
      :math:`q_{ig} = \mathrm{logistic}(\mathrm{logit}\, p_g - d_i)`, else a wrong answer;
    - run r of model g reports :math:`z_{ig}` with probability :math:`\rho` (``rho``), else an
      independent draw of its own from the same distribution (right with probability
      :math:`q_{ig}`, else a wrong answer from :math:`e_g`).

    Every run of g is right with probability :math:`q_{ig}`; given the item, two runs of one
    model have error indicators with covariance :math:`\rho^2 q_{ig}(1 - q_{ig})`, a correlation
    of :math:`\rho^2`; runs of different models are independent given the item (and, with
    :math:`\sigma = 0`, given the class).
    """
    name = "correlated"
    n_items = _check_int(name, "n_items", n_items, 1)
    n_classes = _check_int(name, "n_classes", n_classes, 2)
    n_models = _check_int(name, "n_models", n_models, 0)
    n_prompts = _check_int(name, "n_prompts", n_prompts, 1)
    rho = check_number(name, "rho", rho, 0.0, 1.0)
    lo, hi = _check_range(name, "accuracy", accuracy, open_ends=True)
    sd = check_number(name, "difficulty_sd", difficulty_sd, 0.0)
    gamma = check_number(name, "error_concentration", error_concentration, 0.0, open_low=True)
    cluster_size = _check_int(name, "cluster_size", cluster_size, 0)
    cluster_accuracy = check_number(name, "cluster_accuracy", cluster_accuracy, 0.0, 1.0, True, True)
    if n_models * n_prompts + cluster_size < 2:
        _fail(name, "n_models", n_models, "such that n_models x n_prompts + cluster_size >= 2 judges")
    pi = _priors_of(name, class_priors, n_classes, np.ones(n_classes))

    truth = rng.choice(n_classes, n_items, p=pi)
    difficulty = rng.normal(0.0, sd, n_items)
    skill = rng.uniform(lo, hi, n_models)
    runs = np.full(n_models, n_prompts)
    if cluster_size > 0:
        skill, runs = np.append(skill, cluster_accuracy), np.append(runs, cluster_size)
    n_total = len(skill)
    errors = rng.dirichlet(np.full(n_classes, gamma), n_total)
    q = 1.0 / (1.0 + np.exp(-(np.log(skill / (1 - skill))[None, :] - difficulty[:, None])))  # (items, models)

    def answers(model: np.ndarray, item: np.ndarray) -> np.ndarray:
        y = truth[item]
        weights = errors[model].copy()
        weights[np.arange(len(y)), y] = 0.0
        weights[weights.sum(axis=1) <= 0] = 1.0  # a degenerate e_g (all mass on y): uniform wrong answer
        weights[np.arange(len(y)), y] = 0.0
        return np.where(rng.random(len(y)) < q[item, model], y, categorical(rng, weights))

    grid_item, grid_model = np.meshgrid(np.arange(n_items), np.arange(n_total), indexing="ij")
    latent = answers(grid_model.ravel(), grid_item.ravel()).reshape(n_items, n_total)
    run_model = np.repeat(np.arange(n_total), runs)
    item = np.repeat(np.arange(n_items), len(run_model))
    model = np.tile(run_model, n_items)
    judge = np.tile(np.arange(len(run_model)), n_items)
    label = np.where(rng.random(len(item)) < rho, latent[item, model], answers(model, item))
    return _label_tables(item, judge, label, truth, len(run_model))


def _derangement(rng: np.random.Generator, n_classes: int) -> np.ndarray:
    """Draw a uniform permutation of 0..K-1 with no fixed point (by rejection)."""
    while True:
        perm = rng.permutation(n_classes)
        if (perm != np.arange(n_classes)).all():
            return perm


def _skilled_labels(rng: np.random.Generator, truth: np.ndarray, n_classes: int, n_judges: int, labels_per_item: int,
                    lo: float, hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Draw each item's distinct judges and what judges of accuracy U(lo, hi) say of it.

    Returns the labels' items, judges and uniform draws u (a label is right where u < the judge's accuracy; the
    caller may read u again) and the labels: right, else a uniformly drawn other class.
    """
    skill = rng.uniform(lo, hi, n_judges)
    judge = distinct_judges(rng, len(truth), n_judges, labels_per_item).ravel()
    item = np.repeat(np.arange(len(truth)), labels_per_item)
    y = truth[item]
    u = rng.random(len(y))
    return item, judge, u, np.where(u < skill[judge], y, _other_uniform(rng, y, n_classes))


def adversarial_majority(rng: np.random.Generator, n_items: int = 1000, n_classes: int = 2, n_judges: int = 20,
                         labels_per_item: int = 7, adversarial_share: float = 0.65,
                         adversary_fidelity: float = 0.85, accuracy: Sequence[float] = (0.7, 0.9),
                         class_priors: Sequence[float] | None = None) -> Tables:
    r"""Draw a majority of systematically wrong judges and a reliable minority.

    Generative model:

    - truth :math:`y_i \sim \mathrm{Cat}(\pi)` (``class_priors``, uniform by default); each item
      gets ``labels_per_item`` judges drawn uniformly without replacement;
    - round(``adversarial_share`` x ``n_judges``) judges, chosen uniformly, are adversaries
      sharing one permutation :math:`\tau` of the classes with no fixed point, drawn uniformly
      (binary: the swap, "always the opposite"): with probability f (``adversary_fidelity``)
      an adversary says :math:`\tau(y)`, else a uniformly drawn class:
      :math:`P(\ell = k \mid y) = f [k = \tau(y)] + (1 - f)/K`;
    - the others are reliable, with accuracy :math:`a_w \sim U(a_{lo}, a_{hi})` (``accuracy``):
      :math:`P(\ell = k \mid y) = a_w [k = y] + (1 - a_w)[k \ne y]/(K - 1)`.

    An adversary's accuracy is (1 - f)/K. The labels fit the relabelled truth :math:`\tau(y)` as
    well as y with the roles swapped, and the adversaries outnumber: an unsupervised method that
    trusts the majority's agreement recovers :math:`\tau(y)`; known answers for some items (gold)
    tell the two apart.
    """
    name = "adversarial_majority"
    n_items, n_classes, n_judges, labels_per_item = _panel_shape(name, n_items, n_classes, n_judges,
                                                                 labels_per_item)
    share = check_number(name, "adversarial_share", adversarial_share, 0.0, 1.0)
    fidelity = check_number(name, "adversary_fidelity", adversary_fidelity, 0.0, 1.0)
    lo, hi = _check_range(name, "accuracy", accuracy)
    pi = _priors_of(name, class_priors, n_classes, np.ones(n_classes))

    truth = rng.choice(n_classes, n_items, p=pi)
    adversary = np.zeros(n_judges, dtype=bool)
    adversary[rng.permutation(n_judges)[:int(round(share * n_judges))]] = True
    tau = _derangement(rng, n_classes)
    item, judge, u, honest = _skilled_labels(rng, truth, n_classes, n_judges, labels_per_item, lo, hi)
    y = truth[item]
    hostile = np.where(u < fidelity, tau[y], rng.integers(0, n_classes, len(y)))
    label = np.where(adversary[judge], hostile, honest)
    return _label_tables(item, judge, label, truth, n_judges)


def difficulty(rng: np.random.Generator, n_items: int = 1000, n_classes: int = 3, n_judges: int = 30,
               labels_per_item: int = 5, hard_share: float = 0.3, attraction: float = 0.0,
               accuracy: Sequence[float] = (0.6, 0.95), class_priors: Sequence[float] | None = None) -> Tables:
    r"""Easy items on which judges differ in skill, hard items on which nobody knows.

    Generative model:

    - truth :math:`y_i \sim \mathrm{Cat}(\pi)` (``class_priors``, uniform by default); item i is
      hard with probability h (``hard_share``), :math:`H_i \sim \mathrm{Bernoulli}(h)`, and has an
      attractor :math:`t_i`, a class drawn uniformly among the K - 1 others than :math:`y_i`;
      each item gets ``labels_per_item`` judges drawn uniformly without replacement;
    - judge w has accuracy :math:`a_w \sim U(a_{lo}, a_{hi})` (``accuracy``); on an easy item
      :math:`P(\ell = k \mid y) = a_w [k = y] + (1 - a_w)[k \ne y]/(K - 1)`;
    - on a hard item every judge, whatever its skill, says the attractor with probability
      :math:`\lambda` (``attraction``), else a uniformly drawn class:
      :math:`P(\ell = k \mid y, t) = \lambda [k = t] + (1 - \lambda)/K`.

    So a hard item is labelled right with probability :math:`(1 - \lambda)/K` (chance at
    :math:`\lambda = 0`), and its attractor wins its vote when :math:`\lambda` is large.
    """
    name = "difficulty"
    n_items, n_classes, n_judges, labels_per_item = _panel_shape(name, n_items, n_classes, n_judges,
                                                                 labels_per_item)
    hard_share = check_number(name, "hard_share", hard_share, 0.0, 1.0)
    attraction = check_number(name, "attraction", attraction, 0.0, 1.0)
    lo, hi = _check_range(name, "accuracy", accuracy)
    pi = _priors_of(name, class_priors, n_classes, np.ones(n_classes))

    truth = rng.choice(n_classes, n_items, p=pi)
    hard = rng.random(n_items) < hard_share
    attractor = _other_uniform(rng, truth, n_classes)
    item, judge, u, easy_label = _skilled_labels(rng, truth, n_classes, n_judges, labels_per_item, lo, hi)
    y = truth[item]
    hard_label = np.where(u < attraction, attractor[item], rng.integers(0, n_classes, len(y)))
    label = np.where(hard[item], hard_label, easy_label)
    return _label_tables(item, judge, label, truth, n_judges)


# --- names, options and the suite ------------------------------------------------------------------

#: scenario name -> generator ``f(rng, **options) -> (labels, truth)``
_SCENARIOS: dict[str, Callable[..., Tables]] = {
    "sparse_biased": sparse_biased,
    "correlated": correlated,
    "adversarial_majority": adversarial_majority,
    "difficulty": difficulty,
}
#: the config's name of :func:`~manyjudges.truth.simulate.simulate_labels` (no ``scenario`` key)
DEFAULT_SCENARIO = "dawid_skene"


def _option_names(function: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(p for p in inspect.signature(function).parameters if p != "rng")


def _generator(scenario: str) -> Callable[..., Any]:
    if scenario == DEFAULT_SCENARIO:
        return simulate_labels
    if scenario not in _SCENARIOS:
        raise ValueError(f"unknown simulate scenario {scenario!r}; known: {DEFAULT_SCENARIO}, {', '.join(_SCENARIOS)}")
    return _SCENARIOS[scenario]


_GENERATORS: list[Callable[..., Any]] = [simulate_labels, *_SCENARIOS.values()]
#: every key of a ``simulate`` entry that is some scenario's option (``ordinal``, which also tells the
#: pipeline that the classes are ordered, and ``workload_skew``, not a config key, excepted)
_OPTION_KEYS: tuple[str, ...] = tuple(sorted(
    {name for f in _GENERATORS for name in _option_names(f)} - {"ordinal", "workload_skew"}))


def scenario_options(scenario: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    """Return the options of ``scenario`` in a truth dataset's config entry ``spec``.

    A key that is another scenario's option only is a ValueError naming it (it would be ignored).
    """
    takes = _option_names(_generator(scenario))
    stray = [k for k in spec if k in _OPTION_KEYS and k not in takes]
    if stray:
        own = ", ".join(k for k in takes if k in _OPTION_KEYS or k == "ordinal")
        raise ValueError(f"simulate scenario {scenario!r} takes no option {stray[0]!r} (its options: {own})")
    return {k: spec[k] for k in takes if k in spec}


#: the panels of :func:`simulated_suite`: name -> (scenario, options)
_SUITE: dict[str, tuple[str, dict[str, Any]]] = {
    "sim_sparse_biased_binary": ("sparse_biased", {"n_items": 2000, "n_classes": 2}),
    "sim_sparse_biased_k4": ("sparse_biased", {"n_items": 2000, "n_classes": 4}),
    "sim_correlated_binary": ("correlated", {"n_items": 1000, "n_classes": 2, "n_models": 4, "n_prompts": 3,
                                             "rho": 0.8}),
    "sim_correlated_k3": ("correlated", {"n_items": 1000, "n_classes": 3, "n_models": 5, "n_prompts": 3,
                                         "rho": 0.8}),
    "sim_correlated_big_cluster": ("correlated", {"n_items": 1000, "n_classes": 2, "n_models": 3, "n_prompts": 1,
                                                  "accuracy": [0.75, 0.85], "cluster_size": 9,
                                                  "cluster_accuracy": 0.62, "rho": 0.9}),
    "sim_adversarial_binary": ("adversarial_majority", {"n_items": 1000, "n_classes": 2, "n_judges": 20}),
    "sim_adversarial_k3": ("adversarial_majority", {"n_items": 1000, "n_classes": 3, "n_judges": 20}),
    "sim_difficulty_chance": ("difficulty", {"n_items": 1000, "n_classes": 3, "hard_share": 0.3,
                                             "attraction": 0.0}),
    "sim_difficulty_attractor": ("difficulty", {"n_items": 1000, "n_classes": 3, "hard_share": 0.3,
                                                "attraction": 0.6}),
}


def simulated_suite(seed: int) -> dict[str, Tables]:
    """Every panel of :data:`_SUITE` (the module's table): name -> (labels, truth).

    Panel ``name`` is drawn from ``rng_for(seed, "truth", name)`` as a config's truth dataset of that name
    would be.
    """
    return {name: _SCENARIOS[scenario](rng_for(seed, "truth", name), **options)
            for name, (scenario, options) in _SUITE.items()}
