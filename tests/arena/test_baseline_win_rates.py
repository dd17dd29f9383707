"""Win rates against a baseline (AlpacaEval's) and the length-controlled win rate (AlpacaEval 2.0).

Each number against a hand computation, a direct numpy loop, an enumeration of the bootstrap's prompt draws,
scipy's minimiser on the written-out GLM loss, or simulated tables whose answer is known; and the command end
to end on a small file, on the mirror's llmfao and on a hand-written AlpacaEval annotations.json."""
import io
import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from command import run_command
from scipy.optimize import approx_fprime, minimize
from scipy.special import expit

from manyjudges.arena.winrate import length_controlled as lc
from manyjudges.arena.winrate.baseline import (
    _against_baseline,
    _BaselineVerdicts,
    baseline_win_rates,
    model_preferences,
    prompt_weights,
    raw_replicates,
)
from manyjudges.io.engine.errors import DataWarning

COLUMNS = ["model", "win_rate", "se", "ci_low", "ci_high", "discrete_win_rate", "n"]


def verdicts(rows, p_b=None, **extra):
    frame = pd.DataFrame(rows, columns=["prompt", "judge", "model_a", "model_b", "winner"])
    if p_b is not None:
        frame["p_b"] = np.asarray(p_b, dtype=float)
    for name, values in extra.items():
        frame[name] = np.asarray(values, dtype=float)
    return frame


# m against the baseline b: a win (m first), a tie, a loss (m second), a win (m second); x vs m is not used
HAND = verdicts([("q1", "j", "m", "b", "model_a"), ("q2", "j", "b", "m", "tie"), ("q3", "j", "b", "m", "model_a"),
                 ("q4", "j", "b", "m", "model_b"), ("q4", "j", "x", "m", "model_a"), ("q1", "j", "b", "x", "model_b")])


def test_hand_example():
    # m: p = 1, 1/2, 0, 1 -> win_rate 2.5 / 4 = 0.625; squared deviations 0.140625 + 0.015625 + 0.390625 +
    # 0.140625 = 0.6875, sd^2 = 0.6875 / 3, se = sqrt(0.6875 / 3 / 4) = 0.2393568; discrete (2 + 0.5) / 4 = 0.625;
    # normal 95% interval 0.625 -+ 1.959964 x 0.2393568 = (0.155869, 1.094131) -> clipped (0.155869, 1).
    # x: one verdict, a win (p = 1): se and interval empty.
    table = baseline_win_rates(HAND, "b")
    assert list(table.columns) == COLUMNS and list(table["model"]) == ["x", "m"]
    m = table.iloc[1]
    assert m["win_rate"] == pytest.approx(0.625) and m["se"] == pytest.approx(0.2393568, abs=1e-7)
    assert m["ci_low"] == pytest.approx(0.155869, abs=1e-6) and m["ci_high"] == 1.0
    assert m["discrete_win_rate"] == 0.625 and m["n"] == 4
    x = table.iloc[0]
    assert x["win_rate"] == 1.0 and x["n"] == 1 and np.isnan(x[["se", "ci_low", "ci_high"]].astype(float)).all()


def test_soft_preferences_hand_example():
    # p_b = 0.9 (m is model_b: p 0.9), 0.4 (m model_a: p 0.6), 0.5 (p 0.5), 0.8 (m model_a: p 0.2):
    # win_rate 2.2 / 4 = 0.55, discrete (2 + 0.5) / 4 = 0.625, the winners not used
    frame = verdicts([("q1", "j", "b", "m", "tie"), ("q2", "j", "m", "b", "tie"), ("q3", "j", "b", "m", "tie"),
                      ("q4", "j", "m", "b", "tie")], p_b=[0.9, 0.4, 0.5, 0.8])
    row = baseline_win_rates(frame, "b").iloc[0]
    assert row["win_rate"] == pytest.approx(0.55) and row["discrete_win_rate"] == 0.625
    assert row["se"] == pytest.approx(np.std([0.9, 0.6, 0.5, 0.2], ddof=1) / 2)
    prefs = model_preferences(frame, "b")
    assert list(prefs.columns) == ["prompt", "judge", "model", "p"]
    assert prefs["p"].tolist() == pytest.approx([0.9, 0.6, 0.5, 0.2])


