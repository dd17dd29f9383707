"""The judge measures (crowd/judges.py) against direct counts, scipy, scikit-learn, krippendorff and
simulated panels with known order effects; row-order invariance; bad input named by file, line and value."""
from __future__ import annotations

import doctest
import functools
import itertools
import json
import re
from collections import Counter, defaultdict
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from command import run_command
from scipy.stats import binomtest
from sklearn.metrics import cohen_kappa_score

import manyjudges.arena.judges.measures as judges_module
from manyjudges.arena import judge_measures
from manyjudges.arena.judges.agreement import _majority_class, _nominal_alpha, effective_judges
from manyjudges.arena.judges.clusters import judge_weights
from manyjudges.arena.judges.measures import _PRIOR_UNITS, _shrunk_correlation
from manyjudges.arena.judges.wilson import _wilson_interval

COLUMNS = ["prompt", "judge", "model_a", "model_b", "winner"]
PRD_JUDGES = ("bard", "claude", "gpt35", "gpt4", "vicuna-13b")
#: PRD's score: 1 = the answer shown first (answer1) wins, 2 = the second, 3 = a tie
PRD_WINNER = {1: "model_a", 2: "model_b", 3: "tie"}


def prd_name(judge: str) -> re.Pattern:
    """answer_<X>-vs-answer_<Y>-<judge>-reviewer...; gpt35's files also write answer-<X>-vs-answer-<Y>."""
    return re.compile(rf"answer[_-](?P<x>.+?)-vs-answer[_-](?P<y>.+)-{re.escape(judge)}-reviewer")


def prd_verdicts(mirror, judges=(*PRD_JUDGES, "human")) -> pd.DataFrame:
    """The PRD vicuna80 verdicts of ``judges`` as a verdicts table, X (answer1) shown first."""
    root = next(mirror.glob("bcdnlp/PRD/*/data/vicuna80"))
    rows = []
    for judge in judges:
        for path in sorted((root / f"ratings-{judge}").glob("*.jsonl")):
            name = prd_name(judge).match(path.name)
            assert name, path.name
            for line in path.read_text().splitlines():
                if line.strip():
                    row = json.loads(line)
                    rows.append((str(row["question_id"]), judge, name["x"], name["y"], PRD_WINNER[row["score"]]))
    return pd.DataFrame(rows, columns=COLUMNS)


@functools.cache
def prd_tables(mirror: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    table = prd_verdicts(mirror)
    return table[table["judge"] != "human"].reset_index(drop=True), table[table["judge"] == "human"]


@pytest.fixture
def prd(mirror):
    """(the five LLM judges' verdicts, the human votes) of PRD vicuna80, read once per session."""
    return prd_tables(mirror)


def winner_model(row) -> str:
    """The model a verdict names, or 'tie'."""
    return {"model_a": row.model_a, "model_b": row.model_b}.get(row.winner, "tie")


def canonical_class(name: str, pair) -> str:
    """'first' when ``name`` is the pair's alphabetically first model, 'second' for the other, else 'tie'."""
    return {min(pair): "first", max(pair): "second"}.get(name, "tie")


# ---------------------------------------------------------------- position bias on real data, by direct counts

def test_first_win_flip_and_tie_rates_equal_a_direct_count_on_prd(prd):
    verdicts, _ = prd
    got = judge_measures(verdicts).judges.set_index("judge")
    assert list(got.index) == sorted(PRD_JUDGES)
    for judge in PRD_JUDGES:
        first = decisive = ties = 0
        by_order = defaultdict(lambda: ([], []))  # (prompt, unordered pair) -> (names with x < y shown first, other)
        for row in verdicts[verdicts["judge"] == judge].itertuples():
            if row.winner == "tie":
                ties += 1
            else:
                decisive += 1
                first += row.winner == "model_a"
            by_order[(row.prompt, frozenset((row.model_a, row.model_b)))][row.model_a > row.model_b].append(
                winner_model(row))
        flips = [sum(f != r for f in forward for r in reverse) / (len(forward) * len(reverse))
                 for forward, reverse in by_order.values() if forward and reverse]
        rates = got.loc[judge]
        assert rates["verdicts"] == (verdicts["judge"] == judge).sum()
        assert rates["decisive"] == decisive
        assert rates["first_win_rate"] == pytest.approx(first / decisive, abs=1e-12)
        assert rates["tie_rate"] == pytest.approx(ties / rates["verdicts"], abs=1e-12)
        assert rates["flip_pairs"] == len(flips) == 800
        assert rates["flip_rate"] == pytest.approx(np.mean(flips), abs=1e-12)
    # gpt35 judged gpt35-vs-gpt4 twice in each order: its flip on those pairs is a share, not 0/1
    assert got.loc["gpt35", "verdicts"] == 1760
    assert got.loc["bard", "first_win_rate"] > 0.75  # bard's strong first-position preference (1253 of 1543)


def test_wilson_interval_matches_scipy():
    successes = np.array([0, 1, 5, 37, 50, 99, 100])
    trials = np.full(len(successes), 100)
    for level in (0.8, 0.95, 0.99):
        low, high = _wilson_interval(successes, trials, level)
        for k, n, lo, hi in zip(successes, trials, low, high):
            ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
            assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-12)
    low, high = _wilson_interval(np.array([0]), np.array([0]))
    assert np.isnan(low).all() and np.isnan(high).all()
    with pytest.raises(ValueError, match="level"):
        _wilson_interval(np.array([1]), np.array([2]), 1.0)


