"""Gold items in the fits of EBCC and the ordinal Dawid-Skene model: unchanged without gold, gold items one-hot,
the clamped updates against direct loops (and the ordinal model's objective against enumeration), and what
gold buys on panels with adversarial judges."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.special import digamma, logsumexp

from manyjudges.core.coded_labels import as_crowd_labels
from manyjudges.truth import EBCC, OrdinalDawidSkene
from manyjudges.truth.methods.ebcc.estimator import ebcc_layout, ebcc_mean_field, ebcc_start
from manyjudges.truth.methods.ordinal.em import _LAPSE_START
from manyjudges.truth.methods.ordinal.probit import (
    _default_cuts,
    _newton_cut_step,
    _newton_m_step,
    _ordinal_log_confusion,
)
from manyjudges.truth.simulate import simulate_labels

from .test_ebcc import explicit_elbo
from .test_gold import adversarial_panel

ESTIMATORS = [lambda: EBCC(n_subtypes=3, n_restarts=4), lambda: OrdinalDawidSkene()]


def twin_panel(k: int = 3, n_judges: int = 4, seed: int = 5) -> pd.DataFrame:
    """Items 0..7 labelled by every judge at random, items 8..11 the twins (the same labels) of items 0..3."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, k, (8, n_judges))
    rows = np.vstack([base, base[:4]])
    item, judge = np.divmod(np.arange(rows.size), n_judges)
    return pd.DataFrame({"item": item, "judge": judge, "label": rows.ravel()})


#: gold on the twin panel: item 0 (its twin 8 is not gold), twins 1 and 9 with different classes, twins 2 and 10
#: with the same class, item 5
TWIN_GOLD = (np.array([0, 1, 2, 5, 9, 10]), np.array([2, 0, 1, 0, 1, 1]))


def ordinal_panel(seed: int = 0, n_items: int = 400, n_judges: int = 20, per_item: int = 5, k: int = 4,
                  n_adversarial: int = 10, right: float = 0.15) -> tuple[pd.DataFrame, pd.Series, dict]:
    """Ordered classes (simulate_labels' good judges, right 75%, else a neighbouring class); the first
    ``n_adversarial`` judges say the truth with probability ``right``, else its mirror K - 1 - t.
    Returns labels, truth by item and each judge's generating confusion (K x K, [truth, label])."""
    rng = np.random.default_rng(seed)
    labels, truth, _ = simulate_labels(rng, n_items=n_items, n_judges=n_judges, labels_per_item=per_item,
                                       n_classes=k, judge_mix={"good": 1.0}, good_accuracy=0.75, ordinal=True)
    truth = truth.set_index("item")["truth"]
    judges = [f"w{j + 1:03d}" for j in range(n_judges)]
    bad = labels["judge"].isin(judges[:n_adversarial]).to_numpy()
    t = truth[labels["item"][bad]].to_numpy()
    labels.loc[bad, "label"] = np.where(rng.random(bad.sum()) < right, t, k - 1 - t)
    good = np.diag(np.full(k, 0.75))
    good[0, 1] = good[k - 1, k - 2] = 0.25
    good[np.arange(1, k - 1), np.arange(0, k - 2)] = good[np.arange(1, k - 1), np.arange(2, k)] = 0.125
    mirror = right * np.eye(k) + (1 - right) * np.eye(k)[::-1]
    return labels, truth, {name: mirror if j < n_adversarial else good for j, name in enumerate(judges)}


def confusion_error(est, generating: dict) -> float:
    """Mean absolute difference between the fitted and the generating confusions, cell by cell."""
    judges = est.confusions_.index.get_level_values("judge").unique()
    fitted = est.confusions_.to_numpy().reshape(len(judges), *generating[judges[0]].shape)
    return float(np.mean(np.abs(fitted - np.stack([generating[w] for w in judges]))))


@pytest.mark.parametrize("make", ESTIMATORS, ids=["ebcc", "ordinal"])
def test_without_gold_the_fit_is_unchanged(make):
    labels = twin_panel()
    plain = make().fit(labels)
    none = make().fit(labels, gold=None)
    empty = make().fit(labels, gold=pd.DataFrame({"item": [], "truth": []}))  # the gold code path, no items
    for other in (none, empty):
        pd.testing.assert_frame_equal(plain.proba_, other.proba_)
        pd.testing.assert_frame_equal(plain.confusions_, other.confusions_)
    assert plain.gold_ is None and len(empty.gold_) == 0


