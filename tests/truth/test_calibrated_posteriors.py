"""Calibrated posteriors on simulated panels whose exact posteriors are known.

A Dawid-Skene panel (3 classes with priors 0.5/0.3/0.2, 60 judges with their own full confusion
matrices, accuracy U(0.5, 0.9), 4 labels per item, 3000 items): the posteriors computed with the
generating parameters have an expected calibration error near 0 (only sampling noise: 0.007-0.009
on three seeds); the stated bounds for the fitted ones are what three seeds measured (auto
0.017-0.020, Dawid-Skene tempered 0.020-0.031, majority vote 0.135-0.156 and tempered 0.016-0.035)
with room for other seeds."""
import numpy as np
import pandas as pd
import pytest

from manyjudges import build_method, family_registry
from manyjudges.truth import Auto, DawidSkene, MajorityVote
from manyjudges.truth.calibration import _expected_calibration_error


def dawid_skene_panel(seed: int, n_items: int = 3000, n_judges: int = 60, per_item: int = 4):
    """(labels, truth codes, exact posteriors under the generating parameters)."""
    rng = np.random.default_rng(seed)
    k, prior = 3, np.array([0.5, 0.3, 0.2])
    truth = rng.choice(k, n_items, p=prior)
    confusion = np.zeros((n_judges, k, k))
    for w in range(n_judges):
        accuracy = rng.uniform(0.5, 0.9)
        for t in range(k):
            confusion[w, t] = np.insert(rng.dirichlet(np.ones(k - 1)) * (1 - accuracy), t, accuracy)
    items = np.repeat(np.arange(n_items), per_item)
    judges = np.concatenate([rng.choice(n_judges, per_item, replace=False) for _ in range(n_items)])
    cumulative = confusion[judges, truth[items]].cumsum(axis=1)
    labels = np.minimum((rng.random(len(items))[:, None] > cumulative).sum(axis=1), k - 1)
    log_joint = np.tile(np.log(prior), (n_items, 1))
    np.add.at(log_joint, items, np.log(confusion[judges, :, labels]))
    exact = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    exact /= exact.sum(axis=1, keepdims=True)
    table = pd.DataFrame({"item": [f"i{i:05d}" for i in items], "judge": [f"w{w:03d}" for w in judges],
                          "label": labels})
    return table, truth, exact


def ece(posteriors: np.ndarray, truth: np.ndarray) -> float:
    return _expected_calibration_error(posteriors.max(axis=1), posteriors.argmax(axis=1) == truth)


@pytest.fixture(scope="module", params=[0, 1])
def panel(request):
    return dawid_skene_panel(request.param)


def test_the_exact_posteriors_are_calibrated(panel):
    _, truth, exact = panel
    assert ece(exact, truth) < 0.015


def test_auto_and_tempered_posteriors_are_within_the_stated_bounds(panel):
    labels, truth, _ = panel
    auto = Auto().fit(labels).proba_.to_numpy()
    assert ece(auto, truth) < 0.03
    tempered = DawidSkene(calibrate="tempering").fit(labels)
    assert ece(tempered.proba_.to_numpy(), truth) < 0.04
    # as right as the generating model fitted (the exact posteriors are 0.013 better: the fit's estimation error)
    fitted = (tempered.proba_.to_numpy().argmax(axis=1) == truth).mean()
    assert (auto.argmax(axis=1) == truth).mean() >= fitted - 0.005
    vote, vote_tempered = MajorityVote().fit(labels), MajorityVote(calibrate="tempering").fit(labels)
    raw, fixed = ece(vote.proba_.to_numpy(), truth), ece(vote_tempered.proba_.to_numpy(), truth)
    assert raw > 0.1 and fixed < 0.05  # vote shares understate confidence; the tempering finds it
    assert vote_tempered.beta_ > 1.5
    assert (vote_tempered.labels_ == vote.labels_).all()  # tempering changes confidences, not labels


@pytest.mark.parametrize("name", list(family_registry("truth")))
def test_every_truth_method_checks_calibrate_in_its_check_params(name):
    """One check per estimator (``_check_params``, as the contract names it): a method's own covers the family's
    ``calibrate``, at build time and in ``fit``; there is no public ``check_params``."""
    with pytest.raises(ValueError, match="calibrate must be 'tempering' or None, got 'platt'"):
        build_method("truth", name, calibrate="platt")
    method = build_method("truth", name)
    assert not hasattr(method, "check_params")
    method.calibrate = "platt"
    with pytest.raises(ValueError, match="calibrate must be 'tempering' or None, got 'platt'"):
        method._check_params()