def test_the_judges_table_carries_the_wilson_interval_at_the_asked_level(prd):
    verdicts, _ = prd
    got = judge_measures(verdicts, level=0.9).judges
    for row in got.itertuples():
        k = round(row.first_win_rate * row.decisive)
        ci = binomtest(k, row.decisive).proportion_ci(confidence_level=0.9, method="wilson")
        assert (row.first_win_low, row.first_win_high) == pytest.approx((ci.low, ci.high), abs=1e-12)


# ---------------------------------------------------------------- agreement with a reference, among judges

def human_majority(human: pd.DataFrame) -> dict:
    """(prompt, unordered pair) -> the model most human votes name, or 'tie' (a tie vote or a shared top)."""
    votes = defaultdict(Counter)
    for row in human.itertuples():
        votes[(row.prompt, frozenset((row.model_a, row.model_b)))][winner_model(row)] += 1
    out = {}
    for unit, counter in votes.items():
        top = counter.most_common()
        out[unit] = "tie" if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]
    return out


def test_accuracy_and_kappa_match_a_direct_count_and_scikit_learn(prd):
    verdicts, human = prd
    got = judge_measures(verdicts, human).judges.set_index("judge")
    majority = human_majority(human)
    for judge in PRD_JUDGES:
        said, truth = [], []
        for row in verdicts[verdicts["judge"] == judge].itertuples():
            unit = (row.prompt, frozenset((row.model_a, row.model_b)))
            if unit in majority:
                said.append(canonical_class(winner_model(row), unit[1]))
                truth.append(canonical_class(majority[unit], unit[1]))
        assert got.loc[judge, "n_matched"] == len(said) > 0
        assert got.loc[judge, "accuracy"] == pytest.approx(np.mean(np.array(said) == np.array(truth)), abs=1e-12)
        assert got.loc[judge, "kappa"] == pytest.approx(cohen_kappa_score(said, truth), abs=1e-12)


def test_a_reference_majority_shared_by_two_classes_is_a_tie():
    counts = np.array([[2, 1, 0], [1, 1, 0], [1, 0, 1], [0, 0, 0], [0, 1, 3], [0.5, 0.5, 0.5]])
    assert list(_majority_class(counts)) == [0, 2, 2, -1, 2, 2]
    verdicts = pd.DataFrame([("p", "j", "x", "y", "model_a")], columns=COLUMNS)
    reference = pd.DataFrame([("p", "h1", "x", "y", "model_a"), ("p", "h2", "y", "x", "model_a")], columns=COLUMNS)
    row = judge_measures(verdicts, reference).judges.iloc[0]
    assert (row["n_matched"], row["accuracy"]) == (1, 0.0)  # x vs y, one vote each: the reference is a tie


