"""Style control: Leaderboard(control=...), its coefficients and bootstrap, the judges' length preference, the
simulator's verbosity, and the command's --control, --coefficients and --length."""
import io

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime, minimize, root
from scipy.special import expit
from scipy.stats import spearmanr

from manyjudges.arena.leaderboard.estimator import Leaderboard
from manyjudges.arena.length_preference import length_preference
from manyjudges.arena.panel_simulation import PanelJudge, simulate_panel
from manyjudges.arena.verdict_codes import code_verdicts
from manyjudges.io.tables.verdicts import write_verdicts
from tests.command import run_command

STRENGTHS = pd.Series(np.linspace(-1.0, 1.0, 6), index=[f"m{i}" for i in range(6)])
#: verbose models are weak: mean log length falls with strength
VERBOSITY = dict(zip(STRENGTHS.index, np.log(300.0) - 0.8 * STRENGTHS.to_numpy()))


def panel(seed=0, n_prompts=40, weights=(1.5, 0.0, -1.0)):
    judges = [PanelJudge(f"j{k}", style={"length": c} if c else {}) for k, c in enumerate(weights)]
    return simulate_panel(seed, STRENGTHS, judges, n_prompts, both_orders=False, verbosity=VERBOSITY).verdicts


def differences(frame, name):
    fa, fb = frame[f"{name}_a"].to_numpy(float), frame[f"{name}_b"].to_numpy(float)
    return pd.Series(np.where(fa + fb == 0, 0.0, (fa - fb) / np.where(fa + fb == 0, 1, fa + fb)))


def direct_fit(frame, names, reg=0.01, scale=None):
    """Scores and gamma by scipy's BFGS on the written-out likelihood, the covariates computed here with pandas.

    ``scale``: per feature the (mean, sd) to standardise by (default: the frame's own).
    """
    models = sorted(set(frame["model_a"]) | set(frame["model_b"]))
    code = {m: i for i, m in enumerate(models)}
    a, b = frame["model_a"].map(code).to_numpy(), frame["model_b"].map(code).to_numpy()
    y = frame["winner"].map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}).to_numpy()
    cols = []
    for k, n in enumerate(names):
        d = differences(frame, n)
        mean, sd = (d.mean(), d.std(ddof=0)) if scale is None else scale[k]
        cols.append(((d - mean) / sd).to_numpy())
    x = np.column_stack(cols)
    m = len(models)

    def loss(t):
        z = t[a] - t[b] + x @ t[m:]
        return -np.sum(y * np.log(expit(z)) + (1 - y) * np.log(expit(-z))) + 0.5 * reg * t @ t

    res = minimize(loss, np.zeros(m + len(names)), method="BFGS", options={"gtol": 1e-8})
    s = res.x[:m] - res.x[:m].mean()
    return pd.Series(s, index=models), res.x[m:]


def test_the_controlled_scores_and_coefficient_are_scipys_on_the_written_out_likelihood():
    frame = panel(1, n_prompts=15)
    board = Leaderboard(control=("length",)).fit(frame)
    scores, gamma = direct_fit(frame, ["length"])
    np.testing.assert_allclose(board.scores_.loc[scores.index], scores, atol=1e-5)
    np.testing.assert_allclose(board.coefficients_["coefficient"], gamma, atol=1e-5)
    assert list(board.coefficients_.columns) == ["feature", "coefficient", "ci_low", "ci_high"]
    assert board.coefficients_["ci_low"].isna().all()  # no replicates, no interval


def test_any_row_order_gives_the_same_board_and_coefficients():
    frame = panel(2, n_prompts=10)
    one = Leaderboard(n_bootstrap=30, control=["length"], resample="prompts", seed=4).fit(frame)
    two = Leaderboard(n_bootstrap=30, control=["length"], resample="prompts", seed=4).fit(
        frame.sample(frac=1.0, random_state=7).reset_index(drop=True))
    cols = ["score", "ci_low", "ci_high", "win_rate", "win_low", "win_high"]
    np.testing.assert_allclose(one.table_[cols], two.table_[cols], atol=1e-6)
    np.testing.assert_allclose(one.coefficients_.iloc[:, 1:].to_numpy(float),
                               two.coefficients_.iloc[:, 1:].to_numpy(float), atol=1e-6)


