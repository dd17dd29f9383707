"""Gold items (known answers) in GLAD's and MACE's fits: nothing moves without gold; the gold posteriors are
one-hot inside the fit; one E-step with gold against a direct loop; whole fits against small loop-based
references that clamp the gold items themselves; what gold buys on a panel with adversarial judges."""
import numpy as np
import pandas as pd
import pytest
from scipy.special import digamma, expit

from manyjudges.core.coded_labels import as_crowd_labels, gold_codes
from manyjudges.core.solvers import lbfgsb
from manyjudges.io.engine.errors import DataWarning
from manyjudges.truth import GLAD, MACE
from manyjudges.truth.methods.glad import _e_step as glad_e_step
from manyjudges.truth.methods.glad import _neg_q
from manyjudges.truth.methods.mace import _e_step as mace_e_step
from manyjudges.truth.methods.mace import _kl_dirichlet, _normalise, _run

from .test_gold import adversarial_panel

ESTIMATORS = {"glad": GLAD, "mace": MACE, "mace_em": lambda **kw: MACE(method="em", **kw)}


def small_panel(seed=0, n_items=14, n_judges=5, k=3, per_item=3):
    """A tiny random K-class panel and gold on three items, two of them against their labels' majority."""
    rng = np.random.default_rng(seed)
    rows = [(i, int(w), int(rng.integers(0, k))) for i in range(n_items)
            for w in rng.choice(n_judges, per_item, replace=False)]
    labels = pd.DataFrame(rows, columns=["item", "judge", "label"])
    votes = labels.groupby("item")["label"].agg(lambda s: s.value_counts().idxmax())
    gold = pd.Series([(votes[1] + 1) % k, (votes[4] + 2) % k, votes[9]], index=[1, 4, 9])
    return labels, gold


# (a) without gold nothing moves

#: from the code before gold entered these fits, on adversarial_panel(3, n_items=60): the objective, n_iter_,
#: P(class 1) of the first six items and the first four skills (GLAD(); MACE(n_restarts=3), vb and em)
BEFORE = {
    "glad": ({}, -183.34279274416457, 38,
             [0.9999994107049588, 0.03535562355672342, 1.2580374788194569e-08, 2.8675308733768244e-06,
              0.999998919165954, 0.0015045923339523485],
             [-0.5352327715141224, -0.4284200535169999, 0.753717270659655, 1.2550165567707714]),
    "mace": ({"n_restarts": 3}, -230.49837991567912, 50,
             [2.1744243271192443e-05, 0.9773762016998789, 0.014661527976371923, 0.6877075453760424,
              0.23659186665080154, 0.9969924341423639],
             [0.06435126711583705, 0.7404022432674259, 0.0647319764532772, 0.050270320334080236]),
    "mace_em": ({"n_restarts": 3}, -189.78017513721, 50,
                [2.813653623411321e-07, 0.7843826425354683, 0.0007372274956153444, 0.42146500627160244,
                 0.4661402607362884, 0.999981912204448],
                [0.001273958546308356, 0.7974071525067209, 0.08739303163371634, 0.016859155784327347]),
}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_without_gold_the_fit_is_as_before(name):
    labels, _, _ = adversarial_panel(3, n_items=60)
    params, objective, n_iter, proba, skills = BEFORE[name]
    plain = ESTIMATORS[name](**params).fit(labels)
    fitted_objective = plain.log_posterior_ if name == "glad" else plain.objective_
    assert fitted_objective == pytest.approx(objective, rel=1e-12)
    assert plain.n_iter_ == n_iter
    np.testing.assert_allclose(plain.proba_.iloc[:6, 1].to_numpy(), proba, rtol=1e-10, atol=1e-16)
    np.testing.assert_allclose(plain.skills_.iloc[:4].to_numpy(), skills, rtol=1e-10)
    # gold=None, and a gold table none of whose items has labels (the gold code runs with no gold item): the same
    with pytest.warns(DataWarning, match="1 of 1 gold items have no labels"):
        unlabelled_gold = ESTIMATORS[name](**params).fit(labels, gold=pd.Series([1], index=["nowhere"]))
    for other in (ESTIMATORS[name](**params).fit(labels, gold=None), unlabelled_gold):
        pd.testing.assert_frame_equal(other.proba_, plain.proba_, check_exact=True)
        pd.testing.assert_series_equal(other.skills_, plain.skills_, check_exact=True)


# (b) gold items keep their class, inside the fit too

