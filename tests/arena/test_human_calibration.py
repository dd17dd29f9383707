"""The human-calibrated leaderboard and win rates (arena.human_calibration) against hand implementations."""
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit

from manyjudges.arena.human.leaderboard import (
    HumanCalibratedLeaderboard,
    _fit_calibrated_scores,
    _model_sides,
    calibration_units,
    lambda_cap,
)
from manyjudges.arena.human.win_rates import calibrated_win_rates, verdicts_win_rates
from manyjudges.arena.leaderboard.estimator import Leaderboard

COLUMNS = ["prompt", "judge", "model_a", "model_b", "winner"]


def simulated(seed, n_prompts=150, n_human=50, agree=0.85, favoured=None, m=5):
    """LLM verdicts (two judges, both orders) and human verdicts (the first n_human prompts) on one pair per prompt.

    The humans follow Bradley-Terry with strengths linspace(-1, 1); the LLM repeats the human outcome with
    probability ``agree``, and ``favoured`` (a model name) wins 80% of the LLM's verdicts it is in.
    """
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.0, 1.0, m)
    models = [f"m{k}" for k in range(m)]
    llm, human = [], []
    for p in range(n_prompts):
        i, j = rng.choice(m, 2, replace=False)
        u = rng.random()
        truth = "i" if u < expit(strength[i] - strength[j]) - 0.05 else ("tie" if u < expit(
            strength[i] - strength[j]) + 0.05 else "j")
        for judge in ("g1", "g2"):
            said = truth if rng.random() < agree else rng.choice(["i", "j", "tie"])
            if favoured is not None and favoured in (models[i], models[j]) and rng.random() < 0.8:
                said = "i" if models[i] == favoured else "j"
            for a, b in ((i, j), (j, i)):
                winner = "tie" if said == "tie" else ("model_a" if (said == "i") == (a == i) else "model_b")
                llm.append((f"p{p}", judge, models[a], models[b], winner))
        if p < n_human:
            winner = "tie" if truth == "tie" else ("model_a" if truth == "i" else "model_b")
            human.append((f"p{p}", "h", models[i], models[j], winner))
    return pd.DataFrame(llm, columns=COLUMNS), pd.DataFrame(human, columns=COLUMNS)


def hand_units(frame):
    """{(prompt, lo, hi): mean share won by lo} by a loop, lo before hi by name (m0 < m1 < ...)."""
    sums = {}
    for prompt, _, a, b, winner in frame[COLUMNS].itertuples(index=False):
        lo, hi = min(a, b), max(a, b)
        first = 0.5 if winner == "tie" else float(winner == "model_a")
        won = first if a == lo else 1.0 - first
        total, count = sums.get((prompt, lo, hi), (0.0, 0))
        sums[(prompt, lo, hi)] = (total + won, count + 1)
    return {key: total / count for key, (total, count) in sums.items()}


def hand_objective(llm, human, lam, reg, models):
    """The PPI++ objective written out.

    (1/n) sum loss(h) + lambda [(1/N) sum loss(l_unlabelled) - (1/n) sum loss(l)] + reg ||theta||^2 / (2 (n + N)).
    """
    l_units, h_units = hand_units(llm), hand_units(human)
    code = {name: k for k, name in enumerate(models)}
    labelled = [(code[lo], code[hi], h_units[key], l_units[key]) for key in sorted(h_units) for _, lo, hi in [key]]
    others = [(code[lo], code[hi], l_units[key]) for key in sorted(l_units) if key not in h_units
              for _, lo, hi in [key]]
    n, big_n = len(labelled), len(others)

    def loss(theta, lo, hi, y):
        d = theta[lo] - theta[hi]
        return -(y * np.log(expit(d)) + (1 - y) * np.log(expit(-d)))

    def objective(theta):
        value = sum(loss(theta, lo, hi, h) - lam * loss(theta, lo, hi, f) for lo, hi, h, f in labelled) / n
        value += lam * sum(loss(theta, lo, hi, f) for lo, hi, f in others) / big_n
        return value + reg / (n + big_n) * theta @ theta / 2

    return objective


def hand_fit(llm, human, lam, reg):
    """Minimise the written-out objective over centred scores theta = (z, -sum z) with scipy's BFGS."""
    models = sorted(set(llm["model_a"]) | set(llm["model_b"]))
    objective = hand_objective(llm, human, lam, reg, models)
    full = lambda z: np.append(z, -z.sum())  # noqa: E731
    found = minimize(lambda z: objective(full(z)), np.zeros(len(models) - 1), method="BFGS",
                     options={"gtol": 1e-10})
    return full(found.x)