@pytest.mark.parametrize("make", ESTIMATORS, ids=["ebcc", "ordinal"])
def test_gold_items_keep_their_class_and_their_twins_do_not(make):
    labels = twin_panel()
    gold = pd.Series(TWIN_GOLD[1], index=TWIN_GOLD[0])
    plain, helped = make().fit(labels), make().fit(labels, gold=gold)
    assert (helped.labels_[gold.index] == gold).all()
    np.testing.assert_array_equal(helped.proba_.loc[gold.index].to_numpy(), np.eye(3)[gold.to_numpy()])
    assert helped.gold_.index.tolist() == gold.index.tolist()
    # item 8 has item 0's labels but no gold: a posterior of its own, and the fit moved with gold
    assert helped.proba_.loc[8].max() < 1.0
    assert not np.allclose(helped.proba_.loc[8], helped.proba_.loc[0])
    assert np.abs(helped.confusions_.to_numpy() - plain.confusions_.to_numpy()).max() > 1e-3


def loop_mean_field(data, start, alpha, a_pi, a_v, b_v, n_iter, gold):
    """EBCC's coordinate ascent item by item, label by label, every subtype column in full, with the gold
    items' classes other than the known one at log 0 in every local step: the reference."""
    n, k, m = start.shape
    beta = np.full((k, k), b_v)
    np.fill_diagonal(beta, a_v)
    closed = np.zeros((n, k))
    closed[gold[0]] = -np.inf
    closed[gold[0], gold[1]] = 0.0
    r = start.copy()
    for _ in range(n_iter):
        nu = alpha + r.sum(axis=(0, 2))
        eta = a_pi / m + r.sum(axis=0)
        mu = np.tile(beta[None, :, None, :], (data.n_judges, 1, m, 1))
        for i, j, y in zip(data.item, data.judge, data.label):
            mu[j, :, :, y] += r[i]
        elog_v = digamma(mu) - digamma(mu.sum(axis=3, keepdims=True))
        score = np.tile((digamma(nu) - digamma(nu.sum()))[:, None] + digamma(eta)
                        - digamma(eta.sum(axis=1, keepdims=True)), (n, 1, 1))
        for i, j, y in zip(data.item, data.judge, data.label):
            score[i] += elog_v[j, :, :, y]
        score += closed[:, :, None]
        score = np.exp(score - score.max(axis=(1, 2), keepdims=True))
        r = score / score.sum(axis=(1, 2), keepdims=True)
    return r, nu, eta, mu


