"""Expected calibration error and AUROC of the top-class probability, against direct loops and
scikit-learn; posteriors that mean what they say have an ECE near 0."""
import numpy as np
import pytest

from manyjudges.truth import DawidSkene
from manyjudges.truth.calibration import _calibration_scores, _expected_calibration_error, auroc
from manyjudges.truth.simulate import simulate_labels


def loop_ece(confidence, correct, n_bins=10):
    total = 0.0
    for b in range(n_bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        inside = [(c, r) for c, r in zip(confidence, correct) if (lo < c <= hi) or (b == 0 and c == 0)]
        if inside:
            accuracy, mean_confidence = np.mean([r for _, r in inside]), np.mean([c for c, _ in inside])
            total += len(inside) / len(confidence) * abs(accuracy - mean_confidence)
    return total


def loop_auroc(score, positive):
    pos = [s for s, p in zip(score, positive) if p]
    neg = [s for s, p in zip(score, positive) if not p]
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def test_ece_and_auroc_are_the_direct_loops():
    rng = np.random.default_rng(0)
    confidence = np.r_[rng.uniform(0.3, 1.0, 300), [1.0, 0.5, 0.5]]
    correct = rng.random(303) < confidence
    assert _expected_calibration_error(confidence, correct) == pytest.approx(loop_ece(confidence, correct), abs=1e-12)
    rounded = np.round(confidence, 1)  # ties
    assert auroc(rounded, correct) == pytest.approx(loop_auroc(rounded, correct), abs=1e-12)


def test_auroc_is_scikit_learns():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(1)
    score = np.round(rng.random(500), 2)
    positive = rng.random(500) < score
    assert auroc(score, positive) == pytest.approx(metrics.roc_auc_score(positive, score), abs=1e-12)
    assert np.isnan(auroc(score, np.ones(500, dtype=bool)))


def test_true_posteriors_are_calibrated():
    """Items whose label is right with exactly the stated probability: ECE near 0 (sampling only)."""
    rng = np.random.default_rng(2)
    confidence = rng.uniform(0.5, 1.0, 20000)
    correct = rng.random(20000) < confidence
    assert _expected_calibration_error(confidence, correct) < 0.02
    assert _expected_calibration_error(confidence, np.ones(20000, dtype=bool)) > 0.2   # underconfident


def test_calibration_scores_of_a_fitted_method():
    labels, truth, _ = simulate_labels(np.random.default_rng(4), n_items=300, n_judges=15, labels_per_item=3,
                                       n_classes=3, good_accuracy=0.6)
    fitted = DawidSkene().fit(labels)
    ece, roc = _calibration_scores(fitted.proba_, fitted.labels_, truth)
    confidence = fitted.proba_.max(axis=1)[truth["item"]].to_numpy()
    right = fitted.labels_[truth["item"]].to_numpy() == truth["truth"].to_numpy()
    assert 0 < right.mean() < 1
    assert ece == pytest.approx(loop_ece(confidence, right), abs=1e-12)
    assert roc == pytest.approx(loop_auroc(confidence, right), abs=1e-12)
    assert np.isnan(_calibration_scores(fitted.proba_, fitted.labels_, None)).all()


def test_mid_ranks_are_scipys_average_ranks():
    from scipy.stats import rankdata

    from manyjudges.truth.calibration import mid_ranks

    rng = np.random.default_rng(3)
    for values in (rng.random(500), rng.integers(0, 7, 500).astype(float), np.array([2.0]), np.zeros(4)):
        assert np.array_equal(mid_ranks(values), rankdata(values))