def test_the_bootstrap_is_the_leaderboards_draws_refitted_in_a_loop():
    frame = panel(3, n_prompts=8)
    board = Leaderboard(n_bootstrap=4, control=("length",), resample="prompts", seed=11).fit(frame)
    d = differences(frame, "length")
    scale = [(d.mean(), d.std(ddof=0))]  # the full table's standardisation, kept in every replicate
    prompts = list(code_verdicts(frame).prompts)
    rng = np.random.default_rng(11)
    for r in range(4):
        draw = rng.integers(0, len(prompts), len(prompts))
        resampled = pd.concat([frame[frame["prompt"] == prompts[k]] for k in draw], ignore_index=True)
        scores, _ = direct_fit(resampled, ["length"], scale=scale)
        np.testing.assert_allclose(board.replicates_[r], scores.loc[board.scores_.index].to_numpy(), atol=1e-5)


def test_verbose_weak_models_are_put_back_in_their_place():
    frame = panel(4, n_prompts=60, weights=(2.0, 2.0, 2.0))
    raw = Leaderboard().fit(frame).scores_.loc[STRENGTHS.index]
    controlled = Leaderboard(control=("length",)).fit(frame)
    rho_raw = spearmanr(raw, STRENGTHS).statistic
    rho_controlled = spearmanr(controlled.scores_.loc[STRENGTHS.index], STRENGTHS).statistic
    assert rho_controlled > rho_raw
    assert rho_controlled >= 0.9
    assert controlled.coefficients_["coefficient"].iloc[0] > 0


def test_bad_controls_are_named():
    frame = panel(5, n_prompts=5)
    with pytest.raises(ValueError, match=r"no feature 'bold'.*features \(NAME_a, NAME_b pairs\): length"):
        Leaderboard(control=("bold",)).fit(frame)
    with pytest.raises(ValueError, match="the methods that take controls: bradley_terry"):
        Leaderboard("elo", control=("length",)).fit(frame)
    with pytest.raises(ValueError, match="not coded verdicts"):
        Leaderboard(control=("length",)).fit(code_verdicts(frame))
    flat = frame.assign(length_a=100.0, length_b=100.0)
    with pytest.raises(ValueError, match="'length' has the same normalised difference"):
        Leaderboard(control=("length",)).fit(flat)
    bad = frame.copy()
    bad.loc[3, "length_b"] = -1.0
    with pytest.raises(ValueError, match="row 3: length_b must be a number >= 0, got -1.0"):
        Leaderboard(control=("length",)).fit(bad)


def test_each_judges_length_preference_has_its_sign_and_a_wald_interval():
    frame = panel(6, n_prompts=40)
    table = length_preference(frame)
    assert list(table["judge"]) == ["j0", "j1", "j2"]
    pref = table.set_index("judge")
    assert pref.loc["j0", "length_low"] > 0 and pref.loc["j2", "length_high"] < 0
    assert pref.loc["j1", "length_low"] < 0 < pref.loc["j1", "length_high"]
    # Wald: the inverse of the Hessian of the written-out loss, by finite differences of its gradient
    models = sorted(STRENGTHS.index)
    code = {m: i for i, m in enumerate(models)}
    a, b = frame["model_a"].map(code).to_numpy(), frame["model_b"].map(code).to_numpy()
    y = (frame["winner"] == "model_a").astype(float).to_numpy()
    d = (frame["length_a"] - frame["length_b"]) / (frame["length_a"] + frame["length_b"])
    d = ((d - d.mean()) / d.std(ddof=0)).to_numpy()
    judge = frame["judge"].map({"j0": 0, "j1": 1, "j2": 2}).to_numpy()
    x = np.zeros((len(frame), 3))
    x[np.arange(len(frame)), judge] = d
    m = len(models)

    def grad(t):  # of the loss with the scores' sum pinned by the last score = -sum of the others
        s = np.append(t[:m - 1], -t[:m - 1].sum())
        z = s[a] - s[b] + x @ t[m - 1:]
        r = expit(z) - y
        gs = np.bincount(a, r, m) - np.bincount(b, r, m) + 0.01 * s
        return np.concatenate([gs[:m - 1] - gs[m - 1], x.T @ r + 0.01 * t[m - 1:]])

    sol = root(grad, np.zeros(m + 2), tol=1e-12).x
    np.testing.assert_allclose(sol[m - 1:], pref["length_preference"], atol=1e-5)
    hess = approx_fprime(sol, grad, 1e-6)
    se = np.sqrt(np.diag(np.linalg.inv(0.5 * (hess + hess.T))))[m - 1:]
    np.testing.assert_allclose((pref["length_high"] - pref["length_low"]) / (2 * 1.959963984540054), se, rtol=1e-3)