def test_alpha_matches_the_krippendorff_package(prd):
    verdicts, _ = prd
    got = judge_measures(verdicts).summary.iloc[0]
    units = verdicts["prompt"] + ":" + np.minimum(verdicts["model_a"], verdicts["model_b"]) + ":" + np.maximum(
        verdicts["model_a"], verdicts["model_b"])
    names = [canonical_class(winner_model(row), (row.model_a, row.model_b)) for row in verdicts.itertuples()]
    counts = pd.crosstab(units, pd.Series(names, name="class")).to_numpy()
    assert got["alpha"] == pytest.approx(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"),
                                         abs=1e-9)
    assert got["n_units"] == 800 and got["n_judges"] == 5
    # one verdict per judge and unit: the package's judges x units reliability matrix gives the same
    one = verdicts[verdicts["model_a"] < verdicts["model_b"]].drop_duplicates(["prompt", "judge", "model_a", "model_b"])
    code = one["winner"].map({"model_a": 0, "model_b": 1, "tie": 2})
    matrix = pd.DataFrame({"judge": one["judge"], "unit": one["prompt"] + one["model_a"] + one["model_b"],
                           "code": code}).pivot(index="judge", columns="unit", values="code").to_numpy(dtype=float)
    assert judge_measures(one).summary.iloc[0]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal"), abs=1e-9)


def test_alpha_of_a_small_table_by_hand():
    # two units, values (a, a) and (a, b): o_aa = 2, o_ab = o_ba = 1, o_bb = 0, n_a = 3, n_b = 1, n = 4;
    # alpha = 1 - (n - 1) (o_ab + o_ba) / (2 n_a n_b) = 1 - 3 * 2 / 6 = 0
    assert _nominal_alpha(np.array([[2, 0, 0], [1, 1, 0]])) == pytest.approx(0.0, abs=1e-12)
    assert np.isnan(_nominal_alpha(np.array([[2, 0, 0], [3, 0, 0]])))  # one class only


def test_effective_judges_by_hand():
    assert effective_judges(5, 0.25) == pytest.approx(2.5)  # 5 / (1 + 4 * 0.25)
    assert effective_judges(10, 0.0) == pytest.approx(10.0)
    assert effective_judges(7, 1.0) == pytest.approx(1.0)
    assert effective_judges(3, -0.2) == pytest.approx(3 / 0.6)
    assert np.isnan(effective_judges(3, -0.5)) and np.isnan(effective_judges(4, float("nan")))


def brute_force_pairs(verdicts: pd.DataFrame, reference: dict | None) -> pd.DataFrame:
    """Agreement and error correlation of every pair of judges by loops over units and verdicts; without a
    reference, each unit's reference for a pair is the majority of the other judges (each one vote, split
    over its verdicts)."""
    shares = defaultdict(dict)  # judge -> unit -> {name: share}
    for (judge, unit), rows in verdicts.groupby(["judge", "unit"]):
        names = Counter(rows["name"])
        shares[judge][unit] = {name: count / len(rows) for name, count in names.items()}
    out = []
    for a, b in itertools.combinations(sorted(shares), 2):
        common = sorted(set(shares[a]) & set(shares[b]))
        agreement = np.mean([sum(p * shares[b][u].get(n, 0.0) for n, p in shares[a][u].items()) for u in common])
        errors_a, errors_b = [], []
        for u in common:
            if reference is not None:
                truth = reference.get(u)
            else:
                votes = Counter()
                for other in set(shares) - {a, b}:
                    for name, p in shares[other].get(u, {}).items():
                        votes[name] += p
                top = votes.most_common()
                truth = None if not top or (len(top) > 1 and abs(top[0][1] - top[1][1]) < 1e-9) else top[0][0]
            if truth is not None:
                errors_a.append(1.0 - shares[a][u].get(truth, 0.0))
                errors_b.append(1.0 - shares[b][u].get(truth, 0.0))
        corr = np.corrcoef(errors_a, errors_b)[0, 1] if len(errors_a) > 1 and np.ptp(errors_a) and np.ptp(
            errors_b) else np.nan
        shrunk = corr * len(errors_a) / (len(errors_a) + _PRIOR_UNITS)  # a normal prior at 0 worth m0 units
        out.append((a, b, len(common), agreement, len(errors_a), corr, shrunk))
    return pd.DataFrame(out, columns=["judge_a", "judge_b", "n_common", "agreement", "n_error_units",
                                      "error_correlation", "error_correlation_shrunk"])


