"""`manyjudges truth --method auto`: the report, the ordered classes `--labels` declares, and
calibration of any method through --params."""
import numpy as np
import pandas as pd
import pytest
from command import run_command

from manyjudges.truth import Auto, DawidSkene

run = run_command


@pytest.fixture
def labels(tmp_path):
    """60 items, 3 classes, 6 judges of falling accuracy; its truth."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 60)
    rows = ["item\tjudge\tlabel"]
    for i, t in enumerate(truth):
        for w in range(6):
            rows.append(f"i{i}\tw{w}\t{t if rng.random() < 0.85 - 0.08 * w else rng.integers(0, 3)}")
    (tmp_path / "labels.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "truth.tsv").write_text("item\ttruth\n" + "".join(f"i{i}\t{t}\n" for i, t in enumerate(truth)))
    return tmp_path / "labels.tsv", tmp_path / "truth.tsv"


def test_auto_writes_its_report_and_equals_the_library(capsys, labels, tmp_path):
    labels_path, truth_path = labels
    out, report = tmp_path / "out.tsv", tmp_path / "report.tsv"
    status, printed, err = run(capsys, "truth", labels_path, "--method", "auto", "--truth", truth_path,
                               "--report", report, "-o", out)
    assert status == 0
    assert "auto: weights" in err and "accuracy" in printed
    expected = Auto().fit(pd.read_csv(labels_path, sep="\t"))
    table = pd.read_csv(report, sep="\t")
    assert list(table.columns) == ["candidate", "majority_agreement", "pooled_log_likelihood", "gold_accuracy",
                                   "anchored", "heldout_log_likelihood", "tempered_log_likelihood", "beta", "weight",
                                   "seconds", "gold_evidence", "chosen_by_gold"]
    assert table["candidate"].tolist() == expected.candidate_names()
    np.testing.assert_allclose(table["weight"], expected.report_["weight"], atol=1e-9)
    got = pd.read_csv(out, sep="\t")
    np.testing.assert_allclose(got[["p_0", "p_1", "p_2"]].to_numpy(), expected.proba_.to_numpy(), atol=1e-9)


def test_the_ordinal_model_is_a_candidate_when_asked(capsys, labels, tmp_path):
    """Classes declared in order do not add the ordinal model (not chosen on the development pool);
    ``ordered: true`` does."""
    labels_path, _ = labels
    report = tmp_path / "report.tsv"
    assert run(capsys, "truth", labels_path, "--method", "auto", "--labels", "0,1,2", "--report", report,
               "-o", tmp_path / "out.tsv")[0] == 0
    assert "ordinal_dawid_skene" not in pd.read_csv(report, sep="\t")["candidate"].tolist()
    assert run(capsys, "truth", labels_path, "--method", "auto", "--labels", "0,1,2", "--params",
               '{"ordered": true}', "--report", report, "-o", tmp_path / "out.tsv")[0] == 0
    assert "ordinal_dawid_skene" in pd.read_csv(report, sep="\t")["candidate"].tolist()


def test_report_needs_auto_and_a_file_of_its_own(capsys, labels, tmp_path):
    labels_path, _ = labels
    status, _, err = run(capsys, "truth", labels_path, "--method", "dawid_skene", "--report", tmp_path / "r.tsv")
    assert status != 0 and "--report" in err and "auto" in err
    status, _, err = run(capsys, "truth", labels_path, "--method", "auto", "--report", "-")
    assert status != 0 and "--report needs a file of its own" in err
    assert not (tmp_path / "r.tsv").exists()


@pytest.mark.parametrize("method", ["dawid_skene", "majority_vote"])
def test_calibrate_through_params(capsys, labels, tmp_path, method):
    labels_path, _ = labels
    out = tmp_path / "out.tsv"
    assert run(capsys, "truth", labels_path, "--method", method, "--params", '{"calibrate": "tempering"}',
               "-o", out)[0] == 0
    plain = tmp_path / "plain.tsv"
    assert run(capsys, "truth", labels_path, "--method", method, "-o", plain)[0] == 0
    tempered, untouched = pd.read_csv(out, sep="\t"), pd.read_csv(plain, sep="\t")
    assert (tempered["label"] == untouched["label"]).all()  # tempering keeps each item's order of classes
    if method == "dawid_skene":
        expected = DawidSkene(calibrate="tempering").fit(pd.read_csv(labels_path, sep="\t"))
        assert expected.beta_ != 1.0
        np.testing.assert_allclose(tempered[["p_0", "p_1", "p_2"]].to_numpy(), expected.proba_.to_numpy(), atol=1e-9)
    status, _, err = run(capsys, "truth", labels_path, "--method", method, "--params", '{"calibrate": "platt"}')
    assert status != 0 and "calibrate" in err
