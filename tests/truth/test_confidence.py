"""The calibration of posteriors (temperature and floor): against a hand fit, and its floor."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.truth import Auto, DawidSkene
from manyjudges.truth.confidence import Confidence, _least_floor, fit_confidence
from manyjudges.truth.heldout import HeldOut


def hand_held_out(seed: int = 0, n: int = 400, k: int = 3) -> HeldOut:
    """Overconfident posteriors of items whose withheld labels come from judges right 70% of the time."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    accuracy = 0.7
    pi = np.full((k, k), (1 - accuracy) / (k - 1)) + np.eye(k) * (accuracy - (1 - accuracy) / (k - 1))
    label = np.array([rng.choice(k, p=pi[t]) for t in truth])
    # a method that is right 80% of the time and says 0.99 each time
    chosen = np.where(rng.random(n) < 0.8, truth, (truth + 1) % k)
    posteriors = np.full((n, k), 0.01 / (k - 1))
    posteriors[np.arange(n), chosen] = 0.99
    return HeldOut(posteriors, pi[:, label].T)


def brute_force_beta(held: HeldOut, floor: float) -> float:
    """The beta of a grid of 20,001 log-spaced values in [0.02, 5] with the highest mean log probability."""
    k = held.said.shape[1]
    best, best_score = 1.0, -np.inf
    for beta in np.exp(np.linspace(np.log(0.02), np.log(5.0), 20001)):
        t = held.posteriors ** beta
        t /= t.sum(axis=1, keepdims=True)
        c = (1 - k * floor) * t + floor
        score = np.mean(np.log(np.einsum("et,et->e", c, held.said)))
        if score > best_score:
            best, best_score = beta, score
    return float(best)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_temperature_is_the_hand_fit(seed):
    held = hand_held_out(seed)
    fitted = fit_confidence(held)
    assert fitted.floor == pytest.approx(1 / (len(held.said) + 2))
    expected = brute_force_beta(held, fitted.floor)
    assert fitted.beta == pytest.approx(expected, rel=0.02)
    assert fitted.beta < 1  # overconfident posteriors are softened


def test_apply_keeps_the_argmax_sums_to_one_and_floors():
    rng = np.random.default_rng(3)
    t = rng.dirichlet(np.ones(4) * 0.2, 500)
    t[0] = [1.0, 0.0, 0.0, 0.0]
    c = Confidence(beta=0.7, floor=0.01).apply(t)
    assert np.allclose(c.sum(axis=1), 1.0)
    assert (c.argmax(axis=1) == t.argmax(axis=1)).all()
    assert c.min() >= 0.01 - 1e-15
    assert c[0, 0] == pytest.approx(1 - 3 * 0.01)


def test_least_floor_is_laplaces_rule():
    assert _least_floor(0) == 0.5
    assert _least_floor(6) == pytest.approx(1 / 8)


def test_auto_states_no_posterior_below_the_floor_on_six_labels():
    """The README's example: six labels cannot tell a probability of 1e-74."""
    labels = pd.DataFrame({"item": ["a", "a", "a", "b", "b", "b"], "judge": ["x", "y", "z"] * 2,
                           "label": [1, 1, 0, 0, 0, 1]})
    raw = DawidSkene().fit(labels).proba_.to_numpy()
    assert raw.min() < 1e-10  # the raw model says more than the labels can tell
    auto = Auto().fit(labels)
    assert auto.proba_.to_numpy().min() >= auto.floor_ - 1e-15
    assert auto.floor_ >= 1 / (6 + 2) - 1e-12
    assert list(auto.labels_) == [1, 0]