@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_scores_solve_the_written_out_estimating_problem(lam):
    llm, human = simulated(0)
    got = _fit_calibrated_scores(calibration_units(llm, human), lam=lam, reg=0.01)
    assert got.lam == lam
    np.testing.assert_allclose(got.scores, hand_fit(llm, human, lam, 0.01), atol=2e-5)


def test_lambda_zero_is_the_humans_alone_bradley_terry():
    llm, human = simulated(1)
    got = _fit_calibrated_scores(calibration_units(llm, human), lam=0.0, reg=0.0)
    alone = Leaderboard(params={"reg": 0.0}).fit(human).scores_
    np.testing.assert_allclose(got.scores, alone.reindex(sorted(alone.index)).to_numpy(), atol=1e-7)


def test_power_tuned_lambda_minimises_the_trace_at_the_plain_ppi_fit():
    """lambda* against scipy minimising tr H^-1 [(V_h - lambda (C + C^T) + lambda^2 V)/n + lambda^2 V/N] H^-1,
    every moment by a loop at the lambda = 1 scores, H pooled over all units and inverted by pinv (reg 0)."""
    llm, human = simulated(2, agree=0.75)
    units = calibration_units(llm, human)
    models = list(units.models)
    theta = hand_fit(llm, human, 1.0, 0.0)
    l_units, h_units = hand_units(llm), hand_units(human)
    m = len(models)

    def grad(key, y):
        x = np.zeros(m)
        x[models.index(key[1])], x[models.index(key[2])] = 1.0, -1.0
        return (expit(x @ theta) - y) * x, x

    hess = sum(expit(x @ theta) * (1 - expit(x @ theta)) * np.outer(x, x)
               for x in (grad(k, 0)[1] for k in l_units)) / len(l_units)
    hinv = np.linalg.pinv(hess)
    gh = np.array([grad(k, h_units[k])[0] for k in sorted(h_units)])
    gl = np.array([grad(k, l_units[k])[0] for k in sorted(h_units)])
    gu = np.array([grad(k, l_units[k])[0] for k in sorted(l_units) if k not in h_units])
    n, big_n = len(gh), len(gu)
    vh, v = np.cov(gh.T), np.cov(np.vstack([gl, gu]).T)
    c = (gh - gh.mean(0)).T @ (gl - gl.mean(0)) / (n - 1)

    def trace(lam):
        return np.trace(hinv @ ((vh - lam * (c + c.T) + lam ** 2 * v) / n + lam ** 2 * v / big_n) @ hinv)

    best = minimize_scalar(trace, bounds=(0, 1), method="bounded", options={"xatol": 1e-10})
    got = _fit_calibrated_scores(units, reg=0.0)
    assert 0 < got.lam < 1
    assert got.lam == pytest.approx(best.x, abs=1e-5)


def test_sandwich_covariance_by_a_loop():
    llm, human = simulated(3)
    units = calibration_units(llm, human)
    got = _fit_calibrated_scores(units, lam=0.6, reg=0.0)
    theta, models, m = got.scores, list(units.models), len(units.models)
    l_units, h_units = hand_units(llm), hand_units(human)

    def x_of(key):
        x = np.zeros(m)
        x[models.index(key[1])], x[models.index(key[2])] = 1.0, -1.0
        return x

    hinv = np.linalg.pinv(sum(expit(x_of(k) @ theta) * (1 - expit(x_of(k) @ theta)) * np.outer(x_of(k), x_of(k))
                              for k in l_units) / len(l_units))
    delta = np.array([(expit(x_of(k) @ theta) - h_units[k]) * x_of(k)
                      - 0.6 * (expit(x_of(k) @ theta) - l_units[k]) * x_of(k) for k in sorted(h_units)])
    gu = np.array([(expit(x_of(k) @ theta) - l_units[k]) * x_of(k) for k in l_units if k not in h_units])
    expected = hinv @ (np.cov(delta.T) / len(delta) + 0.36 * np.cov(gu.T) / len(gu)) @ hinv
    np.testing.assert_allclose(got.covariance, expected, atol=1e-10)
    assert got.worth == pytest.approx(got.n * np.trace(got.covariance_alone) / np.trace(got.covariance))


