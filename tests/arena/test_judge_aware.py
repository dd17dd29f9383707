"""The judge-aware leaderboard and per-unit verdicts: likelihoods against direct loops and scipy, Crowd-BT at
gamma = 0, recovery of simulated position effects and reliabilities, copied judges down-weighted, Kish's
weights by hand, row order, bad parameters."""
import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import approx_fprime, minimize

from manyjudges.arena import Leaderboard
from manyjudges.arena.judges.clusters import _auto_clusters, _cluster_weights, judge_weights
from manyjudges.arena.judges.judge_aware_verdicts import (
    JudgeAwareVerdicts,
    _unit_objective,
    _unit_rows,
    unit_posteriors,
)
from manyjudges.arena.leaderboard.cells import _cell_table
from manyjudges.arena.leaderboard.judge_aware import JudgeAware, _judgments_of_cells
from manyjudges.arena.simulate_judges import SimulatedJudge, simulate_judge_panel
from manyjudges.arena.verdict_codes import code_verdicts
from manyjudges.core.pairwise.judge_aware import (
    _judge_aware_curvature,
    _judge_aware_objective,
    fit_judge_aware,
    refit_judge_aware,
)

STRENGTHS = {"m1": 1.0, "m2": 0.4, "m3": 0.0, "m4": -0.5, "m5": -0.9}


def sigma(x):
    return 1.0 / (1.0 + math.exp(-x))


def verdict_level_panel(seed, etas, gammas, n_prompts=200, strengths=STRENGTHS, tie_rate=0.0):
    """The leaderboard's own model: each verdict an independent BT contest with the first answer raised by
    gamma_j, reported with probability eta_j, else reversed; every pair of every prompt in both orders."""
    rng = np.random.default_rng(seed)
    models = sorted(strengths)
    rows = []
    for p in range(n_prompts):
        for i in range(len(models)):
            for k in range(i + 1, len(models)):
                for f, g in ((models[i], models[k]), (models[k], models[i])):
                    for j, (eta, gamma) in enumerate(zip(etas, gammas)):
                        first = rng.random() < sigma(strengths[f] - strengths[g] + gamma)
                        if rng.random() > eta:
                            first = not first
                        winner = "tie" if rng.random() < tie_rate else ("model_a" if first else "model_b")
                        rows.append((f"p{p}", f"j{j}", f, g, winner))
    return pd.DataFrame(rows, columns=["prompt", "judge", "model_a", "model_b", "winner"])


def direct_negloglik(verdicts, models, judges, s, eta, gamma, virtual_weight=1.0, gamma_reg=0.0):
    """The penalised negative log-likelihood written out verdict by verdict (ties half each way)."""
    total = 0.0
    for row in verdicts.itertuples():
        j = judges.index(row.judge)
        d = s[models.index(row.model_a)] - s[models.index(row.model_b)] + gamma[j]
        p_first = eta[j] * sigma(d) + (1 - eta[j]) * sigma(-d)
        if row.winner == "model_a":
            total -= math.log(p_first)
        elif row.winner == "model_b":
            total -= math.log(1 - p_first)
        else:
            total -= 0.5 * math.log(p_first) + 0.5 * math.log(1 - p_first)
    for x in s:
        total += virtual_weight * (math.log1p(math.exp(-x)) + math.log1p(math.exp(x)))
    return total + 0.5 * gamma_reg * float(np.dot(gamma, gamma))


