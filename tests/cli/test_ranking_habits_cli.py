"""Column habits and --duplicates through `manyjudges orderings ed`, `orderings score` and `consensus`."""
import io

import pandas as pd
import pytest

from manyjudges.cli import main

PANEL = [("s1", "a", "x", 1), ("s1", "a", "y", 2), ("s1", "a", "z", 3),
         ("s1", "b", "x", 1), ("s1", "b", "z", 2), ("s1", "b", "y", 3),
         ("s1", "c", "y", 1), ("s1", "c", "x", 2), ("s1", "c", "z", 3)]
CANDIDATES = [("s1", "mine", "x", 1), ("s1", "mine", "y", 2), ("s1", "mine", "z", 3)]
LISTS = [("g", "a", "x", 1), ("g", "a", "y", 2), ("g", "a", "z", 3), ("g", "b", "y", 1), ("g", "b", "x", 2),
         ("g", "b", "z", 3)]


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    table = pd.read_csv(io.StringIO(out), sep="\t", dtype={"set_id": str, "list_set": str}) if out else out
    return status, table, err


def write(path, header, rows, sep="\t", order=None):
    order = order or list(range(len(header)))
    lines = [sep.join(header[i] for i in order)] + [sep.join(str(row[i]) for i in order) for row in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


CANONICAL = ["set_id", "judge", "item", "rank"]
HABITS = {
    "worker": (["set_id", "worker", "item", "rank"], None),
    "task": (["set_id", "judge", "task", "rank"], None),
    "order": (["set_id", "worker", "task", "rank"], [3, 1, 2, 0]),
}


@pytest.mark.parametrize("habit", list(HABITS))
def test_orderings_ed_and_score_read_every_habit(capsys, tmp_path, habit):
    header, order = HABITS[habit]
    plain = [run(capsys, "orderings", "ed", write(tmp_path / "p.tsv", CANONICAL, PANEL), "--method", "ac_tau"),
             run(capsys, "orderings", "score", tmp_path / "p.tsv", write(tmp_path / "c.tsv", CANONICAL, CANDIDATES),
                 "--method", "ac_tau")]
    panel = write(tmp_path / f"{habit}.tsv", header, PANEL, order=order)
    cands = write(tmp_path / f"{habit}_c.csv", header, CANDIDATES, sep=",", order=order)
    habits = [run(capsys, "orderings", "ed", panel, "--method", "ac_tau"),
              run(capsys, "orderings", "score", panel, cands, "--method", "ac_tau")]
    for (status, table, err), (status0, table0, _) in zip(habits, plain):
        assert status == status0 == 0 and err == ""
        pd.testing.assert_frame_equal(table, table0)


def test_extra_columns_are_a_warning_in_every_door(capsys, tmp_path):
    panel = write(tmp_path / "p.tsv", [*CANONICAL, "note"], [r + ("n",) for r in PANEL])
    status, table, err = run(capsys, "orderings", "ed", panel, "--method", "ac_tau")
    assert status == 0 and "warning: " in err and "ignoring column(s) 'note'" in err
    cands = write(tmp_path / "c.tsv", [*CANONICAL, "source"], [r + ("me",) for r in CANDIDATES])
    status, table, err = run(capsys, "orderings", "score", panel, cands, "--method", "ac_tau")
    assert status == 0 and "'note'" in err and "'source'" in err
    lists = write(tmp_path / "r.tsv", ["url", "list_set", "list_id", "task", "rank"], [("u",) + r for r in LISTS])
    status, table, err = run(capsys, "consensus", lists)
    assert status == 0 and "ignoring column(s) 'url'" in err
    assert table["list_set"].tolist() == ["g"]


def test_orderings_duplicates_flag(capsys, tmp_path):
    repeated = PANEL + [("s1", "c", "x", 3), ("s1", "c", "z", 2)]  # judge c again: x and z swapped
    path = write(tmp_path / "dup.tsv", CANONICAL, repeated)
    status, _, err = run(capsys, "orderings", "ed", path, "--method", "ac_tau")
    assert status == 1 and "dup.tsv, line 11" in err and "(first on line 9)" in err and "--duplicates" in err
    _, first, _ = run(capsys, "orderings", "ed", path, "--method", "ac_tau", "--duplicates", "first")
    _, plain, _ = run(capsys, "orderings", "ed", write(tmp_path / "p.tsv", CANONICAL, PANEL), "--method", "ac_tau")
    pd.testing.assert_frame_equal(first, plain)
    _, last, _ = run(capsys, "orderings", "ed", path, "--method", "ac_tau", "--duplicates", "last")
    fixed = [r for r in PANEL if not (r[1] == "c" and r[2] in "xz")] + repeated[-2:]
    _, expected, _ = run(capsys, "orderings", "ed", write(tmp_path / "f.tsv", CANONICAL, fixed), "--method", "ac_tau")
    pd.testing.assert_frame_equal(last, expected)
    status, _, err = run(capsys, "orderings", "ed", path, "--method", "ac_tau", "--duplicates", "keep")
    assert status == 2 and "--duplicates keep makes no sense" in err
    cands = write(tmp_path / "c.tsv", CANONICAL, CANDIDATES + [("s1", "mine", "x", 3)])
    status, _, err = run(capsys, "orderings", "score", path, cands, "--method", "ac_tau", "--duplicates", "first")
    assert status == 0
    status, _, err = run(capsys, "orderings", "score", path, cands, "--method", "ac_tau", "--duplicates", "keep")
    assert status == 2 and "first or last" in err


def test_consensus_duplicates_flag(capsys, tmp_path):
    path = write(tmp_path / "r.csv", ["list_set", "list_id", "item", "rank"], LISTS + [("g", "b", "w", 1)], sep=",")
    status, _, err = run(capsys, "consensus", path)
    assert status == 1 and "r.csv, line 8" in err and "position 1 of list 'b'" in err and "(line 5)" in err
    _, first, _ = run(capsys, "consensus", path, "--duplicates", "first")
    _, plain, _ = run(capsys, "consensus", write(tmp_path / "p.csv", ["list_set", "list_id", "item", "rank"], LISTS,
                                                 sep=","))
    pd.testing.assert_frame_equal(first, plain)
    status, last, _ = run(capsys, "consensus", path, "--duplicates", "last")
    assert status == 0 and last["kappa"].iloc[0] != first["kappa"].iloc[0]
    status, _, err = run(capsys, "consensus", path, "--duplicates", "keep")
    assert status == 2 and "--duplicates keep makes no sense" in err
