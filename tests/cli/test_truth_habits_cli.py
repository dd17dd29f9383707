"""`manyjudges truth` column habits: worker/judge, crowd-kit's task, any column order, an extra column
(a one-line warning), CSV output by extension, natural order of ids, --duplicates naming the flag,
a closed pipe."""
import io
import subprocess
import sys

import pandas as pd
import pytest
from command import run_command

from manyjudges.truth.registry import TRUTH_METHODS

ROWS = [(f"{i}", f"w{w}", (i + (w == 2)) % 2) for i in (1, 2, 10, 11) for w in range(3)]


run = run_command


def table(path, header, rows, sep="\t"):
    path.write_text(sep.join(header) + "\n" + "".join(sep.join(map(str, r)) + "\n" for r in rows))
    return path


@pytest.fixture
def plain(tmp_path):
    return table(tmp_path / "plain.tsv", ["item", "judge", "label"], ROWS)


def labels_out(capsys, path, *flags):
    status, out, err = run(capsys, "truth", path, "--method", "dawid_skene", *flags)
    assert status == 0, err
    return out, err


@pytest.mark.parametrize(("header", "order"), [
    (["item", "judge", "label"], (0, 1, 2)),
    (["task", "worker", "label"], (0, 1, 2)),     # crowd-kit's column names
    (["label", "task", "judge"], (2, 0, 1)),      # another order
])
def test_names_and_order_give_the_same_answer(capsys, plain, tmp_path, header, order):
    expected, _ = labels_out(capsys, plain)
    rows = [tuple(r[k] for k in order) for r in ROWS]
    path = table(tmp_path / "other.csv", header, rows, sep=",")
    out, err = labels_out(capsys, path)
    assert out == expected and "warning" not in err


def test_extra_column_warns_on_one_line(capsys, plain, tmp_path):
    expected, _ = labels_out(capsys, plain)
    path = table(tmp_path / "extra.tsv", ["item", "judge", "seconds", "label"],
                 [(i, w, 3.5, lab) for i, w, lab in ROWS])
    out, err = labels_out(capsys, path)
    assert out == expected
    assert err.count("\n") == 1 and err.startswith("manyjudges: warning: ") and "'seconds'" in err


def test_items_in_natural_order_and_csv_output(capsys, plain, tmp_path):
    out, _ = labels_out(capsys, plain)
    assert pd.read_csv(io.StringIO(out), sep="\t", dtype=str)["item"].tolist() == ["1", "2", "10", "11"]
    labels_out(capsys, plain, "-o", tmp_path / "gold.csv", "--judges", tmp_path / "judges.csv")
    assert (tmp_path / "gold.csv").read_text().splitlines()[0] == "item,label,p_0,p_1"
    assert (tmp_path / "judges.csv").read_text().splitlines()[0] == "judge,skill"
    assert pd.read_csv(tmp_path / "gold.csv", dtype=str).equals(pd.read_csv(io.StringIO(out), sep="\t", dtype=str))


def test_duplicates_message_names_the_flag(capsys, tmp_path):
    path = table(tmp_path / "rep.tsv", ["item", "judge", "label"], ROWS + [ROWS[0]])
    status, _, err = run(capsys, "truth", path, "--method", "majority_vote")
    assert status == 1 and f"line {len(ROWS) + 2}" in err and "--duplicates keep, first or last" in err
    for rule in ("keep", "first", "last"):
        status, _, err = run(capsys, "truth", path, "--method", "majority_vote", "--duplicates", rule)
        assert status == 0, err