def test_the_rectifier_moves_a_favoured_model_back_towards_the_humans():
    """The LLM mostly picks m0 (the humans' weakest): its LLM-only score is far above the humans'; plain PPI
    (lambda = 1) subtracts the labelled units' bias, so m0 comes back below the LLM-only score."""
    llm, human = simulated(4, n_prompts=300, n_human=100, favoured="m0")
    units = calibration_units(llm, human)
    ppi = _fit_calibrated_scores(units, lam=1.0).scores
    alone = _fit_calibrated_scores(units, lam=0.0).scores
    llm_only = Leaderboard().fit(llm).scores_.to_numpy()
    assert llm_only[0] > alone[0] + 1.0
    assert ppi[0] < llm_only[0] - 1.0
    assert abs(ppi[0] - alone[0]) < abs(llm_only[0] - alone[0]) / 2
    tuned = _fit_calibrated_scores(units)
    assert tuned.scores[0] < llm_only[0] - 1.0


@pytest.mark.parametrize("intervals", ["sandwich", "bootstrap"])
def test_same_numbers_in_any_row_order(intervals):
    llm, human = simulated(5)
    board = HumanCalibratedLeaderboard(intervals=intervals, n_bootstrap=50).fit(llm, human)
    shuffled = HumanCalibratedLeaderboard(intervals=intervals, n_bootstrap=50).fit(
        llm.sample(frac=1, random_state=1), human.sample(frac=1, random_state=2))
    pd.testing.assert_frame_equal(board.table_, shuffled.table_, atol=1e-6)
    pd.testing.assert_frame_equal(board.summary_, shuffled.summary_, atol=1e-6)


def test_the_table_and_its_intervals():
    llm, human = simulated(6)
    board = HumanCalibratedLeaderboard(n_bootstrap=200, baseline="m2").fit(llm, human)
    table = board.table_.set_index("model")
    fit = board.fit_
    se = np.sqrt(np.diag(fit.covariance))
    np.testing.assert_allclose(table.loc[list(calibration_units(llm, human).models), "ci_high"].to_numpy(),
                               fit.scores + 1.959963984540054 * se, atol=1e-9)
    assert table.loc["m2", "win_rate"] == pytest.approx(0.5)
    assert (table["rank_low"] <= table["rank"]).all() and (table["rank"] <= table["rank_high"]).all()
    assert table["human_verdicts"].sum() == 2 * len(human)
    summary = board.summary_.iloc[0]
    assert summary["n_human"] == len(human) and summary["n_llm_units"] == 150
    assert summary["worth"] > summary["n_human"]


def test_human_units_missing_from_the_llm_verdicts_are_named():
    llm, human = simulated(7)
    human = pd.concat([human, pd.DataFrame([("p999", "h", "m0", "m1", "model_a"),
                                            ("p998", "h", "m3", "m2", "tie")], columns=COLUMNS)])
    expected = r"2 human units .* no LLM verdict: prompt p998, m2 vs m3; prompt p999, m0 vs m1"
    with pytest.raises(ValueError, match=expected):
        HumanCalibratedLeaderboard().fit(llm, human)


def preferences(seed, models=("a", "b", "c"), n_prompts=200, n_human=40, bias=0.15):
    """prompt, judge, model, p frames: the humans' p ~ Bernoulli(rate), the LLM's p = clip(truth + bias + noise)."""
    rng = np.random.default_rng(seed)
    llm, human = [], []
    for k, model in enumerate(models):
        rate = 0.3 + 0.2 * k
        for p in range(n_prompts):
            truth = float(rng.random() < rate)
            for judge in ("g1", "g2"):
                said = np.clip(0.7 * truth + 0.15 + bias + rng.normal(0, 0.1), 0, 1)
                llm.append((f"p{p}", judge, model, float(said)))
            if p < n_human:
                human.append((f"p{p}", "h", model, truth))
    columns = ["prompt", "judge", "model", "p"]
    return pd.DataFrame(llm, columns=columns), pd.DataFrame(human, columns=columns)


def test_win_rates_are_ppi_means_per_model():
    from manyjudges.core.prediction_powered import ppi_mean

    llm, human = preferences(8)
    got = calibrated_win_rates(llm, human).set_index("model")
    for model in ("a", "b", "c"):
        prediction = llm[llm["model"] == model].groupby("prompt")["p"].mean()
        label = human[human["model"] == model].set_index("prompt")["p"]
        labelled = prediction.index.isin(label.index)
        expected = ppi_mean(label.reindex(prediction.index[labelled]).to_numpy(), prediction[labelled].to_numpy(),
                            prediction[~labelled].to_numpy())
        assert got.loc[model, "win_rate"] == pytest.approx(expected.estimate)
        assert got.loc[model, "lambda"] == pytest.approx(expected.lam)
        assert got.loc[model, "ci_high"] - got.loc[model, "win_rate"] == pytest.approx(
            1.959963984540054 * np.sqrt(expected.variance))
        assert got.loc[model, "human_win_rate"] == pytest.approx(label.mean())
        # the LLM overstates every model; the rectifier brings the estimate below its raw mean
        assert got.loc[model, "win_rate"] < got.loc[model, "llm_win_rate"]
    assert (got["worth"] > got["n_human"]).all()
    shuffled = calibrated_win_rates(llm.sample(frac=1, random_state=3), human.sample(frac=1, random_state=4))
    pd.testing.assert_frame_equal(got.reset_index(), shuffled, atol=1e-9)