def random_panel(seed: int, n_judges: int = 5, n_prompts: int = 12, models=("m1", "m2", "m3")) -> pd.DataFrame:
    """A sparse panel: each judge sees a random subset of (prompt, ordered pair), some in both orders, some twice."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(n_judges):
        for p in range(n_prompts):
            for x, y in itertools.permutations(models, 2):
                for _ in range(rng.choice([0, 1, 1, 2])):
                    rows.append((f"p{p}", f"j{j}", x, y, rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"],
                                                                       p=[0.45, 0.35, 0.1, 0.1])))
    return pd.DataFrame(rows, columns=COLUMNS)


@pytest.mark.parametrize("with_reference", [False, True])
def test_pairs_match_a_brute_force_loop(with_reference):
    verdicts = random_panel(3)
    reference = random_panel(4, n_judges=2, n_prompts=9).assign(judge="human")
    got = judge_measures(verdicts, reference if with_reference else None)
    labelled = verdicts.assign(unit=verdicts["prompt"] + ":" + np.minimum(verdicts["model_a"], verdicts["model_b"])
                               + ":" + np.maximum(verdicts["model_a"], verdicts["model_b"]),
                               name=[winner_model(r) for r in verdicts.itertuples()])
    majority = None
    if with_reference:
        majority = {f"{p}:{min(pair)}:{max(pair)}": v for (p, pair), v in human_majority(reference).items()}
    want = brute_force_pairs(labelled, majority)
    pd.testing.assert_frame_equal(got.pairs, want, check_dtype=False, atol=1e-12)
    finite = want["error_correlation"].dropna()
    summary = got.summary.iloc[0]
    assert summary["mean_error_correlation"] == pytest.approx(finite.mean(), abs=1e-12)
    assert summary["effective_judges"] == pytest.approx(5 / (1 + 4 * finite.mean()), abs=1e-12)
    assert summary["error_reference"] == ("reference" if with_reference else "majority of the other judges")


# ---------------------------------------------------------------- a simulated panel with known order effects

def simulated_panel(bias: dict[str, float], n_units: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each unit (prompt, x vs y) has a true winner (x or y, a fair coin); each judge sees it in both orders
    and, in each, names the answer shown first with probability ``bias[judge]``, else the true winner.
    Then P(first shown wins) = (1 + b) / 2, the flip rate is b and the accuracy 1 - b / 2."""
    rng = np.random.default_rng(seed)
    truth = rng.random(n_units) < 0.5  # True: x wins
    rows = []
    for judge, b in bias.items():
        for first_is_x in (True, False):
            biased = rng.random(n_units) < b
            first_wins = np.where(biased, True, truth == first_is_x)
            a, bb = ("x", "y") if first_is_x else ("y", "x")
            rows += [(f"q{u}", judge, a, bb, "model_a" if w else "model_b") for u, w in enumerate(first_wins)]
    reference = pd.DataFrame([(f"q{u}", "gold", "x", "y", "model_a" if t else "model_b") for u, t in enumerate(truth)],
                             columns=COLUMNS)
    return pd.DataFrame(rows, columns=COLUMNS), reference