def test_leaderboard_fit_is_the_scipy_maximum_of_the_written_out_likelihood():
    verdicts = verdict_level_panel(0, [0.9, 0.75], [0.8, -0.4], n_prompts=6, tie_rate=0.1)
    models, judges = sorted(STRENGTHS), ["j0", "j1"]
    n, m = len(models), len(judges)
    fit = Leaderboard("judge_aware", {"gamma_reg": 0.5, "tol": 1e-9, "clusters": None}).fit(verdicts).fit_
    ours = np.concatenate([fit.scores, fit.extra])

    def f(x):
        return direct_negloglik(verdicts, models, judges, x[:n], x[n:n + m], x[n + m:], gamma_reg=0.5)

    start = np.concatenate([np.zeros(n), np.full(m, 0.9), np.zeros(m)])
    bounds = [(None, None)] * n + [(0.01, 0.99)] * m + [(None, None)] * m
    res = minimize(f, start, method="L-BFGS-B", bounds=bounds, options={"ftol": 1e-14, "gtol": 1e-9})
    assert f(ours) <= res.fun + 1e-7
    np.testing.assert_allclose(ours, res.x, atol=2e-3)


def test_objective_and_gradient_against_the_direct_loop():
    from manyjudges.arena.leaderboard.cells import _cell_table
    from manyjudges.arena.leaderboard.judge_aware import _judgments_of_cells
    from manyjudges.arena.verdict_codes import code_verdicts
    from manyjudges.core.pairwise.judge_aware import _judge_aware_objective

    verdicts = verdict_level_panel(1, [0.85, 0.7, 0.95], [1.0, 0.0, -0.5], n_prompts=3, tie_rate=0.15)
    data = code_verdicts(verdicts)
    cells, row = _cell_table(data, by_judge=True, by_order=True)
    counts = np.bincount(row, minlength=cells.n_cells).astype(float)
    args = _judgments_of_cells(cells, counts, "half")
    n, m = data.n_models, len(data.judges)
    x = np.concatenate([np.random.default_rng(2).normal(size=n), [0.8, 0.6, 0.9], [0.3, -0.7, 1.1]])

    def f(v):
        return _judge_aware_objective(v, *args, n, m, 1.0, 0.0, 0.2, (1.0, 1.0))

    direct = direct_negloglik(verdicts, list(data.models), list(data.judges), x[:n], x[n:n + m], x[n + m:],
                              gamma_reg=0.2)
    assert f(x)[0] == pytest.approx(direct, rel=1e-12)
    np.testing.assert_allclose(f(x)[1], approx_fprime(x, lambda v: f(v)[0], 1e-7), rtol=1e-5, atol=1e-5)


def test_position_false_is_the_existing_crowd_bt():
    verdicts = verdict_level_panel(3, [0.9, 0.7, 0.8], [0.0, 0.0, 0.0], n_prompts=20, tie_rate=0.1)
    ours = Leaderboard("judge_aware", {"position": False, "clusters": None}).fit(verdicts)
    crowd_bt = Leaderboard("crowd_bt").fit(verdicts)
    np.testing.assert_allclose(ours.scores_.to_numpy(), crowd_bt.scores_.to_numpy(), atol=1e-6)
    np.testing.assert_allclose(ours.fit_.extra[:3], crowd_bt.fit_.extra, atol=1e-6)
    np.testing.assert_array_equal(ours.fit_.extra[3:], 0.0)


def test_recovers_known_position_effects_and_reliabilities():
    etas, gammas = [0.95, 0.85, 0.75], [1.0, -0.6, 0.0]
    verdicts = verdict_level_panel(4, etas, gammas, n_prompts=300)
    fit = Leaderboard("judge_aware", {"gamma_reg": 0.0, "clusters": None}).fit(verdicts).fit_
    np.testing.assert_allclose(fit.extra[:3], etas, atol=0.05)
    np.testing.assert_allclose(fit.extra[3:], gammas, atol=0.2)
    truth = np.array([STRENGTHS[k] for k in sorted(STRENGTHS)])
    np.testing.assert_allclose(fit.scores, truth - truth.mean(), atol=0.15)


def test_unit_model_recovers_known_position_effects_and_reliabilities():
    judges = [SimulatedJudge("a", 0.9, 1.2), SimulatedJudge("b", 0.8, -0.8), SimulatedJudge("c", 0.7, 0.0)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=150, seed=5)
    fitted = JudgeAwareVerdicts(reg=0.01, clusters=None).fit(verdicts).judges_
    np.testing.assert_allclose(fitted["skill"], [0.9, 0.8, 0.7], atol=0.04)
    np.testing.assert_allclose(fitted["position_bias"], [1.2, -0.8, 0.0], atol=0.2)


