"""`manyjudges truth infer` and `truth next` without --method run auto; --method still picks another; a stray
class read from the labels is warned about on stderr, and --labels silences it."""
import io

import numpy as np
import pandas as pd
import pytest
from command import run_command

from manyjudges.cli import main
from manyjudges.truth import Auto, DawidSkene, as_crowd_labels
from manyjudges.truth.active.advice import fitted_confusions, next_labels

run = run_command


@pytest.fixture
def labels(tmp_path):
    """50 items, 3 classes, 5 judges of falling accuracy; its truth."""
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 3, 50)
    rows = ["item\tjudge\tlabel"]
    for i, t in enumerate(truth):
        for w in range(5):
            rows.append(f"i{i}\tw{w}\t{t if rng.random() < 0.85 - 0.1 * w else rng.integers(0, 3)}")
    (tmp_path / "labels.tsv").write_text("\n".join(rows) + "\n")
    (tmp_path / "truth.tsv").write_text("item\ttruth\n" + "".join(f"i{i}\t{t}\n" for i, t in enumerate(truth)))
    return tmp_path / "labels.tsv", tmp_path / "truth.tsv"


def read(text_or_path) -> pd.DataFrame:
    source = io.StringIO(text_or_path) if isinstance(text_or_path, str) else text_or_path
    return pd.read_csv(source, sep="\t", dtype={"item": str})


def test_infer_without_method_runs_auto_and_prints_its_choice(capsys, labels):
    labels_path, truth_path = labels
    status, out, err = run(capsys, "truth", "infer", labels_path, "--truth", truth_path)
    assert status == 0, err
    expected = Auto().fit(pd.read_csv(labels_path, sep="\t"))
    assert f"(largest: {expected.choice_})" in err and err.startswith("auto: weights ")
    table = read(out)
    np.testing.assert_allclose(table[["p_0", "p_1", "p_2"]].to_numpy(), expected.proba_.to_numpy(), atol=1e-9)
    assert "(auto, " in err  # the accuracy line (stderr, beside the table on stdout) names the method it scored
    # the shorthand too
    assert run(capsys, "truth", labels_path)[2].startswith("auto: weights ")


def test_a_named_method_still_runs_alone(capsys, labels):
    labels_path, _ = labels
    status, out, err = run(capsys, "truth", "infer", labels_path, "--method", "dawid_skene")
    assert status == 0 and "auto" not in err
    expected = DawidSkene().fit(pd.read_csv(labels_path, sep="\t"))
    np.testing.assert_allclose(read(out)[["p_0", "p_1", "p_2"]].to_numpy(), expected.proba_.to_numpy(), atol=1e-9)


def test_next_without_method_runs_auto(capsys, labels, tmp_path):
    labels_path, _ = labels
    out = tmp_path / "next.tsv"
    status, _, err = run(capsys, "truth", "next", labels_path, "--budget", 5, "-o", out)
    assert status == 0, err
    data = as_crowd_labels(pd.read_csv(labels_path, sep="\t"))
    fitted = Auto().fit(data)
    expected = next_labels(data, fitted.proba_.to_numpy(), 5, confusions=fitted_confusions(fitted, data))
    got = read(out)
    assert got["item"].tolist() == expected["item"].astype(str).tolist()
    np.testing.assert_allclose(got["score"], expected["score"])


@pytest.mark.parametrize("verb", ["infer", "next"])
def test_the_help_names_the_default(capsys, verb):
    with pytest.raises(SystemExit):
        main(["truth", verb, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: auto: majority vote, Wawa, one-coin and full Dawid-Skene" in text
    assert "--params '{\"ordered\": true}' adds the ordinal model" in text


def test_other_families_still_ask_for_a_method(capsys, tmp_path):
    path = tmp_path / "grades.tsv"
    path.write_text("item\tjudge\tlabel\na\tj1\t0\na\tj2\t1\n")
    with pytest.raises(SystemExit) as stop:
        main(["graded", "evaluate", str(path)])
    assert stop.value.code == 2 and "--method" in capsys.readouterr().err


def test_stray_codes_are_warned_about_and_labels_silences_them(capsys, tmp_path):
    rng = np.random.default_rng(0)
    n = 10_000
    frame = pd.DataFrame({"item": np.arange(n) // 5, "judge": np.arange(n) % 5 + 5 * rng.integers(0, 20, n),
                          "label": rng.integers(0, 4, n)})
    frame.loc[[10, 50], "label"] = 5
    frame.loc[90, "label"] = 10
    path = tmp_path / "labels.tsv"
    frame.to_csv(path, sep="\t", index=False)
    status, out, err = run(capsys, "truth", "infer", path, "--method", "majority_vote")
    assert status == 0
    assert (f"manyjudges: warning: {path}: codes 5 (2 labels) and 10 (1 label) lie outside 0-3, which hold 9,997 of "
            "the 10,000 labels") in err
    assert read(out).columns.tolist()[-1] == "p_10"
    status, out, err = run(capsys, "truth", "infer", path, "--method", "majority_vote", "--labels", "0,1,2,3,5,10")
    assert status == 0 and err == ""
    assert read(out).columns.tolist()[2:] == ["p_0", "p_1", "p_2", "p_3", "p_5", "p_10"]
    status, _, err = run(capsys, "truth", "infer", path, "--method", "majority_vote", "--labels", "0,1,2,3")
    assert status == 1 and "line 12" in err and "'5'" in err  # fixing them instead: the first stray, by line