def random_table(seed, n=400, models=("b", "m1", "m2", "m3", "m4"), soft=False, features=False):
    rng = np.random.default_rng(seed)
    a = rng.choice(models, n)
    b = np.array([rng.choice([m for m in models if m != x]) for x in a])
    winner = rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"], n, p=[0.4, 0.4, 0.1, 0.1])
    rows = list(zip([f"q{i}" for i in rng.integers(0, 40, n)], rng.choice(["j1", "j2"], n), a, b, winner))
    extra = {"p_b": rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, rng.random()], n)} if soft else {}
    if features:
        extra |= {"length_a": rng.normal(300, 50, n), "length_b": rng.normal(300, 50, n)}
    return verdicts(rows, **extra)


@pytest.mark.parametrize("soft", [False, True])
def test_against_a_direct_numpy_loop(soft):
    frame = random_table(3, soft=soft)
    table = baseline_win_rates(frame, "b").set_index("model")
    for model in ["m1", "m2", "m3", "m4"]:
        p = []
        for row in frame.itertuples():
            if {row.model_a, row.model_b} != {model, "b"}:
                continue
            if soft:
                p.append(row.p_b if row.model_b == model else 1.0 - row.p_b)
            else:
                won = row.winner == ("model_a" if row.model_a == model else "model_b")
                p.append(1.0 if won else 0.5 if row.winner.startswith("tie") else 0.0)
        p = np.array(p)
        got = table.loc[model]
        assert got["n"] == len(p)
        np.testing.assert_allclose(got["win_rate"], p.mean(), rtol=1e-12)
        np.testing.assert_allclose(got["se"], p.std(ddof=1) / np.sqrt(len(p)), rtol=1e-10)
        np.testing.assert_allclose(got["discrete_win_rate"], np.mean((p > 0.5) + 0.5 * (p == 0.5)), rtol=1e-12)
    assert list(table["win_rate"]) == sorted(table["win_rate"], reverse=True)


def test_p_b_of_zero_half_one_equals_the_hard_winners():
    frame = random_table(4)
    p_b = frame["winner"].map({"model_a": 0.0, "model_b": 1.0, "tie": 0.5, "tie (bothbad)": 0.5})
    soft = frame.assign(p_b=p_b, winner="tie")  # the winners say nothing: p_b counts
    pd.testing.assert_frame_equal(baseline_win_rates(soft, "b"), baseline_win_rates(frame, "b"))
    moved = soft.assign(p_b=np.where(soft["p_b"] == 1.0, 0.9, soft["p_b"]))
    assert not np.allclose(baseline_win_rates(moved, "b")["win_rate"], baseline_win_rates(frame, "b")["win_rate"])


def swapped_and_shuffled(frame, seed):
    """The same verdicts, rows shuffled and every other row shown in the other order."""
    rng = np.random.default_rng(seed)
    out = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    flip = rng.random(len(out)) < 0.5
    out.loc[flip, ["model_a", "model_b"]] = out.loc[flip, ["model_b", "model_a"]].to_numpy()
    out.loc[flip, "winner"] = out.loc[flip, "winner"].map({"model_a": "model_b", "model_b": "model_a"}).fillna(
        out.loc[flip, "winner"])
    if "p_b" in out:
        out.loc[flip, "p_b"] = 1.0 - out.loc[flip, "p_b"]
    if "length_a" in out:
        out.loc[flip, ["length_a", "length_b"]] = out.loc[flip, ["length_b", "length_a"]].to_numpy()
    return out


@pytest.mark.parametrize("kwargs", [{}, {"n_bootstrap": 50}, {"control": "length"},
                                    {"control": "length", "n_bootstrap": 20}])
def test_the_same_verdicts_in_any_row_and_answer_order_give_the_same_numbers(kwargs):
    frame = random_table(5, soft=True, features=True)
    expected = baseline_win_rates(frame, "b", seed=7, **kwargs)
    for seed in (1, 2):
        got = baseline_win_rates(swapped_and_shuffled(frame, seed), "b", seed=7, **kwargs)
        assert list(got["model"]) == list(expected["model"])
        np.testing.assert_allclose(got.drop(columns="model").to_numpy(float),
                                   expected.drop(columns="model").to_numpy(float), atol=1e-6)


