"""`manyjudges truth next`: the command against the library call, candidates and judges files, bad input."""
import numpy as np
import pandas as pd
import pytest
from command import run_command

from manyjudges.truth import DawidSkene, as_crowd_labels
from manyjudges.truth.active.advice import next_labels

run = run_command


@pytest.fixture
def labels(tmp_path):
    """40 items with 1 to 4 labels from 8 judges of falling accuracy (each judge on an item once)."""
    rng = np.random.default_rng(2)
    rows = ["item\tjudge\tlabel"]
    for i in range(40):
        t = int(rng.integers(0, 2))
        for w in rng.choice(8, int(rng.integers(1, 5)), replace=False):
            rows.append(f"i{i}\tw{w}\t{t if rng.random() < 0.95 - 0.05 * w else 1 - t}")
    path = tmp_path / "labels.tsv"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_next_equals_the_library(capsys, labels, tmp_path):
    out = tmp_path / "next.tsv"
    status, _, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 6, "-o", out)
    assert status == 0, err
    got = pd.read_csv(out, sep="\t", dtype={"item": str})
    data = as_crowd_labels(pd.read_csv(labels, sep="\t"))
    fitted = DawidSkene().fit(data)
    expected = next_labels(data, fitted.proba_.to_numpy(), 6,
                           confusions=fitted.confusions_.to_numpy().reshape(data.n_judges, 2, 2))
    assert got["item"].tolist() == expected["item"].astype(str).tolist()
    np.testing.assert_allclose(got["score"], expected["score"])
    assert list(got.columns) == ["item", "score"] and len(got) <= 6


def test_candidates_and_judges_files(capsys, labels, tmp_path):
    (tmp_path / "cand.tsv").write_text("item\tavailable\ni3\t1\ni5\t0\ni7\t2\n")
    (tmp_path / "judges.tsv").write_text("judge\tavailable\nw0\t1\nw6\t10\n")
    status, out, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 3, "--stop", 1,
                           "--candidates", tmp_path / "cand.tsv", "--judges-available", tmp_path / "judges.tsv",
                           "--policy", "uniform")
    assert status == 0, err
    table = pd.read_csv(pd.io.common.StringIO(out), sep="\t")
    assert set(table["item"]) <= {"i3", "i7"} and (table["item"] == "i3").sum() <= 1
    assert set(table["judge"]) <= {"w0", "w6"} and (table["judge"] == "w0").sum() <= 1
    given = pd.read_csv(labels, sep="\t")
    assert not set(zip(table["item"], table["judge"])) & set(zip(given["item"], given["judge"]))


def test_a_budget_past_what_can_be_given_warns(capsys, labels, tmp_path):
    (tmp_path / "cand.tsv").write_text("item\ni3\n")
    status, out, err = run(capsys, "truth", "next", labels, "--method", "majority_vote", "--budget", 50,
                           "--policy", "uncertainty", "--stop", 1, "--min-gain", 0,
                           "--candidates", tmp_path / "cand.tsv")
    assert status == 0 and "1 of the 50" in err  # uncertainty sampling names an item once
    assert out.splitlines()[1].startswith("i3")


def test_bad_input_names_file_line_and_value(capsys, labels, tmp_path):
    (tmp_path / "cand.tsv").write_text("item\tavailable\ni3\t1\ni5\tmany\n")
    status, _, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 3,
                         "--candidates", tmp_path / "cand.tsv")
    assert status == 1 and "cand.tsv" in err and "line 3" in err and "many" in err
    (tmp_path / "judges.tsv").write_text("judge\nw0\nw0\n")
    status, _, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 3,
                         "--judges-available", tmp_path / "judges.tsv")
    assert status == 1 and "line 3" in err and "twice" in err
    status, _, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 0)
    assert status == 2 and "--budget" in err
    status, _, err = run(capsys, "truth", "next", labels, "--method", "no_such", "--budget", 2)
    assert status == 2 and "unknown truth method" in err


def test_stderr_gives_the_estimated_accuracy_and_the_expected_gain_and_the_stop(capsys, labels, tmp_path):
    from manyjudges.truth.active.advice import DEFAULT_MIN_GAIN, advise, fitted_confusions

    data = as_crowd_labels(pd.read_csv(labels, sep="\t"))
    fitted = DawidSkene().fit(data)
    advice = advise(data, fitted.proba_.to_numpy(), 6, confusions=fitted_confusions(fitted, data), min_gain=0.0)
    out = tmp_path / "next.tsv"
    status, stdout, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 6,
                              "--min-gain", 0, "-o", out)
    assert status == 0 and stdout == ""
    assert f"estimated accuracy now: {advice.accuracy:.4f}" in err
    assert (f"expected gain of the next 6 labels: {advice.gain_accuracy:+.4f} accuracy, {advice.gain:.2f} items, "
            f"{advice.per_label:.4f} items per label") in err
    assert "stop:" not in err and len(pd.read_csv(out, sep="\t")) == 6
    # a threshold above the gain per label: the stop, said why, and the table written empty (its header only)
    status, stdout, err = run(capsys, "truth", "next", labels, "--method", "dawid_skene", "--budget", 6,
                              "--min-gain", advice.per_label * 1.01 + 1e-9)
    assert status == 0 and stdout.splitlines() == ["item\tscore"]
    assert "stop: the expected gain per label" in err and "below --min-gain" in err
    # the help states the library's default
    with pytest.raises(SystemExit):
        run(capsys, "truth", "next", "--help")
    assert f"default {DEFAULT_MIN_GAIN:g}" in " ".join(capsys.readouterr().out.split())
