"""What an arena's verdicts can tell: pieces of the comparison graph (against a union-find loop), one-sided models
and flat bootstrap replicates (against direct loops), and what Leaderboard.fit does with each."""
import warnings

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import Leaderboard
from manyjudges.arena.leaderboard.pieces import _comparison_pieces, _flat_replicates, _one_sided_models, _pieces_message
from manyjudges.arena.reader import read_arena_verdicts
from manyjudges.arena.verdict_codes import code_verdicts
from manyjudges.io.engine.errors import DataError
from manyjudges.io.tables.verdicts import read_verdicts


def union_find_pieces(n, a, b):
    """Each model's piece by a plain union-find loop, pieces as frozensets."""
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in zip(a, b):
        parent[root(int(i))] = root(int(j))
    groups = {}
    for i in range(n):
        groups.setdefault(root(i), set()).add(i)
    return {frozenset(g) for g in groups.values()}


@pytest.mark.parametrize("seed", range(6))
def test_pieces_equal_a_union_find_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    m = int(rng.integers(1, 2 * n))
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    pieces = _comparison_pieces(n, a, b)
    assert {frozenset(np.flatnonzero(pieces == k)) for k in range(pieces.max() + 1)} == union_find_pieces(n, a, b)
    sizes = np.bincount(pieces)
    assert (np.diff(sizes) <= 0).all()  # largest first
    order = rng.permutation(m)  # row order and sides do not matter
    assert (_comparison_pieces(n, b[order], a[order]) == pieces).all()


def test_pieces_message_names_how_many_and_the_first_models():
    models = np.array([f"m{k}" for k in range(10)], dtype=object)
    pieces = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 2])
    text = _pieces_message(models, pieces)
    assert "in 3 pieces" in text and "piece 1 (7 models): m0, m1, m2, m3, m4, ... and 2 more" in text
    assert "piece 2 (2 models): m7, m8" in text and "piece 3 (1 model): m9" in text
    assert "keep the verdicts of one piece" in text


@pytest.mark.parametrize("seed", range(4))
def test_one_sided_models_equal_a_direct_loop(seed):
    rng = np.random.default_rng(seed)
    n, m = 8, 12
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    winner = rng.choice([0, 0, 1, 1, 2], m)
    won, lost = _one_sided_models(n, a, b, winner)
    record = {i: [] for i in range(n)}
    for i, j, w in zip(a, b, winner):
        record[int(i)].append({0: "w", 1: "l", 2: "t"}[int(w)])
        record[int(j)].append({0: "l", 1: "w", 2: "t"}[int(w)])
    assert list(won) == [i for i in range(n) if record[i] and set(record[i]) == {"w"}]
    assert list(lost) == [i for i in range(n) if record[i] and set(record[i]) == {"l"}]


def test_flat_replicates_equal_a_direct_loop():
    rng = np.random.default_rng(1)
    reps = rng.normal(size=(6, 7))
    reps[:, 1] = 0.25  # all equal
    reps[1:, 2] = np.nan  # in one replicate
    reps[:, 3] = np.nan  # in none
    reps[::2, 4] = np.nan  # in three, different
    reps[:, 5] = [1.0, np.nan, 1.0, 1.0, np.nan, 1.0]  # equal where present
    expected = [len(set(c[~np.isnan(c)])) < 2 or np.isnan(c).sum() > len(c) - 2 for c in reps.T]
    assert list(_flat_replicates(reps)) == expected == [False, True, True, True, False, True, False]


def frame(rows, columns=("prompt", "judge", "model_a", "model_b", "winner")):
    return pd.DataFrame(rows, columns=list(columns))


def test_a_graph_in_pieces_is_refused_in_any_row_order():
    rows = [("p1", "j", "x", "y", "model_a"), ("p2", "j", "y", "x", "tie"), ("p1", "j", "u", "w", "model_b"),
            ("p2", "j", "w", "v", "model_a"), ("p3", "j", "v", "u", "tie"), ("p4", "j", "s", "t", "tie")]
    messages = set()
    for order in ([0, 1, 2, 3, 4, 5], [5, 3, 1, 4, 0, 2]):
        with pytest.raises(ValueError, match="in 3 pieces") as err:
            Leaderboard().fit(frame([rows[k] for k in order]))
        messages.add(str(err.value))
    assert len(messages) == 1
    assert "piece 1 (3 models): u, v, w; piece 2 (2 models): s, t; piece 3 (2 models): x, y" in messages.pop()