def test_the_bootstrap_resamples_whole_prompts_and_is_seeded():
    # two prompts: every replicate is one of the four draws (q1 q1, q1 q2, q2 q1, q2 q2) of whole prompts
    frame = verdicts([("q1", "j", "m", "b", "model_a"), ("q1", "k", "b", "m", "tie"), ("q2", "j", "m", "b", "model_b"),
                      ("q2", "j", "n", "b", "model_a"), ("q1", "j", "n", "b", "model_b")])
    data = _BaselineVerdicts(_against_baseline(frame, "b"))
    p_of = {(prompt, model): [] for prompt in ("q1", "q2") for model in ("m", "n")}
    for row in model_preferences(frame, "b").itertuples():
        p_of[(row.prompt, row.model)].append(row.p)
    possible = set()
    for draw in itertools.product(("q1", "q2"), repeat=2):
        rates = []
        for model in ("m", "n"):
            ps = [p for prompt in draw for p in p_of[(prompt, model)]]
            rates.append(round(np.mean(ps), 12) if ps else np.nan)
        possible.add(tuple(rates))
    weights = prompt_weights(data.n_prompts, 200, seed=3)
    assert all((w.sum(axis=1) == 2).all() for w in weights)
    replicates = raw_replicates(data, weights)
    seen = {tuple(round(x, 12) if np.isfinite(x) else np.nan for x in row) for row in replicates}
    as_text = {str(t) for t in possible}
    assert {str(t) for t in seen} == as_text  # every draw occurs, and nothing else
    again = baseline_win_rates(frame, "b", n_bootstrap=200, seed=3)
    pd.testing.assert_frame_equal(again, baseline_win_rates(frame, "b", n_bootstrap=200, seed=3))
    other = baseline_win_rates(random_table(6), "b", n_bootstrap=100, seed=4)
    assert not other.equals(baseline_win_rates(random_table(6), "b", n_bootstrap=100, seed=5))


def test_bootstrap_interval_against_a_direct_loop():
    frame = random_table(8)
    table = baseline_win_rates(frame, "b", n_bootstrap=300, ci=0.9, seed=11).set_index("model")
    prefs = model_preferences(frame, "b")
    prompts = np.unique(prefs["prompt"])
    rng = np.random.default_rng(11)
    draws = rng.integers(0, len(prompts), size=(300, len(prompts)))
    for model in table.index:
        mine = prefs[prefs["model"] == model]
        by_prompt = {q: mine.loc[mine["prompt"] == q, "p"].to_numpy() for q in prompts}
        reps = []
        for draw in draws:
            ps = np.concatenate([by_prompt[prompts[k]] for k in draw])
            reps.append(ps.mean() if len(ps) else np.nan)
        low, high = np.nanquantile(reps, [0.05, 0.95])
        np.testing.assert_allclose(table.loc[model, ["ci_low", "ci_high"]].astype(float), [low, high], atol=1e-12)


def test_errors_and_warnings():
    with pytest.raises(ValueError, match=r"the baseline 'z' is not a model of the verdicts; the models: b, m, x"):
        baseline_win_rates(HAND, "z")
    lonely = pd.concat([HAND, verdicts([("q9", "j", "x", "y", "model_a")])], ignore_index=True)
    with pytest.warns(DataWarning, match=r"1 model\(s\) never met the baseline b and have no win rate: y"):
        table = baseline_win_rates(lonely, "b")
    assert "y" not in set(table["model"])
    with pytest.raises(ValueError, match="one feature"):
        baseline_win_rates(HAND, "b", control=["length", "words"])
    with pytest.raises(ValueError, match=r"no feature 'length' \(no columns length_a and length_b\); their features "
                                         r"\(NAME_a, NAME_b pairs\): none"):
        baseline_win_rates(HAND, "b", control="length")
    with pytest.raises(ValueError, match="p_b must be a probability"):
        baseline_win_rates(HAND.assign(p_b=1.5), "b")
    with pytest.raises(ValueError, match="n_bootstrap"):
        baseline_win_rates(HAND, "b", n_bootstrap=-1)