def test_a_judge_with_too_few_verdicts_gets_nan():
    frame = panel(7, n_prompts=20)
    few = frame[frame["judge"] == "j1"].head(5).assign(judge="rare")
    table = length_preference(pd.concat([frame, few], ignore_index=True)).set_index("judge")
    assert table.loc["rare"].isna().all()
    assert table.drop(index="rare").notna().all().all()


def test_verbosity_draws_positive_lengths_around_each_models_mean():
    frame = panel(8, n_prompts=200)
    assert (frame[["length_a", "length_b"]] > 0).all().all()
    lengths = pd.concat([frame[["model_a", "length_a"]].set_axis(["model", "length"], axis=1),
                         frame[["model_b", "length_b"]].set_axis(["model", "length"], axis=1)])
    mean_log = np.log(lengths["length"]).groupby(lengths["model"]).mean()
    np.testing.assert_allclose(mean_log.loc[STRENGTHS.index], pd.Series(VERBOSITY).loc[STRENGTHS.index], atol=0.1)
    with pytest.raises(ValueError, match="not both"):
        simulate_panel(0, STRENGTHS, [PanelJudge("j")], 2, style={"length": 1.0}, verbosity=VERBOSITY)
    with pytest.raises(ValueError, match="missing m5"):
        simulate_panel(0, STRENGTHS, [PanelJudge("j")], 2, verbosity={m: 5.0 for m in STRENGTHS.index[:5]})


def test_the_command_writes_the_controlled_board_and_the_coefficients(capsys, tmp_path):
    frame = panel(9, n_prompts=10)
    path = tmp_path / "v.tsv"
    write_verdicts(frame, path)
    coef = tmp_path / "coef.tsv"
    status, out, _ = run_command(capsys, "arena", "leaderboard", path, "--control", "length", "--coefficients", coef,
                                 "--bootstrap", "20", "--quiet")
    assert status == 0
    board = Leaderboard(n_bootstrap=20, control=("length",)).fit(frame)
    got = pd.read_csv(io.StringIO(out), sep="\t")
    np.testing.assert_allclose(got["score"], board.table_["score"], atol=1e-9)
    written = pd.read_csv(coef, sep="\t")
    np.testing.assert_allclose(written.iloc[:, 1:], board.coefficients_.iloc[:, 1:].to_numpy(float), atol=1e-9)
    status, out, _ = run_command(capsys, "arena", "judges", path, "--quiet")
    assert status == 0
    assert {"length_preference", "length_low", "length_high"} <= set(pd.read_csv(io.StringIO(out), sep="\t").columns)


@pytest.mark.parametrize("argv, message", [
    (("--control", "bold"), "no feature 'bold'"),
    (("--control", "length", "--method", "davidson"), "the methods that take controls: bradley_terry"),
    (("--coefficients", "c.tsv"), "--coefficients needs --control"),
])
def test_the_command_refuses_bad_controls_and_writes_nothing(capsys, tmp_path, argv, message):
    path = tmp_path / "v.tsv"
    write_verdicts(panel(10, n_prompts=4), path)
    out = tmp_path / "board.tsv"
    status, _, err = run_command(capsys, "arena", "leaderboard", path, *argv, "-o", out, "--bootstrap", "5")
    assert status != 0 and message in err and not out.exists()
    status, _, err = run_command(capsys, "arena", "judges", path, "--length", "words")
    assert status != 0 and "no feature 'words'" in err


def test_the_length_preference_does_not_depend_on_the_row_order():
    frame = panel(11, n_prompts=15)
    one = length_preference(frame)
    two = length_preference(frame.sample(frac=1.0, random_state=3).reset_index(drop=True))
    assert list(one["judge"]) == list(two["judge"])
    np.testing.assert_allclose(one.iloc[:, 1:].to_numpy(float), two.iloc[:, 1:].to_numpy(float), atol=1e-6)


def test_a_published_format_without_features_is_refused_with_the_features_it_has(capsys, tmp_path):
    path = tmp_path / "gpt4-crowd-comparisons.csv"
    path.write_text("id,prompt,model_x,model_y,winner,left,right\n0,8,1,2,left,x,y\n1,8,2,1,right,y,x\n"
                    "2,9,1,3,tie,x,z\n3,9,2,3,left,y,z\n")
    status, _, err = run_command(capsys, "arena", "leaderboard", path, "--from", "llmfao", "--control", "length",
                                 "--bootstrap", "0")
    assert status != 0 and "no feature 'length'" in err and "pairs): none" in err