def unit_groups(verdicts):
    """{(prompt, model_1, model_2): [(judge, model_a, winner), ...]} of a verdicts table."""
    groups = {}
    for row in verdicts.itertuples():
        lo, hi = sorted((row.model_a, row.model_b))
        groups.setdefault((row.prompt, lo, hi), []).append((row.judge, row.model_a, row.winner))
    return groups


def brute_force_units(groups, models, judges, s, a, gamma, weight):
    """Per unit, (log marginal, posterior of model_1) by summing over z in {model_1, model_2} verdict by verdict."""
    out = {}
    for (prompt, lo, hi), group in groups.items():
        logp = {}
        for z in (lo, hi):
            d = s[models.index(lo)] - s[models.index(hi)]
            total = math.log(sigma(d) if z == lo else sigma(-d))
            for judge, first, winner in group:
                j = judges.index(judge)
                p_first = sigma((a[j] if z == first else -a[j]) + gamma[j])  # P(naming the first answer)
                c = weight[j]
                if winner == "model_a":
                    total += c * math.log(p_first)
                elif winner == "model_b":
                    total += c * math.log(1 - p_first)
                else:
                    total += c * 0.5 * (math.log(p_first) + math.log(1 - p_first))
            logp[z] = total
        marginal = np.logaddexp(logp[lo], logp[hi])
        out[(prompt, lo, hi)] = (marginal, math.exp(logp[lo] - marginal))
    return out


def test_unit_likelihood_and_posteriors_against_brute_force():
    judges = [SimulatedJudge("a", 0.9, 0.7), SimulatedJudge("b", 0.7, -0.5), SimulatedJudge("c", 0.8)]
    verdicts, _ = simulate_judge_panel({"x": 0.5, "y": 0.0, "z": -0.3}, judges, n_prompts=3, seed=6, tie_rate=0.2)
    rows = _unit_rows(verdicts)
    rng = np.random.default_rng(7)
    s, a, gamma, weight = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3), np.array([1.0, 0.5, 0.8])
    brute = brute_force_units(unit_groups(verdicts), list(rows.models), list(rows.judges), s, a, gamma, weight)
    x = np.concatenate([s, a, gamma])
    value, grad = _unit_objective(x, rows, weight, True, 0.0)
    assert value == pytest.approx(-sum(v[0] for v in brute.values()), rel=1e-12)
    np.testing.assert_allclose(grad, approx_fprime(x, lambda v: _unit_objective(v, rows, weight, True, 0.0)[0], 1e-7),
                               rtol=1e-5, atol=1e-5)
    posterior = unit_posteriors(rows, 1 / (1 + np.exp(-a)), gamma, s, weight)
    keys = list(zip(rows.units.prompt, rows.units.model_1, rows.units.model_2))
    np.testing.assert_allclose(posterior, [brute[k][1] for k in keys], rtol=1e-10)


def test_unit_fit_is_the_scipy_maximum_of_the_brute_force_likelihood():
    judges = [SimulatedJudge("a", 0.9, 0.7), SimulatedJudge("b", 0.7, -0.5)]
    verdicts, _ = simulate_judge_panel({"x": 0.5, "y": 0.0, "z": -0.3}, judges, n_prompts=8, seed=8, tie_rate=0.1)
    reg = 0.1
    models, names, groups = ["x", "y", "z"], ["a", "b"], unit_groups(verdicts)

    def f(x):
        brute = brute_force_units(groups, models, names, x[:3], x[3:5], x[5:], [1.0, 1.0])
        return -sum(v[0] for v in brute.values()) + 0.5 * reg * float(x @ x)

    start = np.concatenate([np.zeros(3), np.full(2, math.log(4.0)), np.zeros(2)])
    res = minimize(f, start, method="BFGS", options={"gtol": 1e-8})
    fitted = JudgeAwareVerdicts(reg=reg, tol=1e-9, clusters=None).fit(verdicts)
    ours = np.concatenate([fitted.scores_.to_numpy(), np.log(fitted.judges_.skill / (1 - fitted.judges_.skill)),
                           fitted.judges_.position_bias])
    np.testing.assert_allclose(ours[3:], res.x[3:], atol=1e-3)
    np.testing.assert_allclose(ours[:3], res.x[:3] - res.x[:3].mean(), atol=1e-3)