def test_known_order_effects_are_recovered_within_the_intervals():
    bias = {"fair": 0.0, "mild": 0.2, "strong": 0.6}
    n = 1500
    verdicts, gold = simulated_panel(bias, n, seed=11)
    got = judge_measures(verdicts, gold, level=0.99).judges.set_index("judge")
    for judge, b in bias.items():
        row = got.loc[judge]
        assert row["first_win_low"] <= (1 + b) / 2 <= row["first_win_high"], (judge, row)
        assert row["flip_pairs"] == n
        se = np.sqrt(max(b * (1 - b), 1e-12) / n)
        assert abs(row["flip_rate"] - b) <= 4 * se + 1e-12, (judge, row["flip_rate"])
        se = np.sqrt((1 - b / 2) * (b / 2) / (2 * n))
        assert abs(row["accuracy"] - (1 - b / 2)) <= 4 * se + 1e-12, (judge, row["accuracy"])
    # the fair judge's interval excludes neither 0.5; the strong one's lies above it
    assert got.loc["fair", "first_win_low"] < 0.5 < got.loc["fair", "first_win_high"]
    assert got.loc["strong", "first_win_low"] > 0.5


def test_copied_errors_correlate_and_leave_one_effective_judge():
    verdicts, gold = simulated_panel({"a": 0.5}, 400, seed=5)
    copies = pd.concat([verdicts.assign(judge=name) for name in ("a", "b", "c", "d")], ignore_index=True)
    summary = judge_measures(copies, gold).summary.iloc[0]
    assert summary["mean_error_correlation"] == pytest.approx(1.0)
    assert summary["effective_judges"] == pytest.approx(1.0)
    # judges whose errors are independent given the unit: near 0 against the truth, and against the majority
    # of the other judges
    independent, gold = simulated_panel({"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5, "e": 0.5}, 2000, seed=6)
    assert judge_measures(independent, gold).pairs["error_correlation"].abs().max() < 4 / np.sqrt(2000)
    assert judge_measures(independent).pairs["error_correlation"].abs().max() < 4 / np.sqrt(2000)


# ---------------------------------------------------------------- row order, bad input, the command

def test_the_same_verdicts_in_any_row_order_give_the_same_numbers(prd):
    verdicts, human = prd
    first = judge_measures(verdicts, human)
    shuffled = judge_measures(verdicts.sample(frac=1.0, random_state=1), human.sample(frac=1.0, random_state=2))
    for name in ("judges", "pairs", "summary"):
        pd.testing.assert_frame_equal(getattr(first, name), getattr(shuffled, name), atol=1e-6)


@pytest.mark.parametrize("row, reason", [
    (("p1", "h", "x", "y", "B"), "winner must be one of model_a, model_b, tie, tie (bothbad): 'B'"),
    (("p1", "h", "x", "x", "tie"), "model_a and model_b are the same model: 'x'"),
    (("p1", "", "x", "y", "tie"), "empty judge"),
    (("p1", "h", "x", "y", None), "empty winner"),
])
def test_bad_reference_rows_are_named_by_table_row_and_value(row, reason):
    verdicts = pd.DataFrame([("p1", "j", "x", "y", "model_a")], columns=COLUMNS)
    reference = pd.DataFrame([("p0", "h", "x", "y", "tie"), row], columns=COLUMNS)
    with pytest.raises(ValueError, match=re.escape(f"reference, row 1: {reason}")):
        judge_measures(verdicts, reference)
    with pytest.raises(ValueError, match="missing winner"):
        judge_measures(verdicts, reference.drop(columns="winner"))


def write_tsv(path, frame: pd.DataFrame):
    frame.to_csv(path, sep="\t", index=False)
    return path


def test_bad_reference_file_is_named_by_file_line_and_value(tmp_path, capsys):
    verdicts = write_tsv(tmp_path / "v.tsv", pd.DataFrame([("p1", "j", "x", "y", "model_a")], columns=COLUMNS))
    bad = write_tsv(tmp_path / "ref.tsv", pd.DataFrame([("p1", "h", "x", "y", "tie"), ("p1", "h", "x", "y", "first"),
                                                        ("p1", "h", "x", "y", "worse")], columns=COLUMNS))
    out = tmp_path / "judges.tsv"
    status, _, err = run_command(capsys, "arena", "judges", verdicts, "--reference", bad, "-o", out)
    assert status == 1
    assert f"{bad}, line 3: winner must be model_a, model_b, tie or tie (bothbad): 'first'" in err
    assert not out.exists()
    missing = tmp_path / "short.tsv"
    missing.write_text("prompt\tjudge\tmodel_a\twinner\np1\th\tx\ttie\n")
    status, _, err = run_command(capsys, "arena", "judges", verdicts, "--reference", missing)
    assert status == 1 and f"{missing}, line 1" in err and "model_b" in err


def test_the_command_writes_the_librarys_tables(tmp_path, capsys):
    verdicts = random_panel(8)
    reference = random_panel(9, n_judges=1).assign(judge="human")
    paths = {name: tmp_path / f"{name}.tsv" for name in ("judges", "pairs", "summary")}
    status, _, err = run_command(capsys, "arena", "judges", write_tsv(tmp_path / "v.tsv", verdicts), "--reference",
                                 write_tsv(tmp_path / "r.tsv", reference), "--ci", "0.9", "-o", paths["judges"],
                                 "--pairs", paths["pairs"], "--summary", paths["summary"])
    assert status == 0, err
    want = judge_measures(verdicts, reference, level=0.9)
    for name, path in paths.items():
        got = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""], dtype={"judge": str})
        pd.testing.assert_frame_equal(got, getattr(want, name), check_dtype=False, atol=1e-12)
    status, _, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--ci", "95")
    assert status == 2 and "--ci" in err
    status, _, err = run_command(capsys, "arena", "judges", tmp_path / "v.tsv", "--pairs", "-")
    assert status == 2 and "--pairs" in err