def test_win_rates_bad_input():
    llm, human = preferences(9)
    with pytest.raises(ValueError, match="no LLM verdict: prompt zz, a"):
        calibrated_win_rates(llm, pd.concat([human, pd.DataFrame([("zz", "h", "a", 1.0)], columns=human.columns)]))
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\]: row 0 has 2.0"):
        calibrated_win_rates(llm, human.assign(p=2.0))
    with pytest.warns(UserWarning, match="1 models have fewer than 2 units"):
        got = calibrated_win_rates(llm, human[(human["model"] != "c") | (human["prompt"] == "p0")])
    assert np.isnan(got.set_index("model").loc["c", "win_rate"])


def sparse_flattery(seed):
    """A sparse arena where the LLM flatters m0 on the few units humans judged: there, the humans mostly say m0
    lost and the LLM says it won; on m0's other units the LLM mostly says it lost."""
    llm, human = simulated(seed, n_prompts=200, n_human=40)
    involved = (llm["model_a"] == "m0") | (llm["model_b"] == "m0")
    labelled = llm["prompt"].isin(set(human["prompt"]))
    m0_first = llm["model_a"] == "m0"
    llm.loc[involved & labelled, "winner"] = np.where(m0_first[involved & labelled], "model_a", "model_b")
    llm.loc[involved & ~labelled, "winner"] = np.where(m0_first[involved & ~labelled], "model_b", "model_a")
    h_involved = (human["model_a"] == "m0") | (human["model_b"] == "m0")
    first = human["model_a"] == "m0"
    keep = np.random.default_rng(seed).random(len(human)) < 0.8  # 80% of m0's human verdicts say it lost
    human.loc[h_involved & keep, "winner"] = np.where(first[h_involved & keep], "model_b", "model_a")
    return llm, human


def test_the_lambda_cap_keeps_half_of_every_models_rectified_wins_and_losses():
    """The cap against a loop: each model's wins and losses in the written-out objective's terms on a grid of
    lambda; below the cap every side keeps half its lambda = 0 value, just above it one side does not."""
    llm, human = sparse_flattery(20)
    units = calibration_units(llm, human)
    cap = lambda_cap(units)
    assert 0 < cap < 1
    l_units, h_units = hand_units(llm), hand_units(human)
    n, big_n = len(h_units), len(l_units) - len(h_units)

    def sides(lam):
        out = {}
        for key, f in l_units.items():
            _, lo, hi = key
            won = (h_units[key] - lam * f) / n if key in h_units else lam * f / big_n
            played = (1 - lam) / n if key in h_units else lam / big_n
            for model, w in ((lo, won), (hi, played - won)):
                out[(model, "wins")] = out.get((model, "wins"), 0.0) + w
            for model, w in ((lo, played - won), (hi, won)):
                out[(model, "losses")] = out.get((model, "losses"), 0.0) + w
        return out

    zero = sides(0.0)
    assert all(v >= zero[k] / 2 - 1e-12 for k, v in sides(cap).items())
    assert any(v < zero[k] / 2 for k, v in sides(cap + 1e-3).items())
    tuned = _fit_calibrated_scores(units)
    assert tuned.cap == cap and 0 <= tuned.lam <= cap
    assert np.abs(tuned.scores).max() < 10
    with pytest.warns(UserWarning, match="held only by the ridge"):
        _fit_calibrated_scores(units, lam=1.0)


def test_models_without_a_human_verdict_are_warned_of():
    llm, human = simulated(21)
    human = human[(human["model_a"] != "m4") & (human["model_b"] != "m4")]
    with pytest.warns(UserWarning, match=r"1 models have no human verdict \(m4\)"):
        HumanCalibratedLeaderboard(n_bootstrap=0).fit(llm, human)