# ---------------------------------------------------------------- the length-controlled win rate

def length_arena(effect, seed=0, n_prompts=600, models=(("m1", 0.5, 1.0), ("m2", -0.3, 0.0), ("m3", 0.0, -1.0))):
    """Each model m with strength s against b on every prompt, m's answer longer by mean ``shift`` (sd 1); the
    judge's P(m better) = sigma(s + d_prompt + effect tanh(length difference)), a hard verdict drawn from it."""
    rng = np.random.default_rng(seed)
    rows, la, lb = [], [], []
    for q in range(n_prompts):
        difficulty = rng.normal()
        for model, strength, shift in models:
            base_len = 5.0 + rng.normal()
            model_len = base_len + shift + rng.normal()
            won = rng.random() < expit(strength + difficulty + effect * np.tanh(model_len - base_len))
            if rng.random() < 0.5:
                rows.append((f"q{q}", "j", model, "b", "model_a" if won else "model_b"))
                la.append(model_len), lb.append(base_len)
            else:
                rows.append((f"q{q}", "j", "b", model, "model_b" if won else "model_a"))
                la.append(base_len), lb.append(model_len)
    return verdicts(rows, length_a=la, length_b=lb)


def test_without_a_length_effect_the_controlled_win_rate_is_the_raw_one():
    table = baseline_win_rates(length_arena(0.0), "b", control="length")
    assert list(table.columns) == [*COLUMNS, "raw_win_rate"]
    np.testing.assert_allclose(table["win_rate"], table["raw_win_rate"], atol=0.02)
    assert (table["discrete_win_rate"] == table["raw_win_rate"]).all()  # hard verdicts


def test_a_longer_model_whose_length_is_rewarded_loses_under_control():
    table = baseline_win_rates(length_arena(2.0, n_prompts=2000), "b", control="length").set_index("model")
    assert table.loc["m1", "win_rate"] < table.loc["m1", "raw_win_rate"] - 0.1  # longer: its bonus removed
    assert table.loc["m3", "win_rate"] > table.loc["m3", "raw_win_rate"] + 0.1  # shorter: its penalty removed
    truth = {m: expit(s + np.random.default_rng(0).normal(size=200_000)).mean() for m, s in
             (("m1", 0.5), ("m2", -0.3), ("m3", 0.0))}  # mean over the prompts' difficulty N(0, 1)
    for model, value in truth.items():  # the win rate the judge would give at equal lengths, within 0.07
        assert abs(table.loc[model, "win_rate"] - value) < 0.07


def test_equal_lengths_give_the_raw_win_rate():
    # no length difference: the length term is 0 and the intercept's score equation makes the
    # mean fitted probability the mean p (up to the 1e-4 ridge on theta)
    frame = random_table(9, soft=True, features=True)
    frame["length_b"] = frame["length_a"]
    table = baseline_win_rates(frame, "b", control="length")
    np.testing.assert_allclose(table["win_rate"], table["raw_win_rate"], atol=1e-3)


def glm_inputs(seed=2):
    frame = random_table(seed, soft=True, features=True)
    data = _BaselineVerdicts(_against_baseline(frame, "b", "length"))
    gamma = lc._prompt_difficulty(data.prompt, data.model, data.p)
    X = lc.design(lc._length_term(data.delta, data.model, data.n_models), gamma)
    w = np.random.default_rng(seed).integers(0, 3, len(data.p)).astype(float)
    return data, X, w


def glm_loss(b, X, p, w, reg):
    """L_m written out: the soft-label cross-entropy plus the ridges."""
    eta = X @ b
    nll = -np.sum(w * (p * -np.logaddexp(0, -eta) + (1 - p) * -np.logaddexp(0, eta)))
    return nll + reg / 2 * (b[1] ** 2 + b[2] ** 2) + lc._THETA_RIDGE / 2 * b[0] ** 2