def test_kish_weights_by_hand():
    pairs = pd.DataFrame({"judge_a": ["a", "a", "b", "c"], "judge_b": ["b", "c", "c", "d"],
                          "error_correlation": [0.6, 0.2, 0.4, 0.9]})
    raw = "error_correlation"
    table = _cluster_weights(np.array(["a", "b", "c", "d"]), {"a": "g", "b": "g", "c": "g"}, pairs)
    rho = (0.6 + 0.2 + 0.4) / 3  # the cluster's three pairs; c-d crosses clusters
    np.testing.assert_allclose(table["weight"], [1 / (1 + 2 * rho)] * 3 + [1.0])
    assert list(table["cluster"]) == ["g", "g", "g", "d"]
    assert _auto_clusters(np.array(["a", "b", "c", "d"]), pairs, 0.5, column=raw) == {"a": "a", "b": "a", "c": "c",
                                                                                     "d": "c"}
    negative = pairs.assign(error_correlation=-0.3)
    assert list(_cluster_weights(np.array(["a", "b"]), {"a": "g", "b": "g"}, negative)["weight"]) == [1.0, 1.0]


def with_copy(verdicts, judge, copy):
    extra = verdicts[verdicts.judge == judge].assign(judge=copy)
    return pd.concat([verdicts, extra], ignore_index=True)


def test_two_identical_copies_count_as_one_judge_in_the_leaderboard():
    verdicts = verdict_level_panel(9, [0.9, 0.8, 0.65], [0.2, -0.3, 1.5], n_prompts=40)
    # no prior on gamma: a prior per judge would count twice for two half-weighted copies
    fixed = {"gamma_reg": 0.0, "tol": 1e-9}
    alone = Leaderboard("judge_aware", {"clusters": None, **fixed}).fit(verdicts).scores_
    copied = with_copy(verdicts, "j2", "j2-copy")
    plain = Leaderboard("judge_aware", {"clusters": None, **fixed}).fit(copied).scores_
    clustered = Leaderboard("judge_aware", {"clusters": {"j2": "biased", "j2-copy": "biased"}, **fixed}).fit(copied)
    auto = Leaderboard("judge_aware", {"clusters": "auto", **fixed}).fit(copied)
    # identical verdicts: error correlation 1, weight 1/2 each: the pair is one judge
    assert list(clustered.fit_.extra[:4].round(6)) == list(auto.fit_.extra[:4].round(6))
    np.testing.assert_allclose(clustered.scores_, alone, atol=1e-4)
    np.testing.assert_allclose(auto.scores_, alone, atol=1e-4)
    assert np.abs(plain - alone).max() > 20 * np.abs(clustered.scores_ - alone).max()


def test_two_identical_copies_count_as_one_judge_in_the_unit_verdicts():
    judges = [SimulatedJudge("a", 0.85, 0.2), SimulatedJudge("b", 0.8, -0.2), SimulatedJudge("c", 0.65, 1.5)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=30, seed=10)
    weak = {"reg": 1e-5, "tol": 1e-9}  # the ridge on each judge's (a, gamma) would count twice for two copies
    alone = JudgeAwareVerdicts(clusters=None, **weak).fit(verdicts).units_.p_model_1
    copied = with_copy(verdicts, "c", "c-copy")
    plain = JudgeAwareVerdicts(clusters=None, **weak).fit(copied).units_.p_model_1
    clustered = JudgeAwareVerdicts(clusters={"c": "x", "c-copy": "x"}, **weak).fit(copied)
    assert clustered.judges_.weight.tolist() == pytest.approx([1.0, 1.0, 0.5, 0.5])
    np.testing.assert_allclose(clustered.units_.p_model_1, alone, atol=1e-4)
    assert np.abs(plain - alone).max() > 0.05