def test_llmfao_gpt4_calibrated_on_a_few_crowd_units(mirror):
    """llmfao's GPT-4 verdicts on the crowd's 2,139 units as the LLM, the crowd's verdicts on 300 of them as the
    humans: plain PPI (lambda = 1) runs a model's score off (held only by the ridge), the capped tuned lambda
    keeps every score finite."""
    folder, = (mirror / "dustalov" / "llmfao").glob("*")
    outcome = {"left": "model_a", "right": "model_b", "tie": "tie"}

    def read(name, judge):
        table = pd.read_csv(folder / name)
        return pd.DataFrame({"prompt": table["prompt"].astype(str), "judge": table[judge].astype(str),
                             "model_a": table["left"], "model_b": table["right"],
                             "winner": table["winner"].map(outcome)})

    def keys(frame):
        pair = frame[["model_a", "model_b"]]
        return frame["prompt"] + "|" + pair.min(axis=1) + "|" + pair.max(axis=1)

    gpt4 = read("gpt4-comparisons.csv", "prompt").assign(judge="gpt4")
    crowd = read("crowd-comparisons.csv", "worker")
    gpt4 = gpt4[keys(gpt4).isin(set(keys(crowd)))]
    chosen = np.random.default_rng(3).choice(np.sort(keys(crowd).unique()), 300, replace=False)
    units = calibration_units(gpt4, crowd[keys(crowd).isin(set(chosen))])
    assert len(units.llm) == 2139 and units.labelled.sum() == 300
    tuned = _fit_calibrated_scores(units)
    assert 0 < tuned.cap < 1 and 0 <= tuned.lam <= tuned.cap
    assert np.abs(tuned.scores).max() < 10
    with pytest.warns(UserWarning, match="held only by the ridge"):
        plain = _fit_calibrated_scores(units, lam=1.0)
    assert np.abs(plain.scores).max() > 50


def test_win_rates_from_verdicts_tables_against_a_baseline():
    """LLM verdicts carrying p_b and human verdicts with winners, against baseline b: at lambda = 0 the humans'
    mean preference per model (a loop), and the calibrated estimate between it and the LLM's."""
    rng = np.random.default_rng(30)
    llm, human = [], []
    for model, rate in (("x", 0.7), ("y", 0.4)):
        for p in range(120):
            truth = rng.random() < rate
            first = rng.random() < 0.5  # the model's answer shown first
            p_model = float(np.clip(0.2 + 0.6 * truth + 0.1 + rng.normal(0, 0.05), 0, 1))
            a, b = (model, "b") if first else ("b", model)
            llm.append((f"q{p}", "g", a, b, "model_a" if (p_model > 0.5) == first else "model_b",
                        1 - p_model if first else p_model))
            if p < 30:
                human.append((f"q{p}", "h", a, b, "model_a" if truth == first else "model_b"))
    llm = pd.DataFrame(llm, columns=[*COLUMNS, "p_b"])
    human = pd.DataFrame(human, columns=COLUMNS)
    alone = verdicts_win_rates(llm, human, "b", lam=0.0).set_index("model")
    for model in ("x", "y"):
        mine = human[(human["model_a"] == model) | (human["model_b"] == model)]
        won = [float((w == "model_a") == (a == model)) for a, w in zip(mine["model_a"], mine["winner"])]
        assert alone.loc[model, "win_rate"] == pytest.approx(sum(won) / len(won))
    tuned = verdicts_win_rates(llm, human, "b").set_index("model")
    assert (tuned["lambda"] > 0).all() and (tuned["worth"] > tuned["n_human"]).all()
    assert (tuned["win_rate"] < tuned["llm_win_rate"]).all()  # the LLM's +0.1 taken back


def test_a_model_the_humans_saw_only_lose_does_not_cap_lambda_at_zero():
    """Its humans-alone wins are 0 (no minimum at any lambda: the ridge holds it), so its wins set no cap,
    even where the LLM's flattery on the labelled units makes them fall; 0 / (...) made the cap 0 before,
    and the calibration silently the humans alone."""
    llm, human = sparse_flattery(20)
    involved = (human["model_a"] == "m0") | (human["model_b"] == "m0")
    human.loc[involved, "winner"] = np.where(human.loc[involved, "model_a"] == "m0", "model_b", "model_a")
    units = calibration_units(llm, human)
    zero, one = (np.concatenate(_model_sides(units, lam)) for lam in (0.0, 1.0))
    assert ((zero == 0) & (one < 0)).any()  # the case: a side at 0 without the LLM that falls with lambda
    others = (one < zero) & (zero > 0)
    assert lambda_cap(units) == pytest.approx(min(1.0, (zero[others] / (2 * (zero[others] - one[others]))).min()))
    assert lambda_cap(units) > 0