def test_the_glm_fit_equals_scipys_minimiser_on_the_written_out_loss():
    data, X, w = glm_inputs()
    reg = 0.7
    beta = lc._fit_length_glm(data.model, X, data.p, w, data.n_models, reg)
    for m in range(data.n_models):
        rows = data.model == m
        args = (X[rows], data.p[rows], w[rows], reg)
        ref = minimize(glm_loss, np.zeros(3), args=args, method="BFGS", options={"gtol": 1e-10})
        np.testing.assert_allclose(beta[m], ref.x, atol=1e-5)
        assert glm_loss(beta[m], *args) <= ref.fun + 1e-9


def test_the_glm_fit_equals_sklearns_soft_label_logistic_regression():
    """AlpacaEval's own fitter: sklearn's LogisticRegression on every verdict twice, y = 1 weighted w p and y = 0
    weighted w (1 - p); its one L2 (C = 1: 1/2 ||b'||^2) becomes our per-parameter ridges by scaling column k
    by sqrt(1 / ridge_k)."""
    sklearn = pytest.importorskip("sklearn.linear_model")
    data, X, w = glm_inputs()
    reg = 0.7
    beta = lc._fit_length_glm(data.model, X, data.p, w, data.n_models, reg)
    scale = np.sqrt(1.0 / np.array([lc._THETA_RIDGE, reg, reg]))
    for m in range(data.n_models):
        rows = data.model == m
        twice = np.vstack([X[rows] * scale] * 2)
        y = np.r_[np.ones(rows.sum()), np.zeros(rows.sum())]
        weight = np.r_[w[rows] * data.p[rows], w[rows] * (1 - data.p[rows])]
        fit = sklearn.LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=10_000)
        fit.fit(twice, y, sample_weight=weight)
        np.testing.assert_allclose(beta[m], fit.coef_[0] * scale, atol=1e-6)


def test_length_term_and_difficulty_against_direct_loops():
    data, X, _ = glm_inputs(3)
    for i in range(0, len(data.p), 37):
        mine = data.model == data.model[i]
        assert X[i, 1] == pytest.approx(np.tanh(data.delta[i] / np.std(data.delta[mine], ddof=1)))
        others = (data.prompt == data.prompt[i]) & (data.model != data.model[i])
        expected = np.log((data.p[others].sum() + 0.5) / (others.sum() + 1 - data.p[others].sum() - 0.5))
        assert X[i, 2] == pytest.approx(expected)


def glm_gradient(b, X, p, reg):
    return X.T @ (expit(X @ b) - p) + np.array([lc._THETA_RIDGE, reg, reg]) * b


def controlled_mean(b, X):
    return expit(b[0] + b[2] * X[:, 2]).mean()


def test_the_sandwich_se_against_finite_differences():
    data, X, _ = glm_inputs(4)
    reg = 1.0
    beta = lc._fit_length_glm(data.model, X, data.p, np.ones(len(data.p)), data.n_models, reg)
    se = lc._length_controlled_se(data.model, X, data.p, beta, reg)
    for m in range(data.n_models):
        rows = data.model == m
        Xm, pm = X[rows], data.p[rows]
        A = np.array([approx_fprime(beta[m], lambda b, k=k, Xm=Xm, pm=pm: glm_gradient(b, Xm, pm, reg)[k], 1e-6)
                      for k in range(3)])
        scores = Xm * (expit(Xm @ beta[m]) - pm)[:, None]
        cov = np.linalg.inv(A) @ (scores.T @ scores) @ np.linalg.inv(A)
        g = approx_fprime(beta[m], controlled_mean, 1e-7, Xm)
        np.testing.assert_allclose(se[m], np.sqrt(g @ cov @ g), rtol=1e-3)


def test_the_bootstrap_se_of_the_controlled_win_rate_is_near_the_sandwich_se():
    frame = length_arena(1.0, seed=3, n_prompts=300)
    sandwich = baseline_win_rates(frame, "b", control="length")
    boot = baseline_win_rates(frame, "b", control="length", n_bootstrap=200, seed=1)
    np.testing.assert_allclose(boot["win_rate"], sandwich["win_rate"])
    np.testing.assert_allclose(boot["se"], sandwich["se"], rtol=0.25)
    assert ((boot["ci_low"] < boot["win_rate"]) & (boot["win_rate"] < boot["ci_high"])).all()