def test_closed_pipe_ends_quietly(plain):
    script = ("import sys; from manyjudges.cli import main; sys.exit(main(['truth', sys.argv[1], '--method', "
              "'majority_vote']))")
    many = plain.with_name("many.tsv")
    table(many, ["item", "judge", "label"], [(f"i{i}", f"w{w}", (i * w) % 2) for i in range(20000) for w in range(3)])
    proc = subprocess.run(f"{sys.executable} -c \"{script}\" {many} | head -1", shell=True, capture_output=True,
                          text=True)
    assert proc.stdout == "item\tlabel\tp_0\tp_1\n"
    assert proc.stderr == ""


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_stages_draw_a_bar_on_a_terminal_and_lines_elsewhere(monkeypatch):
    from manyjudges.cli import terminal

    screen = FakeTerminal()
    stages = terminal._Stages(2, screen)
    with stages("reading x"):
        pass
    with stages("fitting y"):
        pass
    text = screen.getvalue()
    assert "\rmanyjudges [##########..........] reading x" in text
    assert "\rmanyjudges [####################] fitting y" in text and text.endswith("\n")
    log = io.StringIO()
    monkeypatch.setattr(terminal, "STAGE_REPORT_SECONDS", 0.0)
    with terminal._Stages(1, log)("reading z"):
        pass
    assert log.getvalue().startswith("manyjudges: reading z: ") and log.getvalue().count("\n") == 1
    quiet = io.StringIO()
    monkeypatch.setattr(terminal, "STAGE_REPORT_SECONDS", 60.0)
    with terminal._Stages(1, quiet)("reading z"):
        pass
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("method", sorted(TRUTH_METHODS))
def test_row_order_does_not_change_the_answer(capsys, tmp_path, method):
    """Ids are coded in natural order and random restarts drawn per coded item and judge, so the same
    labels in three row orders give the same items, labels and judges, and the same posteriors and
    skills to 1e-6 (the floating-point sums run in another order): every method of the family."""
    import numpy as np

    rng = np.random.default_rng(4)
    rows = [(f"i{i}", f"w{w}", int((i * 7 + w * (w % 3)) % 3 if rng.random() < 0.4 else i % 3))
            for i in range(60) for w in rng.choice(12, 5, replace=False)]
    orders = {"a": rows, "b": rows[::-1], "c": [rows[k] for k in rng.permutation(len(rows))]}
    tables = []
    for name, ordered in orders.items():
        path = table(tmp_path / f"{name}.tsv", ["item", "judge", "label"], ordered)
        status, out, err = run(capsys, "truth", path, "--method", method, "--judges", path.with_suffix(".w.tsv"))
        assert status == 0, err
        tables.append((pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str}),
                       pd.read_csv(path.with_suffix(".w.tsv"), sep="\t", dtype={"judge": str})))
    labels_a, judges_a = tables[0]
    for labels_b, judges_b in tables[1:]:
        assert labels_a[["item", "label"]].equals(labels_b[["item", "label"]])
        assert np.allclose(labels_a.filter(like="p_").to_numpy(), labels_b.filter(like="p_").to_numpy(), atol=1e-6)
        assert judges_a["judge"].equals(judges_b["judge"])
        skill_a, skill_b = judges_a["skill"].to_numpy(dtype=float), judges_b["skill"].to_numpy(dtype=float)
        assert np.allclose(skill_a, skill_b, atol=1e-6, equal_nan=True)


def test_gold_is_used_in_the_fit_and_left_out_of_the_accuracy(capsys, tmp_path):
    rows = [(f"i{i}", f"w{w}", (i + (w == 3)) % 2) for i in range(30) for w in range(4)]
    labels = table(tmp_path / "labels.tsv", ["item", "judge", "label"], rows)
    truth = table(tmp_path / "truth.tsv", ["item", "truth"], [(f"i{i}", i % 2) for i in range(30)])
    gold = table(tmp_path / "gold.tsv", ["item", "truth"], [(f"i{i}", 1 - i % 2) for i in range(3)])
    status, out, err = run(capsys, "truth", labels, "--method", "dawid_skene", "--truth", truth, "--gold", gold)
    assert status == 0, err
    # the gold answers side with judge 3 against the other three on every gold item, so Dawid-Skene's fit from
    # the gold items (of higher likelihood than the fit from the majority) takes judges 0-2 as swapping the
    # classes: every other item gets judge 3's label, the opposite of the truth
    assert "accuracy 0.0000 on 27 items with a truth that are not gold items" in err
    answers = pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str}).set_index("item")["label"]
    assert answers[["i0", "i1", "i2"]].tolist() == [1, 0, 1]   # the gold answers, even where the labels disagree
    for method in ("glad", "mace"):   # their EMs keep the gold items fixed too
        status, out, err = run(capsys, "truth", labels, "--method", method, "--truth", truth, "--gold", gold)
        assert status == 0, err
        assert "on 27 items with a truth that are not gold items" in err
        answers = pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str}).set_index("item")["label"]
        assert answers[["i0", "i1", "i2"]].tolist() == [1, 0, 1]


def test_auto_with_gold_says_what_the_gold_decided(capsys, tmp_path):
    """Every judge swaps the classes; the gold says so: the note gives each answer's held-out gold accuracy and
    the answer the gold chose."""
    rows = [(f"i{i}", f"w{w}", 1 - i % 2 if w < 4 else (i * 7 + w) % 2) for i in range(60) for w in range(5)]
    labels = table(tmp_path / "labels.tsv", ["item", "judge", "label"], rows)
    gold = table(tmp_path / "gold.tsv", ["item", "truth"], [(f"i{i}", i % 2) for i in range(0, 60, 3)])
    report = tmp_path / "report.tsv"
    status, out, err = run(capsys, "truth", labels, "--method", "auto", "--gold", gold, "--report", report)
    assert status == 0, err
    assert "auto: gold: 20 held-out gold answers right: labels_only 0.000;" in err
    chosen = err.split("chosen by gold: ")[1].split(";")[0]
    answers = pd.read_csv(io.StringIO(out), sep="\t", dtype={"item": str}).set_index("item")["label"]
    assert (answers[[f"i{i}" for i in range(60)]].to_numpy() == [i % 2 for i in range(60)]).all()
    written = pd.read_csv(report, sep="\t").set_index("candidate")
    assert written.loc[chosen, "chosen_by_gold"] and written.loc[chosen, "gold_accuracy"] == 1.0
    assert written["chosen_by_gold"].sum() == 1 and written["gold_accuracy"].notna().all()