def test_digit_judge_ids_keep_their_weights_in_natural_order():
    """Judges named 9 and 10 are coded 9 < 10 (natural order) by every part, as j09 < j10 are:
    the same weights land on the same judges."""
    judges = [SimulatedJudge("j09", 0.85, 0.2), SimulatedJudge("j10", 0.8, -0.2), SimulatedJudge("j8", 0.65, 1.5)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=30, seed=10)
    copied = with_copy(verdicts, "j8", "j11")
    clusters = {"j8": "x", "j11": "x"}
    padded = JudgeAwareVerdicts(clusters=clusters).fit(copied)
    digits = copied.assign(judge=copied["judge"].str.lstrip("j").str.lstrip("0"))
    plain = JudgeAwareVerdicts(clusters={"8": "x", "11": "x"}).fit(digits)
    assert plain.judges_.judge.tolist() == ["8", "9", "10", "11"]
    assert plain.judges_.weight.tolist() == pytest.approx([0.5, 1.0, 1.0, 0.5])
    np.testing.assert_allclose(plain.units_.p_model_1, padded.units_.p_model_1, atol=1e-9)


def test_judge_weights_finds_the_copy():
    judges = [SimulatedJudge("a", 0.85), SimulatedJudge("b", 0.8), SimulatedJudge("c", 0.7, 1.0),
              SimulatedJudge("c2", 0.7, 1.0, copy_of="c", copy_rate=0.9)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=40, seed=11)
    table = judge_weights(verdicts, "auto", threshold=0.5)
    assert table.set_index("judge")["cluster"].to_dict() == {"a": "a", "b": "b", "c": "c", "c2": "c"}
    assert 0.5 < table.weight.iloc[2] < 0.6


def test_row_order_does_not_change_the_numbers():
    judges = [SimulatedJudge("a", 0.85, 0.6), SimulatedJudge("b", 0.75, -0.4),
              SimulatedJudge("b2", 0.75, -0.4, copy_of="b", copy_rate=0.8)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=20, seed=12, tie_rate=0.1)
    shuffled = verdicts.sample(frac=1.0, random_state=3).reset_index(drop=True)
    for params in ({"clusters": None}, {"clusters": "auto", "cluster_threshold": 0.3}):
        one, two = Leaderboard("judge_aware", params).fit(verdicts), Leaderboard("judge_aware", params).fit(shuffled)
        np.testing.assert_allclose(one.scores_, two.scores_, atol=1e-6)
        np.testing.assert_allclose(one.fit_.extra, two.fit_.extra, atol=1e-6)
        u1, u2 = JudgeAwareVerdicts(**params).fit(verdicts), JudgeAwareVerdicts(**params).fit(shuffled)
        pd.testing.assert_frame_equal(u1.units_, u2.units_, atol=1e-6)
        pd.testing.assert_frame_equal(u1.judges_, u2.judges_, atol=1e-6)


@pytest.mark.parametrize(("params", "message"), [
    ({"ties": "davidson"}, "ties must be"),
    ({"position": "yes"}, "position must be true or false"),
    ({"gamma_reg": -1}, "JudgeAware: gamma_reg must be a number >= 0, got -1"),
    ({"clusters": "everything"}, "clusters must be None, 'auto' or a mapping"),
    ({"cluster_threshold": 1.5}, r"cluster_threshold must be a number in \[-1, 1\], got 1.5"),
    ({"rho": 2}, r"rho must be a number in \[0, 1\] or None, got 2"),
    ({"eta_init": 0.999}, "eta_bounds"),
])
def test_bad_leaderboard_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        Leaderboard("judge_aware", params)._check_params()