# ---------------------------------------------------------------- the command

def tsv(text):
    return pd.read_csv(io.StringIO(text), sep="\t")


def test_the_command_end_to_end(capsys, tmp_path):
    path = tmp_path / "verdicts.tsv"
    frame = random_table(10, features=True)
    frame.to_csv(path, sep="\t", index=False)
    status, out, err = run_command(capsys, "arena", "winrate", path, "--baseline", "b", "--bootstrap", "50",
                                   "--seed", "2", "--ci", "0.9")
    assert status == 0, err
    assert err.startswith(f"manyjudges: read {len(frame)} verdicts from {path}: 5 models, 2 judges, 40 prompts")
    expected = baseline_win_rates(frame, "b", n_bootstrap=50, ci=0.9, seed=2)
    got = tsv(out)
    assert list(got["model"]) == list(expected["model"])
    np.testing.assert_allclose(got[COLUMNS[1:]].to_numpy(float), expected[COLUMNS[1:]].to_numpy(float), atol=1e-12)
    out_file = tmp_path / "lc.tsv"
    status, _, err = run_command(capsys, "arena", "winrate", path, "--baseline", "b", "--control", "length",
                                 "-o", out_file, "--quiet")
    assert status == 0 and err == ""
    assert list(tsv(out_file.read_text()).columns) == [*COLUMNS, "raw_win_rate"]
    status, _, err = run_command(capsys, "arena", "winrate", path, "--baseline", "nobody", "-o", tmp_path / "no.tsv")
    assert status == 1 and f"{path}: the baseline 'nobody' is not a model" in err and "b, m1, m2" in err
    assert not (tmp_path / "no.tsv").exists()
    status, _, err = run_command(capsys, "arena", "winrate", path, "--baseline", "b", "--control", "length,words")
    assert status == 2 and "one feature" in err
    status, _, err = run_command(capsys, "arena", "winrate", path, "--baseline", "b", "--control", "words")
    assert status == 1 and "their features (NAME_a, NAME_b pairs): length" in err


def test_the_command_on_llmfao(capsys, mirror):
    root = next(mirror.glob("dustalov/llmfao/*"))
    path = root / "gpt4-crowd-comparisons.csv"
    raw = pd.read_csv(path)
    baseline = pd.concat([raw["left"], raw["right"]]).value_counts().index[0]
    status, out, err = run_command(capsys, "arena", "winrate", path, "--from", "llmfao", "--baseline", baseline)
    assert status == 0, err
    got = tsv(out).set_index("model")
    met = raw[(raw["left"] == baseline) ^ (raw["right"] == baseline)]
    model = np.where(met["left"] == baseline, met["right"], met["left"])
    won = np.where(met["left"] == baseline, met["winner"] == "right", met["winner"] == "left")
    p = pd.Series(np.where(met["winner"] == "tie", 0.5, won.astype(float)), index=model)
    expected = p.groupby(level=0).agg(["mean", "count"])
    assert set(got.index) == set(expected.index)
    np.testing.assert_allclose(got.loc[expected.index, "win_rate"], expected["mean"], rtol=1e-12)
    assert (got.loc[expected.index, "n"] == expected["count"]).all()


def annotation(instruction, preference, g1, g2):
    return {"instruction": instruction, "output_1": "x", "output_2": "y", "generator_1": g1, "generator_2": g2,
            "annotator": "weighted_alpaca_eval_gpt4_turbo", "preference": preference}