@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_gold_posteriors_are_one_hot_inside_the_fit(name):
    labels, gold = small_panel(1)
    data = as_crowd_labels(labels)
    known = gold_codes(data, gold)[:2]
    result = ESTIMATORS[name]()._fit(data, known)   # before the base class sets the gold rows
    np.testing.assert_array_equal(result.proba[known[0]], np.eye(3)[known[1]])
    plain = ESTIMATORS[name]()._fit(data)
    assert not np.array_equal(plain.proba[known[0]], np.eye(3)[known[1]])   # the labels alone say otherwise
    fitted = ESTIMATORS[name]().fit(labels, gold=gold)
    assert (fitted.labels_[gold.index] == gold).all()
    np.testing.assert_array_equal(fitted.proba_.loc[gold.index].to_numpy(), np.eye(3)[gold.to_numpy()])
    assert fitted.gold_.sort_index().tolist() == gold.sort_index().tolist()


# (c) one E-step with gold against a direct loop, and whole fits against loop references

def loop_glad_e_step(data, alpha, log_beta, gold):
    """GLAD's E-step item by item, label by label; a gold item's posterior one-hot, its term log P(labels, class)."""
    k = data.n_classes
    post, total = np.zeros((data.n_items, k)), 0.0
    for i in range(data.n_items):
        joint = np.full(k, 1.0 / k)
        for e in np.flatnonzero(data.item == i):
            right = 1.0 / (1.0 + np.exp(-alpha[data.judge[e]] * np.exp(log_beta[i])))
            for z in range(k):
                joint[z] *= right if data.label[e] == z else (1.0 - right) / (k - 1)
        if i in gold:
            post[i, gold[i]] = 1.0
            total += np.log(joint[gold[i]])
        else:
            post[i] = joint / joint.sum()
            total += np.log(joint.sum())
    return post, total


def loop_mace_e_step(data, spam, xi, gold):
    """MACE's E-step item by item: P(T_i) (one-hot for gold), the expected (spam, know) and strategy counts,
    sum_i log Z_i (a gold item's: the joint at its class)."""
    k = data.n_classes
    post, total = np.zeros((data.n_items, k)), 0.0
    counts, strategy = np.zeros((data.n_judges, 2)), np.zeros((data.n_judges, k))
    for i in range(data.n_items):
        rows = np.flatnonzero(data.item == i)
        joint = np.full(k, 1.0 / k)
        for e in rows:
            w, a = data.judge[e], data.label[e]
            for t in range(k):
                joint[t] *= spam[w, 0] * xi[w, a] + spam[w, 1] * (a == t)
        if i in gold:
            post[i, gold[i]] = 1.0
            total += np.log(joint[gold[i]])
        else:
            post[i] = joint / joint.sum()
            total += np.log(joint.sum())
        for e in rows:
            w, a = data.judge[e], data.label[e]
            p_know = post[i, a] * spam[w, 1] / (spam[w, 0] * xi[w, a] + spam[w, 1])
            counts[w] += (1.0 - p_know, p_know)
            strategy[w, a] += 1.0 - p_know
    return post, counts, strategy, total