def test_the_module_docstring_example_runs():
    result = doctest.testmod(judges_module)
    assert result.attempted > 0 and result.failed == 0


def test_shrunk_correlation_by_hand():
    """Two judges who share m = 4 units with raw r = 1, and two with m = 400 and r = 0.9, at m0 = 20:
    r m / (m + m0) = 1 x 4 / 24 = 1/6 and 0.9 x 400 / 420 = 6/7; m0 = 0 leaves r; NaN stays NaN."""
    got = _shrunk_correlation(np.array([1.0, 0.9, np.nan, -0.5]), np.array([4, 400, 10, 0]), 20.0)
    np.testing.assert_allclose(got, [1 / 6, 6 / 7, np.nan, 0.0], atol=1e-15)
    np.testing.assert_allclose(_shrunk_correlation(np.array([0.3]), np.array([5]), 0.0), [0.3])


def test_a_correlation_on_four_shared_units_does_not_cluster():
    """j1 and j2 share 4 units and err together on the two where both deviate from j3..j5 (raw r = 1); the
    shrunk value 4 / (4 + m0) stays below the threshold, so auto finds no cluster; m0 = 0 does cluster them."""
    rows = []
    for p in range(4):
        wrong = p < 2
        for judge in ("j1", "j2"):
            rows.append((f"p{p}", judge, "x", "y", "model_b" if wrong else "model_a"))
        for judge in ("j3", "j4", "j5"):
            rows.append((f"p{p}", judge, "x", "y", "model_a"))
    verdicts = pd.DataFrame(rows, columns=COLUMNS)
    pair = judge_measures(verdicts).pairs.set_index(["judge_a", "judge_b"]).loc[("j1", "j2")]
    assert pair["n_error_units"] == 4 and pair["error_correlation"] == pytest.approx(1.0)
    assert pair["error_correlation_shrunk"] == pytest.approx(4 / (4 + _PRIOR_UNITS))
    assert judge_weights(verdicts, "auto", threshold=0.5)["cluster_size"].max() == 1
    raw = judge_weights(verdicts, "auto", threshold=0.5, prior_units=0.0).set_index("judge")
    assert raw.loc["j1", "cluster"] == raw.loc["j2", "cluster"] and raw.loc["j1", "weight"] == pytest.approx(0.5)
