"""The truth family's simulator, experiment runner and report section, each against a hand computation."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.core.random_streams import rng_for
from manyjudges.truth.experiment import run_methods
from manyjudges.truth.methods.majority_vote import MajorityVote
from manyjudges.truth.report import _truth_comparisons, _truth_markdown, published_accuracy
from manyjudges.truth.results import accuracy, judges_table, labels_table
from manyjudges.truth.simulate import simulate_labels


def test_simulated_labels_are_seeded_and_shaped():
    a = simulate_labels(rng_for(3, "x"), n_items=50, n_judges=10, labels_per_item=4, n_classes=3)
    b = simulate_labels(rng_for(3, "x"), n_items=50, n_judges=10, labels_per_item=4, n_classes=3)
    for x, y in zip(a, b):
        pd.testing.assert_frame_equal(x, y)
    labels, truth, judges = a
    assert len(labels) == 200 and len(truth) == 50 and len(judges) == 10
    assert not labels.duplicated(["item", "judge"]).any()  # distinct judges per item
    assert labels["label"].between(0, 2).all()
    assert judges["kind"].value_counts().to_dict() == {"good": 8, "random": 1, "biased": 1}


def test_good_judges_say_the_truth_at_their_accuracy_and_err_to_neighbours_when_ordinal():
    labels, truth, judges = simulate_labels(rng_for(1, "y"), n_items=4000, n_judges=5, labels_per_item=5,
                                             n_classes=5, judge_mix={"good": 1.0}, good_accuracy=0.7, ordinal=True)
    joined = labels.merge(truth, on="item")
    assert np.mean(joined["label"] == joined["truth"]) == pytest.approx(0.7, abs=0.01)
    assert (np.abs(joined["label"] - joined["truth"]) <= 1).all()


def test_accuracy_counts_truth_items_and_rejects_unlabelled_ones():
    labels = pd.Series(["a", "b", "a"], index=["i1", "i2", "i3"])
    assert accuracy(labels, pd.DataFrame({"item": ["i1", "i2"], "truth": ["a", "a"]})) == (0.5, 2)
    acc, n = accuracy(labels, None)
    assert np.isnan(acc) and n == 0
    with pytest.raises(ValueError, match="'i9'"):
        accuracy(labels, pd.DataFrame({"item": ["i9"], "truth": ["a"]}))


def test_run_methods_tables():
    frame = pd.DataFrame({"item": ["p", "p", "p", "q", "q", "q"], "judge": ["x", "y", "z"] * 2,
                          "label": [1, 1, 0, 0, 2, 2]})
    truth = pd.DataFrame({"item": ["p", "q"], "truth": [1, 0]})
    run = run_methods(frame, truth, {"mv": {"method": "majority_vote"}, "ds": {"method": "dawid_skene"}})
    assert run.accuracy["method"].tolist() == ["mv", "ds"]
    assert run.accuracy.loc[0, "accuracy"] == 0.5 and run.accuracy.loc[0, "n_truth"] == 2
    mv = run.labels[run.labels["method"] == "mv"]
    assert mv.columns.tolist() == ["method", "item", "label", "p_0", "p_1", "p_2"]
    assert mv["label"].tolist() == [1, 2]
    assert mv[["p_0", "p_1", "p_2"]].to_numpy() == pytest.approx(np.array([[1, 2, 0], [1, 0, 2]]) / 3)
    skills = run.judges[run.judges["method"] == "mv"].set_index("judge")["skill"]
    assert skills.to_dict() == {"x": 0.5, "y": 1.0, "z": 0.5}
    estimator = MajorityVote().fit(frame)
    assert labels_table(estimator)["item"].tolist() == ["p", "q"]
    assert judges_table(estimator).columns.tolist() == ["judge", "skill"]


def _write(tmp_path, name, rows, columns):
    path = tmp_path / name
    pd.DataFrame(rows, columns=columns).to_csv(path, sep="\t", index=False)
    return path


def test_report_section_and_comparisons_against_published_values(tmp_path):
    paper = pd.DataFrame({"paper": ["li2019", "li2019", "ustalov2024"], "table": ["accuracy"] * 3,
                          "dataset": ["truth_rte"] * 3, "method": ["ebcc", "bwa", "dawid_skene"],
                          "paper_value": ["0.93", "0.92", "0.927"]})
    acc = _write(tmp_path, "accuracy.tsv", [("mv", 0.9, 800, 0.01), ("dawid_skene", 0.925, 800, 0.02)],
                 ["method", "accuracy", "n_truth", "seconds"])
    stats = {"items": 800, "judges": 164, "labels": 8000, "classes": 2, "labels_per_item_mean": 10.0,
             "labels_per_item_min": 10, "labels_per_item_max": 10, "items_with_truth": 800, "alpha_nominal": 0.24}
    summary = _write(tmp_path, "summary.tsv", list(stats.items()), ["statistic", "value"])
    results = {"truth_rte": {"accuracy": acc, "summary": summary}}
    datasets = {"truth_rte": {"source": "truth_benchmark"}}
    methods = {"mv": {"method": "majority_vote"}, "dawid_skene": {}}
    assert published_accuracy(paper, "truth_rte")["method"].tolist() == ["ebcc", "bwa", "dawid_skene"]
    cells = _truth_comparisons(results, datasets, methods, paper)
    assert cells[["paper", "method", "ours", "paper_value"]].values.tolist() == [
        ["ustalov2024", "dawid_skene", 0.925, 0.927]]
    text = _truth_markdown(results, datasets, methods, paper)
    assert "| dawid_skene | 0.9250 | 0.9270 (`ustalov2024`) | -0.0020 | 0.020 s |" in text
    assert "| ebcc (published only) |" in text
    assert "| truth_rte | dawid_skene | 0.9250 | 0.9300 | -0.0050 |" in text
    assert "alpha (nominal) 0.2400" in text
