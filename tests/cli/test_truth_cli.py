"""`manyjudges truth`: the command against the library call it wraps, and each class of bad input."""
import io

import numpy as np
import pandas as pd
import pytest
from command import run_command

from manyjudges.truth.registry import make_truth_estimator

run = run_command


def write(path, text):
    path.write_text(text)
    return path


@pytest.fixture
def labels(tmp_path):
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 30)
    rows = ["item\tjudge\tlabel"]
    for i, t in enumerate(truth):
        for w in range(5):
            label = t if rng.random() < 0.75 - 0.1 * w else rng.integers(0, 3)
            rows.append(f"i{i}\tw{w}\t{label}")
    truth_rows = ["item\ttruth"] + [f"i{i}\t{t}" for i, t in enumerate(truth)]
    return write(tmp_path / "labels.tsv", "\n".join(rows) + "\n"), write(tmp_path / "truth.tsv",
                                                                       "\n".join(truth_rows) + "\n")


@pytest.mark.parametrize("method", ["majority_vote", "dawid_skene"])
def test_truth_equals_the_library(capsys, labels, tmp_path, method):
    labels_path, truth_path = labels
    status, out, err = run(capsys, "truth", labels_path, "--method", method, "--truth", truth_path,
                           "--judges", tmp_path / "judges.tsv")
    assert status == 0
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str})
    frame = pd.read_csv(labels_path, sep="\t", dtype=str).astype({"label": int})
    estimator = make_truth_estimator(method).fit(frame)
    assert table["item"].tolist() == [str(i) for i in estimator.labels_.index]
    assert table["label"].tolist() == estimator.labels_.tolist()
    assert np.allclose(table[["p_0", "p_1", "p_2"]].to_numpy(), estimator.proba_.to_numpy())
    truth = pd.read_csv(truth_path, sep="\t", dtype={"item": str}).set_index("item")["truth"]
    expected = float(np.mean(estimator.labels_.reindex(truth.index).to_numpy() == truth.to_numpy()))
    assert f"accuracy {expected:.4f} on 30 items" in err
    judges = pd.read_csv(tmp_path / "judges.tsv", sep="\t")
    assert judges.columns.tolist() == ["judge", "skill"] and len(judges) == 5


def test_named_ordinal_classes(capsys, tmp_path):
    path = write(tmp_path / "l.tsv", "item\tjudge\tlabel\na\tx\tR\na\ty\tR\na\tz\tP\nb\tx\tG\nb\ty\tG\nb\tz\tX\n")
    status, out, _ = run(capsys, "truth", path, "--method", "majority_vote", "--labels", "G,P,R,X",
                         "-o", tmp_path / "labels_inferred.tsv")
    assert status == 0 and out == ""
    inferred = pd.read_csv(tmp_path / "labels_inferred.tsv", sep="\t")
    assert inferred.columns.tolist() == ["item", "label", "p_G", "p_P", "p_R", "p_X"]
    assert inferred["label"].tolist() == ["R", "G"]


@pytest.mark.parametrize("text, flags, message", [
    ("item\tjudge\tlabel\na\tx\t1.5\na\ty\t1\n", [], "line 2"),
    ("item\tjudge\tlabel\na\tx\tG\na\ty\tQ\n", ["--labels", "G,P"], "line 3"),
    ("item\tjudge\tlabel\n", [], "no"),
    ("item\tjudge\tlabel\na\tx\t1\nb\tx\t0\n", [], "two judges"),
    ("item\tjudge\tlabel\na\tx\t1\na\ty\t0\na\tx\t0\n", [], "line 4"),
])
def test_bad_labels_name_the_file_and_line(capsys, tmp_path, text, flags, message):
    path = write(tmp_path / "bad.tsv", text)
    status, out, err = run(capsys, "truth", path, "--method", "majority_vote", *flags)
    assert status != 0 and out == ""
    assert "bad.tsv" in err and message in err
    assert len(err.strip().splitlines()) == 1


def test_duplicates_can_be_kept(capsys, tmp_path):
    path = write(tmp_path / "dup.tsv", "item\tjudge\tlabel\na\tx\t1\na\ty\t0\na\tx\t1\n")
    status, out, _ = run(capsys, "truth", path, "--method", "majority_vote", "--duplicates", "keep")
    assert status == 0 and "a\t1\t" in out


def test_truth_item_without_labels(capsys, labels, tmp_path):
    labels_path, _ = labels
    truth = write(tmp_path / "truth2.tsv", "item\ttruth\ni0\t1\nnobody\t0\n")
    status, out, err = run(capsys, "truth", labels_path, "--method", "majority_vote", "--truth", truth, "--strict")
    assert status != 0 and "truth2.tsv" in err and "line 3" in err and "nobody" in err
    status, out, err = run(capsys, "truth", labels_path, "--method", "majority_vote", "--truth", truth)
    assert status == 0 and "warning: " in err and "skipped 1 of 2 truth rows" in err and "on 1 items" in err


def test_unknown_method_fails_before_reading(capsys, tmp_path):
    status, _, err = run(capsys, "truth", tmp_path / "missing.tsv", "--method", "no_such_method")
    assert status != 0 and "no_such_method" in err


@pytest.mark.parametrize("verb, flags", [("infer", ["--truth", "{truth}", "--judges", "{tmp}/judges.tsv"]),
                                         ("next", ["--budget", "3"])])
def test_the_method_is_built_once(capsys, labels, tmp_path, monkeypatch, verb, flags):
    """The command builds the method once, before reading the data, and fits that one."""
    from manyjudges.truth import DawidSkene

    built = []
    init = DawidSkene.__init__

    def counted(self, *args, **kwargs):
        built.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(DawidSkene, "__init__", counted)
    labels_path, truth_path = labels
    status, _, err = run(capsys, "truth", verb, labels_path, "--method", "dawid_skene",
                         *[f.format(truth=truth_path, tmp=tmp_path) for f in flags])
    assert status == 0, err
    assert len(built) == 1