@pytest.mark.parametrize(("params", "message"), [
    ({"prior": "uniform"}, "prior must be one of 'strengths', 'flat', got 'uniform'"),
    ({"reg": 0}, "reg must be a number > 0, got 0"),
    ({"eta_init": 0.4}, r"eta_init must be a number in \(0.5, 1\), got 0.4"),
    ({"clusters": {"nobody": "x"}}, "'nobody' is not a judge"),
])
def test_bad_unit_parameters_are_named(params, message):
    verdicts, _ = simulate_judge_panel(STRENGTHS, [SimulatedJudge("a", 0.8), SimulatedJudge("b", 0.7)], 2, seed=0)
    with pytest.raises(ValueError, match=message):
        JudgeAwareVerdicts(**params).fit(verdicts)


def test_leaderboard_needs_a_judge_column():
    verdicts = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"], "winner": ["model_a", "model_b"]})
    with pytest.raises(ValueError, match="judge_aware needs a judge column"):
        Leaderboard("judge_aware").fit(verdicts)


def test_bad_verdict_row_is_named():
    verdicts = pd.DataFrame({"prompt": ["p", "p"], "judge": ["a", "a"], "model_a": ["x", "y"],
                             "model_b": ["y", "x"], "winner": ["model_a", "left"]})
    with pytest.raises(ValueError, match="row 1: winner must be one of .*'left'"):
        JudgeAwareVerdicts().fit(verdicts)


def test_judge_aware_rating_is_registered():
    from manyjudges.arena.leaderboard.estimator import LEADERBOARD_METHODS, make_rating

    assert "judge_aware" in LEADERBOARD_METHODS
    assert isinstance(make_rating("judge_aware", {"clusters": "auto"}), JudgeAware)


def test_bootstrap_replicates_are_refits_of_the_resampled_prompts():
    from manyjudges.arena.verdict_codes import code_verdicts

    verdicts = verdict_level_panel(13, [0.9, 0.75], [0.7, -0.3], n_prompts=12, tie_rate=0.1)
    params = {"clusters": None, "tol": 1e-10}
    board = Leaderboard("judge_aware", params, n_bootstrap=3, resample="prompts", seed=5).fit(verdicts)
    prompts = list(code_verdicts(verdicts).prompts)  # the leaderboard's units, in its order
    rng = np.random.default_rng(5)
    for r in range(3):
        drawn = rng.integers(0, len(prompts), len(prompts))
        sample = pd.concat([verdicts[verdicts.prompt == prompts[i]] for i in drawn], ignore_index=True)
        refit = Leaderboard("judge_aware", params).fit(sample).scores_.reindex(board.scores_.index)
        present = refit.notna() & np.isfinite(board.replicates_[r])
        shift = board.scores_[present].mean() - refit[present].mean()
        np.testing.assert_allclose(board.replicates_[r][present.to_numpy()], (refit[present] + shift).to_numpy(),
                                   atol=1e-4)


def small_problem(seed=5):
    verdicts = verdict_level_panel(seed, [0.9, 0.7, 0.6], [0.5, -0.4, 1.0], n_prompts=15, tie_rate=0.1)
    data = code_verdicts(verdicts, "tie")
    cells, of_verdict = _cell_table(data, True, True)
    counts = np.bincount(of_verdict, minlength=cells.n_cells).astype(float)
    return cells, counts


def args_of(cells, counts):
    return (*_judgments_of_cells(cells, counts, "half"), cells.n_models, cells.n_judges, 1.0, 0.05, 0.01, (2.0, 1.5))