def test_bothbad_drop_can_split_the_graph_or_leave_nothing():
    rows = [("p1", "j", "x", "y", "model_a"), ("p1", "j", "y", "z", "tie (bothbad)"), ("p2", "j", "z", "x", "tie")]
    Leaderboard(bothbad="drop").fit(frame(rows))  # z still linked through x
    with pytest.raises(ValueError, match="2 pieces"):
        Leaderboard(bothbad="drop").fit(frame(rows[:2]))
    with pytest.raises(ValueError, match="no verdicts to rate"):
        Leaderboard(bothbad="drop").fit(frame(rows[1:2]))


def test_one_verdict_gets_no_falsely_exact_interval():
    one = frame([("p1", "j", "x", "y", "model_a")])
    with pytest.warns(UserWarning) as caught:
        board = Leaderboard(n_bootstrap=30).fit(one)
    said = " ".join(str(w.message) for w in caught)
    assert "won every verdict they were in: x" in said and "lost every verdict they were in: y" in said
    assert "same score in every bootstrap replicate" in said and "(x, y; 30 replicates" in said
    table = board.table_
    assert table[["ci_low", "ci_high"]].isna().all().all() and table[["rank_low", "rank_high"]].isna().all().all()
    assert np.isfinite(table["score"]).all() and table["score"].iloc[0] > 0  # the scores stay
    assert np.ptp(board.replicates_, axis=0).max() == 0  # what made the intervals flat


def test_two_copies_of_one_tie_are_flat_but_a_real_bootstrap_is_not():
    ties = frame([("p1", "j", "x", "y", "tie"), ("p2", "j", "y", "x", "tie")])
    with pytest.warns(UserWarning, match="same score in every bootstrap replicate"):
        table = Leaderboard(n_bootstrap=20).fit(ties).table_
    assert table["ci_low"].isna().all()
    varied = frame([("p1", "j", "x", "y", "tie"), ("p2", "j", "y", "x", "model_a"), ("p3", "j", "x", "y", "model_a")])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = Leaderboard(n_bootstrap=20).fit(varied).table_
    assert table["ci_low"].notna().all() and (table["ci_high"] > table["ci_low"]).all()


def write(path, rows, header=("prompt", "judge", "model_a", "model_b", "winner")):
    path.write_text("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    return path


REPEATED = [("p1", "j1", "x", "y", "model_a"), ("p1", "j2", "y", "z", "tie"), ("p1", "j1", "x", "y", "model_b"),
            ("p2", "j1", "z", "x", "model_a"), ("p1", "j1", "x", "y", "tie")]


@pytest.mark.parametrize("rule, kept", [("keep", [0, 1, 2, 3, 4]), ("first", [0, 1, 3]), ("last", [1, 3, 4])])
def test_fast_reader_duplicates_rules(tmp_path, rule, kept):
    path = write(tmp_path / "v.tsv", REPEATED)
    coded = read_arena_verdicts(path, duplicates=rule)
    expected = code_verdicts(frame([REPEATED[k] for k in kept]))
    for field in ("models", "prompts", "judges", "model_a", "model_b", "winner", "prompt", "judge"):
        assert list(getattr(coded, field)) == list(getattr(expected, field)), field
    assert list(read_verdicts(path, rule).index) == list(range(len(kept)))


def test_fast_reader_duplicates_error_names_both_lines(tmp_path):
    path = write(tmp_path / "v.tsv", REPEATED)
    with pytest.raises(DataError, match=r"line 4: .*already judged on line 2.*'p1\\tj1\\tx\\ty\\tmodel_b'"):
        read_arena_verdicts(path, duplicates="error")