def test_one_e_step_with_gold_is_the_direct_loop():
    labels, gold = small_panel(2)
    data = as_crowd_labels(labels)
    known = gold_codes(data, gold)[:2]
    by_item = dict(zip(*known))
    rng = np.random.default_rng(3)
    alpha, log_beta = rng.normal(0.5, 1.0, data.n_judges), rng.normal(0.0, 0.7, data.n_items)
    post, loglik = glad_e_step(data, alpha, log_beta, known)
    expected_post, expected_loglik = loop_glad_e_step(data, alpha, log_beta, by_item)
    np.testing.assert_allclose(post, expected_post, rtol=1e-12, atol=1e-15)
    assert loglik == pytest.approx(expected_loglik, rel=1e-12)
    spam, xi = _normalise(rng.random((data.n_judges, 2)) + 0.1), _normalise(rng.random((data.n_judges, 3)) + 0.1)
    post_t, counts, strategy, log_z = mace_e_step(data, spam, xi, known=known)
    expected = loop_mace_e_step(data, spam, xi, by_item)
    np.testing.assert_allclose(post_t.T, expected[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(counts, expected[1], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(strategy, expected[2], rtol=1e-12, atol=1e-15)
    assert log_z == pytest.approx(expected[3], rel=1e-12)


def reference_glad(data, gold, n_iter, prior=(1.0, 1.0, 1.0, 1.0)):
    """GLAD's EM with the loop E-step above (gold clamped there); the M-step is the module's -Q by L-BFGS-B."""
    alpha, log_beta = np.full(data.n_judges, prior[0]), np.full(data.n_items, prior[2])
    post, loglik = loop_glad_e_step(data, alpha, log_beta, gold)
    history = [loglik - 0.5 * (np.sum((alpha - prior[0]) ** 2) + np.sum((log_beta - prior[2]) ** 2))]
    for _ in range(n_iter):
        q = post[data.item, data.label]
        params, _ = lbfgsb(lambda p, q=q: _neg_q(p, data, q, prior), np.concatenate([alpha, log_beta]),
                           maxiter=25, gtol=1e-2)
        alpha, log_beta = params[:data.n_judges], params[data.n_judges:]
        post, loglik = loop_glad_e_step(data, alpha, log_beta, gold)
        history.append(loglik - 0.5 * (np.sum((alpha - prior[0]) ** 2) + np.sum((log_beta - prior[2]) ** 2)))
    return post, alpha, log_beta, history


def test_glad_fit_with_gold_is_the_loop_reference():
    """The fitted abilities, difficulties, objectives and the other items' posteriors equal those of an EM
    whose E-step clamps the gold items in a loop of its own: the fit clamps them at every step, and the
    objective it stops on counts them with their known class."""
    labels, gold = small_panel(4, n_items=16)
    data = as_crowd_labels(labels)
    known = gold_codes(data, gold)[:2]
    fitted = GLAD(max_iter=12, tol=0.0).fit(labels, gold=gold)
    post, alpha, log_beta, history = reference_glad(data, dict(zip(*known)), fitted.n_iter_)
    np.testing.assert_allclose(fitted.skills_.to_numpy(), alpha, atol=1e-8)
    np.testing.assert_allclose(np.log(fitted.betas_.to_numpy()), log_beta, atol=1e-8)
    np.testing.assert_allclose(fitted.objective_history_, history, atol=1e-8)
    np.testing.assert_allclose(fitted.proba_.to_numpy(), post, atol=1e-8)
    plain = GLAD(max_iter=12, tol=0.0).fit(labels)
    assert np.abs(plain.skills_.to_numpy() - alpha).max() > 1e-3   # gold moved the abilities


def reference_mace(data, gold, method, n_restarts, n_iter, seed=0, noise=0.5):
    """MACE's restarts with the loop E-step above (gold clamped there): (theta, xi, posteriors, objectives)."""
    k = data.n_classes
    rng = np.random.default_rng(seed)
    best, objectives = None, []
    for _ in range(n_restarts):
        spam = _normalise(1.0 + noise * rng.random((data.n_judges, 2)))
        xi = _normalise(1.0 + noise * rng.random((data.n_judges, k)))
        _, counts, strategy, _ = loop_mace_e_step(data, spam, xi, gold)
        for _ in range(n_iter):
            if method == "em":
                knowing, strat = counts + 0.01 / k, strategy + 0.01 / k
                spam, xi = _normalise(knowing), _normalise(strat)
            else:
                knowing, strat = counts + 0.5, strategy + 10.0
                spam = np.exp(digamma(knowing) - digamma(knowing.sum(axis=1, keepdims=True)))
                xi = np.exp(digamma(strat) - digamma(strat.sum(axis=1, keepdims=True)))
            post, counts, strategy, log_z = loop_mace_e_step(data, spam, xi, gold)
        objective = log_z if method == "em" else (log_z - _kl_dirichlet(knowing, np.full(knowing.shape, 0.5))
                                                  - _kl_dirichlet(strat, np.full(strat.shape, 10.0)))
        objectives.append(objective)
        if best is None or objective > best[3]:
            best = (_normalise(knowing)[:, 1], _normalise(strat), post, objective)
    return best, objectives


@pytest.mark.parametrize("method", ["vb", "em"])
def test_mace_fit_with_gold_is_the_loop_reference(method):
    """Every restart (seeded as without gold) equals a run whose E-step clamps the gold items in a loop of its
    own: the same objectives (the joint for gold items), the same restart kept, theta, xi and posteriors."""
    labels, gold = small_panel(5, n_items=16)
    data = as_crowd_labels(labels)
    known = gold_codes(data, gold)[:2]
    fitted = MACE(n_restarts=3, n_iter=15, method=method).fit(labels, gold=gold)
    (theta, xi, post, objective), objectives = reference_mace(data, dict(zip(*known)), method, 3, 15)
    np.testing.assert_allclose(fitted.objectives_, objectives, atol=1e-8)
    assert fitted.objective_ == pytest.approx(objective, abs=1e-8)
    np.testing.assert_allclose(fitted.skills_.to_numpy(), theta, atol=1e-8)
    np.testing.assert_allclose(fitted.strategies_.to_numpy(), xi, atol=1e-8)
    np.testing.assert_allclose(fitted.proba_.to_numpy(), post, atol=1e-8)
    plain = MACE(n_restarts=3, n_iter=15, method=method).fit(labels)
    assert np.abs(plain.skills_.to_numpy() - theta).max() > 1e-3   # gold moved the competences


def test_objectives_with_gold_never_decrease():
    """With the gold items' joint terms the objectives are still the ones the iterations climb: GLAD's log
    posterior (generalised EM), MACE's likelihood (EM without smoothing) and ELBO (VB)."""
    labels, truth, _ = adversarial_panel(2, n_items=120)
    gold = truth.iloc[::10]
    history = np.asarray(GLAD(tol=0.0, max_iter=40).fit(labels, gold=gold).objective_history_)
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))
    data = as_crowd_labels(labels)
    known = gold_codes(data, gold)[:2]
    rng = np.random.default_rng(4)
    for method in ("em", "vb"):
        spam, xi = _normalise(1 + rng.random((data.n_judges, 2))), _normalise(1 + rng.random((data.n_judges, 2)))
        history = _run(data, spam, xi, 40, method, 0.0, 0.5, 0.5, 10.0, known).history
        assert np.all(np.diff(history) >= -1e-9 * np.abs(history[1:]))


# (d) what gold buys against adversarial judges

def skill_error(name, fitted, accuracy, labels):
    """Mean |estimated - generating| accuracy per judge: GLAD's mean over a judge's items of
    sigmoid(alpha_w beta_i); MACE's confusion diagonal theta_w + (1 - theta_w) xi_w[t], both classes."""
    judges = fitted.skills_.index
    true_acc = pd.Series(accuracy, index=[f"w{w}" for w in range(len(accuracy))])[judges].to_numpy()
    if name == "glad":
        data = as_crowd_labels(labels)
        right = expit(fitted.skills_.to_numpy()[data.judge] * fitted.betas_.to_numpy()[data.item])
        estimated = np.bincount(data.judge, weights=right) / np.bincount(data.judge)
        return float(np.mean(np.abs(estimated - true_acc)))
    conf = fitted.confusions_.to_numpy().reshape(-1, 2, 2)
    return float(np.mean(np.abs(conf[:, [0, 1], [0, 1]] - true_acc[:, None])))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
@pytest.mark.parametrize("seed", [0, 1])
def test_gold_helps_learn_adversarial_judges(name, seed):
    """Seed 0: without gold, each method settles on the flipped reading (the adversarial judges as the good
    ones, accuracy below 0.25); 10% gold puts it right. Seed 1: without gold already right; gold still brings
    the judge skills closer to the generating ones. Either way the other items lose at most 0.005."""
    labels, truth, accuracy = adversarial_panel(seed)
    gold = truth.iloc[::10]   # 10% of the items
    rest = truth.drop(gold.index)
    plain = ESTIMATORS[name]().fit(labels)
    helped = ESTIMATORS[name]().fit(labels, gold=gold)
    assert skill_error(name, helped, accuracy, labels) < skill_error(name, plain, accuracy, labels)
    accuracy_plain = (plain.labels_[rest.index] == rest).mean()
    accuracy_helped = (helped.labels_[rest.index] == rest).mean()
    assert accuracy_helped >= accuracy_plain - 0.005
    adversarial = helped.skills_.index.isin([f"w{w}" for w in range(8)])
    if name == "glad":   # ability: negative for the adversarial judges, positive for the others
        assert (np.sign(helped.skills_.to_numpy()) == np.where(adversarial, -1, 1)).all()
    else:   # competence: the adversarial judges (whom MACE can only read as spammers) below every other
        assert helped.skills_[adversarial].max() < helped.skills_[~adversarial].min()
    if seed == 0:
        assert accuracy_plain < 0.25 < 0.7 < accuracy_helped
        assert skill_error(name, helped, accuracy, labels) < 0.5 * skill_error(name, plain, accuracy, labels)