def test_the_curvature_is_the_hessian_of_the_objective():
    cells, counts = small_problem()
    args = args_of(cells, counts)
    n, m = cells.n_models, cells.n_judges
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 0.5, n), rng.uniform(0.55, 0.9, m), rng.normal(0, 0.5, m)])
    full = np.empty((n + 2 * m, n + 2 * m))
    for i in range(len(x)):  # central differences of the analytic gradient
        step = np.zeros(len(x))
        step[i] = 1e-6
        full[:, i] = (_judge_aware_objective(x + step, *args)[1] - _judge_aware_objective(x - step, *args)[1]) / 2e-6
    strengths, cross, own = _judge_aware_curvature(x, *args)
    np.testing.assert_allclose(strengths, full[:n, :n], atol=1e-5)
    np.testing.assert_allclose(cross, full[:n, n:], atol=1e-5)
    np.testing.assert_allclose(own[:, 0], np.diag(full[n:n + m, n:n + m]), atol=1e-5)
    np.testing.assert_allclose(own[:, 1], np.diag(full[n:n + m, n + m:]), atol=1e-5)
    np.testing.assert_allclose(own[:, 2], np.diag(full[n + m:, n + m:]), atol=1e-5)
    off = full[n:, n:] - np.diag(np.diag(full[n:, n:]))
    off[np.arange(m), n - n + m + np.arange(m)] = off[m + np.arange(m), np.arange(m)] = 0.0
    assert np.abs(off).max() < 1e-5  # a judge's parameters meet no other judge's
    from manyjudges.core.pairwise.judge_aware import _Judgments  # Newton's own value and gradient: the objective's

    value, grad = _Judgments.of(args).value(x)
    assert value == pytest.approx(_judge_aware_objective(x, *args)[0], rel=1e-12)
    np.testing.assert_allclose(grad, _judge_aware_objective(x, *args)[1], rtol=1e-10, atol=1e-10)
    outer_s, _, outer_own = _judge_aware_curvature(x, *args, kind="outer")
    assert np.linalg.eigvalsh(outer_s).min() > -1e-9
    assert (outer_own[:, 0] * outer_own[:, 2] >= outer_own[:, 1] ** 2).all()


def test_a_replicate_refit_by_newton_reaches_the_lbfgs_minimum():
    cells, counts = small_problem()
    rating = JudgeAware(clusters=None, eta_prior=(2.0, 1.5), reg=0.05)
    start = rating.fit_cells(cells, counts)
    x0 = np.concatenate([start.scores, start.extra])
    rng = np.random.default_rng(1)
    for _ in range(3):
        resampled = rng.poisson(counts).astype(float)
        args = args_of(cells, resampled)
        solver_args = (*args[:7], x0, 1.0, 0.05, 0.01, (2.0, 1.5), (0.01, 0.99), True, 5000, 1e-8)
        newton = np.concatenate(refit_judge_aware(*solver_args))
        lbfgs = np.concatenate(fit_judge_aware(*solver_args))
        assert _judge_aware_objective(newton, *args)[0] <= _judge_aware_objective(lbfgs, *args)[0] + 1e-9
        np.testing.assert_allclose(newton, lbfgs, atol=1e-4)


def test_the_leaderboard_keeps_the_judges_side_table():
    verdicts = verdict_level_panel(9, [0.9, 0.8, 0.65], [0.2, -0.3, 1.5], n_prompts=20)
    board = Leaderboard("judge_aware").fit(verdicts)
    table = board.judges_
    assert list(table.columns) == ["judge", "skill", "position_bias", "cluster", "cluster_size", "rho", "weight"]
    assert list(table["judge"]) == ["j0", "j1", "j2"]
    np.testing.assert_allclose(table["skill"], board.fit_.extra[:3])
    np.testing.assert_allclose(table["position_bias"], board.fit_.extra[3:])
    assert table["position_bias"].iloc[2] > 1.0  # j2 favours the answer shown first
    assert Leaderboard("bradley_terry").fit(verdicts).judges_ is None
    crowd = Leaderboard("crowd_bt").fit(verdicts)
    np.testing.assert_allclose(crowd.judges_["skill"], crowd.fit_.extra)


