"""The orderings and consensus families' tables in any row order give the same output (the graded,
crowd and truth families are tested in their own packages and in test_truth_habits_cli)."""
import io

import numpy as np
import pandas as pd
import pytest

from manyjudges.cli import main


def run(capsys, *argv) -> pd.DataFrame:
    assert main([str(a) for a in argv]) == 0
    return pd.read_csv(io.StringIO(capsys.readouterr().out), sep="\t", dtype=str)


def three_orders(tmp_path, header, rows):
    rng = np.random.default_rng(9)
    paths = []
    for name, ordered in (("a", rows), ("b", rows[::-1]), ("c", [rows[k] for k in rng.permutation(len(rows))])):
        path = tmp_path / f"{name}.tsv"
        path.write_text("\t".join(header) + "\n" + "".join("\t".join(map(str, r)) + "\n" for r in ordered))
        paths.append(path)
    return paths


def assert_same(tables):
    for table in tables[1:]:
        assert table.columns.tolist() == tables[0].columns.tolist()
        for column in table.columns:
            a, b = tables[0][column], table[column]
            try:
                np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=0, atol=1e-6)
            except ValueError:
                assert a.tolist() == b.tolist(), column


@pytest.fixture
def orderings(tmp_path):
    rng = np.random.default_rng(3)
    rows = []
    for s in ("s1", "s2", "s10"):
        base = rng.permutation(6)
        for j in range(7):
            order = base.copy()
            i = rng.integers(5)
            order[i], order[i + 1] = order[i + 1], order[i]
            rows += [(s, f"j{j}", f"x{item}", r + 1) for r, item in enumerate(order)]
    return three_orders(tmp_path, ["set_id", "judge", "item", "rank"], rows)


@pytest.mark.parametrize("method", ["frespa", "ac_tau", "wca_sp", "rba_tau", "consensus"])
def test_orderings_ed_is_the_same_in_any_row_order(capsys, orderings, method):
    assert_same([run(capsys, "orderings", "ed", path, "--method", method) for path in orderings])


def test_orderings_scores_are_the_same_in_any_row_order(capsys, orderings, tmp_path):
    candidates = tmp_path / "candidates.tsv"
    candidates.write_text("set_id\tjudge\titem\trank\n" + "".join(f"s1\tmine\tx{i}\t{i + 1}\n" for i in range(6)))
    assert_same([run(capsys, "orderings", "score", path, candidates, "--method", "ac_tau") for path in orderings])


def test_consensus_is_the_same_in_any_row_order(capsys, tmp_path):
    rng = np.random.default_rng(4)
    rows = [(g, f"engine{e}", f"d{item}", r + 1) for g in ("q1", "q2") for e in range(4)
            for r, item in enumerate(rng.permutation(12)[:8])]
    paths = three_orders(tmp_path, ["list_set", "list_id", "item", "rank"], rows)
    assert_same([run(capsys, "consensus", path, "--lambda", 0.9, "--gamma", 0.95) for path in paths])