# 600 judges: some patterns' normalisers fall below e^-600 (their scores are shifted by the largest)
@pytest.mark.parametrize("n_judges", [4, 600])
def test_ebcc_clamped_mean_field_is_the_direct_loop(n_judges):
    data = as_crowd_labels(twin_panel(n_judges=n_judges))
    items, classes = TWIN_GOLD
    lay = ebcc_layout(data, TWIN_GOLD)
    # 8 patterns without gold; with it item 0 leaves its twin 8, twins 1 and 9 (two classes) split, 2 and 10 stay
    assert len(ebcc_layout(data).multiplicity) == 8 and len(lay.multiplicity) == 10
    p = lay.pattern
    assert p[0] != p[8] and p[1] != p[9] and p[2] == p[10] and p[3] == p[11]
    alpha, params = np.array([2.0, 1.5, 3.0]), {"a_pi": 0.3, "a_v": 3.0, "b_v": 0.7}
    start = ebcc_start(data, 2, np.random.default_rng(0), TWIN_GOLD)
    assert np.all(start[items].sum(axis=2) == np.eye(3)[classes] * start[items].sum(axis=(1, 2))[:, None])
    run = ebcc_mean_field(lay, start, alpha, max_iter=6, tol=0.0, **params)
    r, nu, eta, mu = loop_mean_field(data, start, alpha, 0.3, 3.0, 0.7, 6, TWIN_GOLD)
    np.testing.assert_allclose(run.resp, r, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(run.nu, nu, rtol=1e-12)
    np.testing.assert_allclose(run.eta, eta, rtol=1e-12)
    np.testing.assert_allclose(run.mu, mu, rtol=1e-12)
    assert np.all(run.proba[items][np.eye(3, dtype=bool)[classes] == 0] == 0.0)  # exactly 0 outside the known class
    np.testing.assert_allclose(run.proba[items], np.eye(3)[classes], atol=1e-15)
    # the ELBO counts the gold items with their class (the bound of the clamped q), and never decreases
    assert run.elbo == pytest.approx(explicit_elbo(data, run, alpha, 0.3, 3.0, 0.7), rel=1e-10, abs=1e-9)
    assert np.diff(run.elbo_trace).min() >= -1e-9 * abs(run.elbo)


def test_ebcc_restarts_are_seeded_as_without_gold_and_compared_on_the_gold_elbo():
    labels = twin_panel()
    est = EBCC(n_subtypes=2, n_restarts=3, random_state=4).fit(labels, gold=pd.Series(TWIN_GOLD[1],
                                                                                       index=TWIN_GOLD[0]))
    data, rng = as_crowd_labels(labels), np.random.default_rng(4)
    lay = ebcc_layout(data, TWIN_GOLD)
    runs = [ebcc_mean_field(lay, ebcc_start(data, 2, rng, TWIN_GOLD), EBCC().class_prior(data)) for _ in range(3)]
    np.testing.assert_array_equal(est.restart_elbos_, [run.elbo for run in runs])
    best = runs[int(np.argmax(est.restart_elbos_))]
    assert est.elbo_ == best.elbo
    np.testing.assert_array_equal(est.confusions_.to_numpy().reshape(-1, 3, 3), best.confusions())


def log_prior(est, precision, shift, lapse, locations):
    """The ordinal model's log-priors: -rho/2 ((a - 1)^2 + d^2) per judge, the lapses' Beta at mean 0.1, and
    kappa sum_t log(mu_{t+1} - mu_t) over the class locations."""
    return (-0.5 * est.ridge * np.sum((precision - 1) ** 2 + shift ** 2)
            + est.lapse_prior * np.sum(_LAPSE_START * np.log(lapse) + (1 - _LAPSE_START) * np.log1p(-lapse))
            + est.spacing * np.sum(np.log(np.diff(locations))))


def loop_ordinal_em(labels, k, n_iter, eps, gold, est):
    """The ordinal model's plain EM with a loop over the labels for the M-step's weights and the E-step (the
    judge and cut steps are the module's solvers), the gold posteriors one-hot throughout: the reference."""
    item, judge, label = (labels[c].to_numpy() for c in ("item", "judge", "label"))
    n, w = item.max() + 1, judge.max() + 1
    post = np.zeros((n, k))
    for i, y in zip(item, label):
        post[i, y] += 1
    post /= post.sum(axis=1, keepdims=True)
    post[gold[0]] = np.eye(k)[gold[1]]
    precision, shift, cuts, lapse = np.ones(w), np.zeros(w), _default_cuts(k), np.full(w, _LAPSE_START)
    trace = []
    for _ in range(n_iter):
        weights = np.full((w, k, k), eps)
        for i, j, y in zip(item, judge, label):
            weights[j, :, y] += post[i]
        priors = (post.sum(axis=0) + eps) / (n + k * eps)
        probit = np.exp(_ordinal_log_confusion(-shift / precision, 1 / precision, k, cuts=cuts))
        share = (lapse / k)[:, None, None] / ((1 - lapse)[:, None, None] * probit + (lapse / k)[:, None, None])
        lapse = ((np.sum(weights * share, axis=(1, 2)) + est.lapse_prior * _LAPSE_START)
                 / (weights.sum(axis=(1, 2)) + est.lapse_prior))
        weights = weights * (1 - share)
        precision, shift = _newton_m_step(precision, shift, weights, cuts=cuts, ridge=est.ridge)
        cuts = _newton_cut_step(precision, shift, weights, cuts, spacing=est.spacing)
        log_conf = _ordinal_log_confusion(-shift / precision, 1 / precision, k, cuts=cuts, lapse=lapse)
        score = np.tile(np.log(priors), (n, 1))
        for i, j, y in zip(item, judge, label):
            score[i] += log_conf[j, :, y]
        term = logsumexp(score, axis=1)
        term[gold[0]] = score[gold[0], gold[1]]  # log P(labels, known class)
        trace.append(term.sum() + eps * (log_conf.sum() + np.log(priors).sum())
                     + log_prior(est, precision, shift, lapse, cuts[0, 0] - cuts[:, 0]))
        post = np.exp(score - logsumexp(score, axis=1, keepdims=True))
        post[gold[0]] = np.eye(k)[gold[1]]
    return post, np.exp(log_conf), lapse, np.asarray(trace)


def test_ordinal_clamped_em_is_the_direct_loop():
    labels = twin_panel()
    est = OrdinalDawidSkene(max_iter=4, tol=0.0, accelerate=False).fit(labels, gold=pd.Series(TWIN_GOLD[1],
                                                                                               index=TWIN_GOLD[0]))
    assert est.n_iter_ == 4
    post, conf, lapse, trace = loop_ordinal_em(labels, 3, 4, 0.01, TWIN_GOLD, est)
    np.testing.assert_allclose(est.proba_.to_numpy(), post, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(est.confusions_.to_numpy().reshape(-1, 3, 3), conf, rtol=1e-8)
    np.testing.assert_allclose(est.lapse_.to_numpy(), lapse, rtol=1e-8)
    np.testing.assert_allclose(est.objective_trace_, trace, rtol=1e-10)


def test_ordinal_gold_objective_and_posteriors_against_enumeration():
    labels = pd.DataFrame({"item": [0, 0, 0, 1, 1, 2, 2, 2, 3, 3], "judge": [0, 1, 2, 0, 2, 0, 1, 2, 1, 2],
                           "label": [0, 1, 0, 2, 2, 1, 2, 1, 0, 1]})
    gold, eps, k = (np.array([1, 3]), np.array([1, 0])), 0.05, 3
    est = OrdinalDawidSkene(smoothing=eps, max_iter=7, tol=0.0).fit(labels, gold=pd.Series(gold[1], index=gold[0]))
    conf, prior = est.confusions_.to_numpy().reshape(3, k, k), est.priors_.to_numpy()
    joint = {}
    for truth in itertools.product(range(k), repeat=4):
        if all(truth[i] == c for i, c in zip(*gold)):  # the truths the gold allows
            p = np.prod(prior[list(truth)])
            for i, w, y in labels.itertuples(index=False):
                p *= conf[w, truth[i], y]
            joint[truth] = p
    evidence = sum(joint.values())  # P(labels, gold classes)
    scale = est.scale_.to_numpy()
    priors = log_prior(est, 1 / scale, -est.bias_.to_numpy() / scale, est.lapse_.to_numpy(), est.locations_.to_numpy())
    assert est.objective_ == pytest.approx(np.log(evidence) + eps * (np.log(conf).sum() + np.log(prior).sum())
                                           + priors, rel=1e-12)
    for i in (0, 2):
        marginal = [sum(p for t, p in joint.items() if t[i] == c) / evidence for c in range(k)]
        np.testing.assert_allclose(est.proba_.to_numpy()[i], marginal, atol=1e-12)


def binary_adversarial_panel():
    """tests/truth/test_gold.py's panel (8 of 20 judges right 20% of the time, binary) with each judge's
    generating confusion."""
    labels, truth, accuracy = adversarial_panel()
    return labels, truth, {f"w{w}": np.array([[a, 1 - a], [1 - a, a]]) for w, a in enumerate(accuracy)}


@pytest.mark.parametrize("make, panel, error_drop, floor", [
    (EBCC, binary_adversarial_panel, 0.2, 0.8),        # measured: error 0.4385 -> 0.0716, accuracy 0.1361 -> 0.8583
    (OrdinalDawidSkene, ordinal_panel, 0.1, 0.75),     # 10 of 20 judges mirror the 4 ordered classes 85% of the
], ids=["ebcc", "ordinal"])                            # time; measured 0.3031 -> 0.1685, accuracy 0.1556 -> 0.8306
def test_gold_helps_learn_adversarial_judges(make, panel, error_drop, floor):
    labels, truth, generating = panel()
    gold = truth.iloc[::10]   # 10% of the items
    rest = truth.drop(gold.index)
    plain, helped = make().fit(labels), make().fit(labels, gold=gold)
    plain_acc = float((plain.labels_[rest.index] == rest).mean())
    helped_acc = float((helped.labels_[rest.index] == rest).mean())
    assert confusion_error(helped, generating) < confusion_error(plain, generating) - error_drop
    assert helped_acc >= plain_acc - 0.005
    assert helped_acc > floor



@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n_adversarial, right", [(10, 0.15), (12, 0.05)])
def test_ordinal_fit_finite_on_adversarial_panels(seed, n_adversarial, right):
    """A judge whose every label looks random drives its lapse to 1; the fit stays finite (the lapse is held
    below 1 and a share rounding past 1 is clipped), with and without gold, over twelve draws of two panels
    (before the guard, 3 of these 48 fits had NaN confusions on an AMD EPYC: seeds 0 and 7 with gold, 4 without)."""
    labels, truth, _ = ordinal_panel(seed=seed, n_adversarial=n_adversarial, right=right)
    for gold in (None, truth.iloc[::10]):
        est = OrdinalDawidSkene().fit(labels, gold=gold)
        for fitted in (est.proba_, est.confusions_, est.lapse_, est.scale_, est.bias_):
            assert np.isfinite(fitted.to_numpy()).all()
        assert (est.lapse_ < 1).all()
        np.testing.assert_allclose(est.confusions_.to_numpy().sum(axis=1), 1.0, atol=1e-9)