def sparse_panel(seed, n_judges=120, per_unit=5):
    """Independent judges (etas 0.6-0.9), 5 of the 120 drawn per unit, both orders: pairs share ~1 unit."""
    rng = np.random.default_rng(seed)
    judges = [SimulatedJudge(f"j{k:03d}", float(rng.uniform(0.6, 0.9)), float(rng.normal(0, 0.5)))
              for k in range(n_judges)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=20, seed=seed, tie_rate=0.05)
    unit = pd.factorize(verdicts["prompt"] + "|" + np.minimum(verdicts["model_a"], verdicts["model_b"]))[0]
    unit = pd.factorize(pd.Series(unit).astype(str) + "|" + np.maximum(verdicts["model_a"], verdicts["model_b"]))[0]
    chosen = np.argsort(rng.random((unit.max() + 1, n_judges)), axis=1)[:, :per_unit]
    keep = np.zeros((unit.max() + 1, n_judges), dtype=bool)
    np.put_along_axis(keep, chosen, True, axis=1)
    return verdicts[keep[unit, pd.factorize(verdicts["judge"], sort=True)[0]]].reset_index(drop=True)


def test_a_sparse_panel_of_independent_judges_is_not_one_cluster():
    verdicts = sparse_panel(31)
    assert verdicts.groupby("judge").size().max() <= 40  # 100 units x 5 judges x 2 orders over 120 judges
    shrunk = judge_weights(verdicts, "auto", threshold=0.5)
    raw = judge_weights(verdicts, "auto", threshold=0.5, prior_units=0.0)
    assert shrunk["cluster_size"].max() <= 0.05 * len(shrunk)
    assert (raw["cluster_size"] > 1).mean() > 0.3  # the raw correlations put 45% of the judges in clusters


def test_cliques_that_share_errors_rank_worse_under_bradley_terry():
    from scipy.stats import spearmanr

    many = {f"m{i:02d}": float(v) for i, v in enumerate(np.linspace(1.1, -1.1, 12))}
    judges = [SimulatedJudge("g1", 0.8, 0.3), SimulatedJudge("g2", 0.8, -0.3), SimulatedJudge("g3", 0.75)]
    for name, gamma in (("wa", 1.0), ("wb", -1.0)):
        judges += [SimulatedJudge(name, 0.62, gamma)] + [SimulatedJudge(f"{name}{k}", 0.62, gamma, name, 0.9)
                                                          for k in range(3)]
    truth = pd.Series(many)
    ours, theirs = [], []
    for seed in (41, 42):
        verdicts, _ = simulate_judge_panel(many, judges, n_prompts=4, seed=seed, tie_rate=0.05)
        board = Leaderboard("judge_aware").fit(verdicts)
        assert board.judges_.set_index("judge").loc["wa1", "cluster"] == "wa"
        ours.append(spearmanr(board.scores_.reindex(truth.index), truth).statistic)
        theirs.append(spearmanr(Leaderboard("bradley_terry").fit(verdicts).scores_.reindex(truth.index),
                                truth).statistic)
    assert np.mean(ours) > np.mean(theirs)


def test_row_order_does_not_change_the_bootstrap():
    judges = [SimulatedJudge("a", 0.85, 0.6), SimulatedJudge("b", 0.75, -0.4), SimulatedJudge("c", 0.7, 1.0)]
    verdicts, _ = simulate_judge_panel(STRENGTHS, judges, n_prompts=10, seed=13, tie_rate=0.1)
    shuffled = verdicts.sample(frac=1.0, random_state=4).reset_index(drop=True)
    one = Leaderboard("judge_aware", n_bootstrap=5, seed=2).fit(verdicts)
    two = Leaderboard("judge_aware", n_bootstrap=5, seed=2).fit(shuffled)
    np.testing.assert_allclose(one.replicates_, two.replicates_, atol=1e-6)
    pd.testing.assert_frame_equal(one.judges_, two.judges_, atol=1e-6)