def test_from_alpaca_eval_gives_the_soft_win_rate(capsys, tmp_path: Path):
    # generator_1 the baseline gpt4, generator_2 the model (AlpacaEval's layout); preference 1 + P(output_2 better):
    # m: 1.9, 1.2, 1.5, 1.0 -> p 0.9, 0.2, 0.5, 0.0 -> win_rate 1.6 / 4 = 0.4, discrete (1 + 0.5) / 4 = 0.375;
    # n: 2.0, 1.7 -> 1.0, 0.7 -> 0.85; one record of gpt4 against n with the outputs the other way round:
    # generator_1 n, preference 1.25 -> p_b 0.25 for gpt4 -> p 0.75 for n -> n: (1 + 0.7 + 0.75) / 3
    records = [annotation("a", 1.9, "gpt4", "m"), annotation("b", 1.2, "gpt4", "m"), annotation("c", 1.5, "gpt4", "m"),
               annotation("d", 1.0, "gpt4", "m"), annotation("a", 2.0, "gpt4", "n"), annotation("b", 1.7, "gpt4", "n"),
               annotation("c", 1.25, "n", "gpt4")]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(records))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        status, out, err = run_command(capsys, "arena", "winrate", path, "--from", "alpaca_eval", "--baseline", "gpt4")
    assert status == 0, err
    assert "win rates from the soft preferences p_b" in err
    got = tsv(out).set_index("model")
    assert list(got.index) == ["n", "m"]
    assert got.loc["m", "win_rate"] == pytest.approx(0.4) and got.loc["m", "discrete_win_rate"] == pytest.approx(0.375)
    assert got.loc["n", "win_rate"] == pytest.approx((1 + 0.7 + 0.75) / 3) and got.loc["n", "n"] == 3


def test_on_a_terminal_win_rate_is_rounded_with_its_interval():
    from manyjudges.cli.terminal import _terminal_table

    table = baseline_win_rates(HAND, "b")  # m: 0.625 in (0.155869, 1), width 0.84: 2 decimals, x: no interval
    lines = _terminal_table(table).splitlines()
    assert lines[0].split() == COLUMNS
    assert lines[2].split()[:5] == ["m", "0.62", "0.239", "0.16", "1.00"]


def test_the_command_with_human_verdicts(capsys, tmp_path):
    from manyjudges.arena.human.win_rates import verdicts_win_rates

    llm = random_table(10)
    human = llm[llm["prompt"].isin(sorted(set(llm["prompt"]))[:12])].assign(judge="h")
    human = human.assign(winner=np.where(np.arange(len(human)) % 3 == 0, "model_b", human["winner"]))
    llm_path, human_path, summary = tmp_path / "llm.tsv", tmp_path / "human.tsv", tmp_path / "summary.tsv"
    llm.to_csv(llm_path, sep="\t", index=False)
    human.to_csv(human_path, sep="\t", index=False)
    status, out, err = run_command(capsys, "arena", "winrate", llm_path, "--baseline", "b", "--human", human_path,
                                   "--human-summary", summary)
    assert status == 0, err
    expected = verdicts_win_rates(llm, human, "b")
    got = tsv(out)
    assert list(got.columns) == list(expected.columns) and list(got["model"]) == list(expected["model"])
    np.testing.assert_allclose(got["win_rate"], expected["win_rate"], atol=1e-12)
    assert list(tsv(summary.read_text()).columns) == ["model", "lambda", "n_human", "n_llm_units", "worth"]
    assert "human calibration:" in err and "worth" in err
    status, _, err = run_command(capsys, "arena", "winrate", llm_path, "--baseline", "b", "--human-lambda", "0.5")
    assert status == 2 and "--human-lambda needs --human" in err
    status, _, err = run_command(capsys, "arena", "winrate", llm_path, "--baseline", "b", "--human", human_path,
                                 "--bootstrap", "10")
    assert status == 2 and "takes neither --control nor --bootstrap" in err
    human.assign(model_a=human["model_a"].replace("b", "c"), model_b=human["model_b"].replace("b", "c")).to_csv(
        human_path, sep="\t", index=False)  # the baseline is not among the human verdicts' models
    status, _, err = run_command(capsys, "arena", "winrate", llm_path, "--baseline", "b", "--human", human_path)
    assert status == 1 and err.splitlines()[-1].startswith(f"manyjudges: error: {human_path}") and "'b'" in err
    stray = human.assign(prompt="never judged")
    stray.to_csv(human_path, sep="\t", index=False)
    status, _, err = run_command(capsys, "arena", "winrate", llm_path, "--baseline", "b", "--human", human_path)
    assert status == 1 and str(human_path) in err and "no LLM verdict" in err
