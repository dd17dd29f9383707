"""The leaderboard's reading columns (verdicts, win_rate, win_low, win_high) against direct loops, and the
summary line of what was read."""
import math

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import Leaderboard
from manyjudges.arena.leaderboard.estimator import _LEADERBOARD_COLUMNS, READING_COLUMNS, leaderboard_table
from manyjudges.arena.leaderboard.win_rates import _davidson_win_rate, _elo_win_rate, _logistic_win_rate
from manyjudges.arena.summary import verdicts_summary
from manyjudges.arena.verdict_codes import code_verdicts

pytestmark = pytest.mark.filterwarnings("ignore:.*absent from some bootstrap replicates")

ROWS = [("p1", "x", "y", "model_a"), ("p1", "y", "z", "model_a"), ("p1", "z", "x", "model_b"),
        ("p2", "x", "y", "tie"), ("p2", "y", "z", "model_b"), ("p2", "x", "z", "model_a"),
        ("p3", "y", "x", "model_b"), ("p3", "z", "y", "tie"), ("p3", "x", "z", "model_a"),
        ("p4", "x", "y", "model_b"), ("p4", "y", "z", "model_a"), ("p4", "z", "x", "tie (bothbad)"),
        ("p4", "w", "x", "model_b"), ("p5", "w", "z", "model_a")]
VERDICTS = pd.DataFrame(ROWS, columns=["prompt", "model_a", "model_b", "winner"])


def brute_win_rate(method, s_i, s_ref, theta=None):
    """P(i beats ref) + P(tie) / 2, written out from each model's own formula."""
    if method == "elo":
        return 1.0 / (1.0 + 10.0 ** (-(s_i - s_ref) / 400.0))
    if method == "davidson":
        pi_i, pi_r, nu = math.exp(s_i), math.exp(s_ref), math.exp(theta)
        denominator = pi_i + pi_r + nu * math.sqrt(pi_i * pi_r)
        return pi_i / denominator + 0.5 * nu * math.sqrt(pi_i * pi_r) / denominator
    return 1.0 / (1.0 + math.exp(-(s_i - s_ref)))


def brute_table(board, method, baseline=None, ci=0.9):
    """win_rate, win_low, win_high per model (natural order) by loops over models and replicates."""
    scores, reps = board.scores_.to_numpy(), board.replicates_
    theta = None if board.fit_.extra is None else float(board.fit_.extra[0])
    b = None if baseline is None else list(board.scores_.index).index(baseline)
    rows = []
    for i in range(len(scores)):
        ref = sum(scores) / len(scores) if b is None else scores[b]
        rate = brute_win_rate(method, scores[i], ref, theta)
        seen = []
        for r in range(len(reps)):
            ref_r = sum(scores) / len(scores) if b is None else reps[r, b]
            if not (np.isnan(reps[r, i]) or np.isnan(ref_r)):
                seen.append(0.5 if i == b else brute_win_rate(method, reps[r, i], ref_r, theta))
        low, high = np.percentile(seen, [5, 95]) if seen else (np.nan, np.nan)
        rows.append((board.scores_.index[i], rate, low, high))
    return pd.DataFrame(rows, columns=["model", "win_rate", "win_low", "win_high"]).set_index("model")


@pytest.mark.parametrize("method", ["bradley_terry", "davidson", "elo", "crowd_bt"])
@pytest.mark.parametrize("baseline", [None, "y"])
def test_win_rates_equal_a_direct_loop(method, baseline):
    verdicts = VERDICTS.assign(judge=["j1", "j2"] * 7)
    board = Leaderboard(method, n_bootstrap=25, resample="prompts", ci=0.9, seed=2).fit(verdicts)
    data = code_verdicts(verdicts)
    from manyjudges.arena.leaderboard.estimator import make_rating
    from manyjudges.arena.leaderboard.win_rates import win_curve

    curve = win_curve(make_rating(method), board.fit_)
    table = leaderboard_table(data, board.scores_.to_numpy(), board.replicates_, 0.9, curve, baseline)
    expected = brute_table(board, "bradley_terry" if method == "crowd_bt" else method, baseline)
    got = table.set_index("model").loc[expected.index]
    np.testing.assert_allclose(got[["win_rate", "win_low", "win_high"]], expected, rtol=1e-9, atol=1e-12)
    if baseline is not None:
        assert got.loc[baseline, "win_rate"] == 0.5
    else:  # the library's own table is the same
        pd.testing.assert_frame_equal(board.table_, table)
    assert np.isnan(board.replicates_).any()  # w is absent from some replicates: the NaN path is tested


def test_the_reading_columns_come_after_the_existing_ones_and_count_verdicts():
    table = Leaderboard("bradley_terry", n_bootstrap=0).fit(VERDICTS).table_
    assert list(table.columns) == _LEADERBOARD_COLUMNS + READING_COLUMNS
    for model, count in zip(table["model"], table["verdicts"]):
        assert count == sum(model in (a, b) for _, a, b, _ in ROWS)
    assert table[["win_low", "win_high"]].isna().all().all()
    assert list(table.sort_values("win_rate", ascending=False)["model"]) == list(table["model"])  # same order
    dropped = Leaderboard("bradley_terry", bothbad="drop").fit(VERDICTS).table_.set_index("model")["verdicts"]
    assert dropped["z"] == table.set_index("model").loc["z", "verdicts"] - 1  # the bothbad verdict left out


def test_the_curves_at_known_points():
    assert _logistic_win_rate(np.array([0.0]))[0] == 0.5
    np.testing.assert_allclose(_elo_win_rate(np.array([400.0])), [10 / 11])  # the Elo curve's 10:1 odds
    np.testing.assert_allclose(_davidson_win_rate(np.array([0.0, 1.3]), 50.0),
                               [0.5, brute_win_rate("davidson", 1.3, 0.0, 50.0)])
    assert _davidson_win_rate(np.array([2.0]), 800.0)[0] == pytest.approx(0.5)  # ties only: 0.5, not NaN


def test_the_same_verdicts_in_any_order_give_the_same_reading():
    shuffled = VERDICTS.sample(frac=1.0, random_state=4).reset_index(drop=True)
    a = Leaderboard("davidson", n_bootstrap=20, seed=1).fit(VERDICTS).table_
    b = Leaderboard("davidson", n_bootstrap=20, seed=1).fit(shuffled).table_
    np.testing.assert_allclose(a[READING_COLUMNS], b[READING_COLUMNS], atol=1e-6)


def test_an_unknown_baseline_is_named():
    board = Leaderboard().fit(VERDICTS)
    with pytest.raises(ValueError, match="baseline 'q' is not a model"):
        leaderboard_table(code_verdicts(VERDICTS), board.scores_.to_numpy(), board.replicates_, 0.9,
                          baseline="q")


def test_the_summary_counts_what_was_read():
    data = code_verdicts(VERDICTS)
    ties = sum(w.startswith("tie") for *_, w in ROWS)
    line = verdicts_summary(data, "v.tsv")
    assert line == (f"read {len(ROWS)} verdicts from v.tsv: 4 models, 5 prompts, {ties} ties "
                    f"({ties / len(ROWS):.0%}); comparison graph connected")
    apart = pd.concat([VERDICTS, pd.DataFrame([("p9", "u", "v", "model_a")], columns=VERDICTS.columns)])
    line = verdicts_summary(code_verdicts(apart.assign(judge="j")), "v.tsv")
    assert "1 judge," in line and "NOT connected: 2 components, the largest 4 models" in line
