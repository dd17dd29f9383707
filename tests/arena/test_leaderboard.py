"""The arena leaderboard: each rating against a direct likelihood, evalica or a plain loop; the bootstrap
against a hand loop that resamples rows with the same draws and refits; rank intervals by hand; row order."""
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.stats import rankdata, spearmanr

from manyjudges.arena import Leaderboard, bootstrap
from manyjudges.arena.leaderboard.rank_intervals import _competition_ranks, _percentile_intervals

WINNER_CODE = {"model_a": 0, "model_b": 1, "tie": 2, "tie (bothbad)": 2}


def simulated_verdicts(seed=1, n=150, models=("m1", "m2", "m3", "m4", "m5"), n_prompts=6, n_judges=4, nu=0.8):
    """Verdicts drawn from a Davidson model with strengths log pi = 0.6, 0.3, 0, -0.3, -0.6."""
    rng = np.random.default_rng(seed)
    s = np.linspace(0.6, -0.6, len(models))
    a = rng.integers(0, len(models), n)
    b = (a + rng.integers(1, len(models), n)) % len(models)
    pa, pb, pt = np.exp(s[a]), np.exp(s[b]), nu * np.exp((s[a] + s[b]) / 2)
    u = rng.random(n) * (pa + pb + pt)
    winner = np.where(u < pa, "model_a", np.where(u < pa + pb, "model_b", "tie")).astype(object)
    winner[(winner == "tie") & (rng.random(n) < 0.3)] = "tie (bothbad)"
    return pd.DataFrame({"prompt": [f"p{i}" for i in rng.integers(0, n_prompts, n)],
                         "judge": [f"j{i}" for i in rng.integers(0, n_judges, n)],
                         "model_a": np.asarray(models)[a], "model_b": np.asarray(models)[b], "winner": winner})


def coded(verdicts):
    models = sorted(set(verdicts.model_a) | set(verdicts.model_b))
    index = {m: i for i, m in enumerate(models)}
    return (models, verdicts.model_a.map(index).to_numpy(), verdicts.model_b.map(index).to_numpy(),
            verdicts.winner.map(WINNER_CODE).to_numpy())


def direct_fit(negloglik, n_params):
    """scipy's BFGS from zero on a written-out negative log-likelihood of (s_2..s_n, extras), s_1 = 0."""
    return minimize(negloglik, np.zeros(n_params), method="BFGS", options={"gtol": 1e-9, "maxiter": 10000}).x


def test_bradley_terry_half_ties_is_the_written_out_maximum_likelihood():
    verdicts = simulated_verdicts()
    models, a, b, w = coded(verdicts)
    n = len(models)

    def negloglik(free):
        pi = np.exp(np.concatenate([[0.0], free]))
        p_a = pi[a] / (pi[a] + pi[b])  # P(model_a beats model_b)
        return -np.sum(np.where(w == 0, np.log(p_a), np.where(w == 1, np.log(1 - p_a),
                                                            0.5 * np.log(p_a) + 0.5 * np.log(1 - p_a))))

    s = np.concatenate([[0.0], direct_fit(negloglik, n - 1)])
    ours = Leaderboard("bradley_terry", {"reg": 0}).fit(verdicts).scores_
    np.testing.assert_allclose(ours.to_numpy(), s - s.mean(), atol=1e-5)
    assert list(ours.index) == models


def test_bradley_terry_without_ties_is_the_written_out_maximum_likelihood():
    """ties="drop": the tie verdicts leave the likelihood; the crowd family's BradleyTerry (ties dropped, its
    own input shape) calls the same kernel and gives the same scores."""
    from manyjudges.crowd import BradleyTerry, topics_from_preferences

    verdicts = simulated_verdicts(seed=4)
    models, a, b, w = coded(verdicts)
    n = len(models)
    strict = w < 2

    def negloglik(free):
        pi = np.exp(np.concatenate([[0.0], free]))
        p_a = pi[a] / (pi[a] + pi[b])
        return -np.sum(np.where(w[strict] == 0, np.log(p_a[strict]), np.log(1 - p_a[strict])))

    s = np.concatenate([[0.0], direct_fit(negloglik, n - 1)])
    ours = Leaderboard("bradley_terry", {"reg": 0, "ties": "drop"}).fit(verdicts).scores_
    np.testing.assert_allclose(ours.to_numpy(), s - s.mean(), atol=1e-5)
    outcome = verdicts.winner.map({"model_a": "left", "model_b": "right", "tie": "tie", "tie (bothbad)": "tie"})
    topic = topics_from_preferences(pd.DataFrame({"topic": "t", "judge": verdicts.judge, "left": verdicts.model_a,
                                                  "right": verdicts.model_b, "outcome": outcome}))["t"]
    crowd = BradleyTerry(reg=0.0, solver="lbfgs", tol=1e-10).fit(topic).scores_
    np.testing.assert_allclose(crowd - crowd.mean(), s - s.mean(), atol=1e-5)


def test_davidson_is_the_written_out_maximum_likelihood():
    verdicts = simulated_verdicts(seed=2, n=300)
    models, a, b, w = coded(verdicts)
    n = len(models)

    def negloglik(free):
        pi = np.exp(np.concatenate([[0.0], free[:-1]]))
        nu = np.exp(free[-1])
        denominator = pi[a] + pi[b] + nu * np.sqrt(pi[a] * pi[b])  # Davidson (1970)
        numerator = np.where(w == 0, pi[a], np.where(w == 1, pi[b], nu * np.sqrt(pi[a] * pi[b])))
        return -np.sum(np.log(numerator / denominator))

    x = direct_fit(negloglik, n)
    s = np.concatenate([[0.0], x[:-1]])
    board = Leaderboard("davidson", {"reg": 0}).fit(verdicts)
    np.testing.assert_allclose(board.scores_.to_numpy(), s - s.mean(), atol=1e-5)
    np.testing.assert_allclose(board.fit_.extra[0], x[-1], atol=1e-5)


def test_bothbad_can_be_dropped():
    verdicts = simulated_verdicts()
    kept = verdicts[verdicts.winner != "tie (bothbad)"]
    dropped = Leaderboard("davidson", bothbad="drop").fit(verdicts).scores_
    np.testing.assert_allclose(dropped, Leaderboard("davidson").fit(kept).scores_, atol=1e-12)
    assert not np.allclose(dropped, Leaderboard("davidson").fit(verdicts).scores_)


def llmfao_verdicts(mirror):
    """llmfao's crowd comparisons as verdicts: ``left``/``right`` name the models shown left and right
    (model_x and model_y of the pair), ``winner`` is left, right or tie, ``judge`` the annotator."""
    path, = (mirror / "dustalov" / "llmfao").glob("*/crowd-comparisons.csv")
    table = pd.read_csv(path)
    return pd.DataFrame({"prompt": table["prompt"].astype(str), "judge": table["worker"].astype(str),
                         "model_a": table["left"], "model_b": table["right"],
                         "winner": table["winner"].map({"left": "model_a", "right": "model_b", "tie": "tie"})})


def test_bradley_terry_equals_evalica_on_llmfao(mirror):
    evalica = pytest.importorskip("evalica")
    verdicts = llmfao_verdicts(mirror)
    winners = verdicts["winner"].map({"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y,
                                      "tie": evalica.Winner.Draw})
    theirs = evalica.bradley_terry(verdicts["model_a"], verdicts["model_b"], winners, win_weight=1.0, tie_weight=0.5,
                                   tolerance=1e-12, limit=100_000)
    ours = Leaderboard("bradley_terry", {"reg": 0}).fit(verdicts).scores_
    # evalica's scores are strengths pi with geometric mean 1: log pi is our centred log-strength
    log_theirs = np.log(theirs.scores.reindex(ours.index).to_numpy())
    assert len(ours) == 59
    assert spearmanr(ours.to_numpy(), log_theirs).statistic == 1.0
    np.testing.assert_allclose(ours.to_numpy(), log_theirs, atol=1e-6)


def hand_bootstrap(verdicts, method, params, n, resample, ci, seed):
    """The bootstrap as a plain loop: sort the rows canonically, draw the units with the same rng calls,
    build each resampled table, refit from scratch, shift to the full fit's mean over the models present."""
    table = verdicts.sort_values(["model_a", "model_b", "winner", "prompt", "judge"], kind="stable")
    table = table.assign(winner=table["winner"].replace("tie (bothbad)", "tie")).reset_index(drop=True)
    full = Leaderboard(method, params).fit(verdicts).scores_
    rng = np.random.default_rng(seed)
    column = {"prompts": "prompt", "judges": "judge"}.get(resample)
    units = np.arange(len(table)) if column is None else np.array(sorted(table[column].unique()))
    rows = []
    for _ in range(n):
        drawn = units[rng.integers(0, len(units), len(units))]
        if column is None:
            sample = table.iloc[drawn]
        else:
            sample = pd.concat([table[table[column] == unit] for unit in drawn])
        scores = Leaderboard(method, params).fit(sample).scores_.reindex(full.index)
        present = scores.notna()
        rows.append((scores - scores[present].mean() + full[present].mean()).to_numpy())
    reps = np.array(rows)
    lo, hi = (1 - ci) / 2, (1 + ci) / 2
    out = []
    for j, model in enumerate(full.index):
        col = reps[:, j][~np.isnan(reps[:, j])]
        ranks = [rankdata(-row[~np.isnan(row)], method="min")[np.flatnonzero(~np.isnan(row)).tolist().index(j)]
                 for row in reps if not np.isnan(row[j])]
        out.append({"model": model, "ci_low": np.quantile(col, lo), "ci_high": np.quantile(col, hi),
                    "rank_low": np.quantile(ranks, lo, method="lower"),
                    "rank_high": np.quantile(ranks, hi, method="higher")})
    return pd.DataFrame(out).set_index("model")


@pytest.mark.parametrize("method, params, resample", [
    ("bradley_terry", None, "verdicts"), ("bradley_terry", None, "prompts"), ("bradley_terry", None, "judges"),
    ("davidson", None, "prompts"), ("elo", None, "verdicts"), ("bradley_terry", {"reg": 0}, "judges"),
])
def test_bootstrap_equals_a_hand_loop(method, params, resample):
    verdicts = simulated_verdicts(seed=4, n=120)
    ours = bootstrap(verdicts, method, n=25, resample=resample, ci=0.9, seed=7, params=params).set_index("model")
    hand = hand_bootstrap(verdicts, method, params, 25, resample, 0.9, 7)
    for column in ("ci_low", "ci_high"):
        np.testing.assert_allclose(ours.loc[hand.index, column], hand[column], atol=1e-6, err_msg=column)
    for column in ("rank_low", "rank_high"):
        assert (ours.loc[hand.index, column].to_numpy() == hand[column].to_numpy()).all(), column


def test_bootstrap_with_absent_models_equals_the_hand_loop():
    verdicts = simulated_verdicts(seed=5, n=60, n_prompts=8)
    rare = pd.DataFrame({"prompt": ["p0", "p0"], "judge": ["j0", "j1"], "model_a": ["m6", "m1"],
                         "model_b": ["m2", "m6"], "winner": ["model_a", "tie"]})
    verdicts = pd.concat([verdicts, rare], ignore_index=True)
    with pytest.warns(UserWarning, match="absent from some bootstrap replicates"):
        board = Leaderboard("bradley_terry", n_bootstrap=30, resample="prompts", ci=0.8, seed=3).fit(verdicts)
    assert 0 < board.absent_["m6"] < 30
    hand = hand_bootstrap(verdicts, "bradley_terry", None, 30, "prompts", 0.8, 3)
    ours = board.table_.set_index("model")
    np.testing.assert_allclose(ours.loc[hand.index, "ci_low"], hand["ci_low"], atol=1e-6)
    assert (ours.loc[hand.index, "rank_high"].to_numpy() == hand["rank_high"].to_numpy()).all()


def test_rank_intervals_of_three_models_by_hand():
    # scores of models A, B, C in five replicates; ranks per replicate (1 = best):
    # A 1 2 1 3 1, B 2 1 3 2 2, C 3 3 2 1 3
    reps = np.array([[3.0, 2.0, 1.0], [2.0, 3.0, 1.0], [3.0, 1.0, 2.0], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    np.testing.assert_array_equal(_competition_ranks(reps), [[1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 2, 1], [1, 2, 3]])
    # ci = 0.5: the 0.25 and 0.75 quantiles; of 5 sorted values, positions 1 and 3 (0-based)
    # A: 1 1 1 2 3 -> [1, 2]; B: 1 2 2 2 3 -> [2, 2]; C: 1 2 3 3 3 -> [2, 3]
    ci_low, ci_high, rank_low, rank_high = _percentile_intervals(reps, 0.5)
    np.testing.assert_array_equal(rank_low, [1, 2, 2])
    np.testing.assert_array_equal(rank_high, [2, 2, 3])
    # scores of A: 1 2 3 3 3 -> 0.25 quantile 2, 0.75 quantile 3
    np.testing.assert_allclose([ci_low[0], ci_high[0]], [2.0, 3.0])
    # equal scores share the best rank; an absent model (NaN) has no rank and does not count
    np.testing.assert_array_equal(_competition_ranks(np.array([1.0, 1.0, 0.0])), [1, 1, 3])
    np.testing.assert_array_equal(_competition_ranks(np.array([np.nan, 2.0, 1.0])), [np.nan, 1, 2])


def test_three_models_leaderboard_by_hand():
    # x beats y twice, y beats z twice, z ties x twice: BT with half ties and reg 0 has
    # s_x - s_y = s_y - s_z by symmetry (y in the middle), so y's centred score is 0
    verdicts = pd.DataFrame({"model_a": ["x", "y", "x", "y", "z", "x"], "model_b": ["y", "z", "y", "z", "x", "z"],
                             "winner": ["model_a", "model_a", "model_a", "model_a", "tie", "tie"]})
    table = bootstrap(verdicts, "bradley_terry", n=0, params={"reg": 0})
    assert list(table["model"]) == ["x", "y", "z"] and list(table["rank"]) == [1, 2, 3]
    assert abs(table["score"][1]) < 1e-9
    assert table[["ci_low", "ci_high", "rank_low", "rank_high"]].isna().all().all()


@pytest.mark.parametrize("method, resample", [("bradley_terry", "prompts"), ("davidson", "judges"),
                                              ("elo", "verdicts"), ("crowd_bt", "judges")])
def test_row_order_does_not_matter(method, resample):
    verdicts = simulated_verdicts(seed=6, n=100)
    n = 5 if method == "crowd_bt" else 20
    first = bootstrap(verdicts, method, n=n, resample=resample, seed=1)
    shuffled = verdicts.sample(frac=1.0, random_state=3)[["winner", "judge", "model_b", "prompt", "model_a"]]
    second = bootstrap(shuffled, method, n=n, resample=resample, seed=1)
    pd.testing.assert_frame_equal(first, second, atol=1e-6)


def test_crowd_bt_without_ties_equals_the_crowd_family_crowd_bt():
    from manyjudges.crowd import CrowdBT, topics_from_preferences

    verdicts = simulated_verdicts(seed=8, n=200)
    prefs = pd.DataFrame({"topic": "arena", "judge": verdicts["judge"], "left": verdicts["model_a"],
                          "right": verdicts["model_b"],
                          "outcome": verdicts["winner"].map({"model_a": "left", "model_b": "right", "tie": "tie",
                                                             "tie (bothbad)": "tie"})})
    topic = topics_from_preferences(prefs)["arena"]
    theirs = CrowdBT().fit(topic)
    board = Leaderboard("crowd_bt", {"ties": "drop"}).fit(verdicts)
    np.testing.assert_allclose(board.scores_.to_numpy(), theirs.scores_ - theirs.scores_.mean(), atol=1e-6)
    np.testing.assert_allclose(board.fit_.extra, theirs.skills_, atol=1e-6)


def test_elo_is_one_game_per_pair_played_in_the_seeded_schedule():
    from manyjudges.core.pairwise.elo import _elo_schedule

    verdicts = simulated_verdicts(seed=9, n=200)
    models, a, b, w = coded(verdicts)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    lo_wins = np.where(w == 2, 0.5, (w == 0) == (a == lo))
    pairs = sorted(set(zip(lo.tolist(), hi.tolist())))
    share = [lo_wins[(lo == i) & (hi == j)].mean() for i, j in pairs]
    order, _ = _elo_schedule(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]), len(models), 0)
    r = [0.0] * len(models)
    for _ in range(10):
        for g in order:
            (i, j), s = pairs[g], share[g]
            d = 32.0 * (s - 1.0 / (1.0 + 10.0 ** ((r[j] - r[i]) / 400.0)))
            r[i] += d
            r[j] -= d
    np.testing.assert_allclose(Leaderboard("elo").fit(verdicts).scores_.to_numpy(), r, atol=1e-9)


def test_bad_input_is_named():
    verdicts = simulated_verdicts()
    with pytest.raises(ValueError, match=r"^verdicts, row 3: winner must be one of .*'left'$"):
        Leaderboard().fit(verdicts.assign(winner=lambda t: t["winner"].where(t.index != 3, "left")))
    with pytest.raises(ValueError, match=r"^verdicts, row 5: model_a and model_b are the same model: "):
        Leaderboard().fit(verdicts.assign(model_b=lambda t: t["model_b"].where(t.index != 5, t["model_a"])))
    with pytest.raises(ValueError, match=r"^verdicts, row 2: empty judge: ' '$"):
        Leaderboard().fit(verdicts.assign(judge=lambda t: t["judge"].where(t.index != 2, " ")))
    with pytest.raises(ValueError, match="needs a judge column"):
        Leaderboard("crowd_bt").fit(verdicts.drop(columns="judge"))
    with pytest.raises(ValueError, match="needs a prompt column"):
        Leaderboard(n_bootstrap=2, resample="prompts").fit(verdicts.drop(columns="prompt"))
    never_loses = pd.DataFrame({"model_a": ["x", "x", "y"], "model_b": ["y", "z", "z"],
                                "winner": ["model_a", "model_a", "tie"]})
    with pytest.raises(ValueError, match=r"models x never lose"):
        Leaderboard("bradley_terry", {"reg": 0}).fit(never_loses)
    assert np.isfinite(Leaderboard("bradley_terry").fit(never_loses).scores_).all()  # reg > 0 by default
    with pytest.raises(ValueError, match="resample must be one of"):
        Leaderboard(resample="topics").fit(verdicts)


@pytest.mark.parametrize("method, resample", [("bradley_terry", "verdicts"), ("davidson", "prompts"),
                                              ("elo", "verdicts"), ("crowd_bt", "verdicts"),
                                              ("judge_aware", "judges")])
def test_replicates_in_processes_equal_the_serial_loop_bit_for_bit(method, resample):
    verdicts = simulated_verdicts(seed=9, n=160, n_judges=5)
    serial = Leaderboard(method, n_bootstrap=12, resample=resample, seed=4, n_jobs=1).fit(verdicts)
    forked = Leaderboard(method, n_bootstrap=12, resample=resample, seed=4, n_jobs=2).fit(verdicts)
    assert np.isfinite(serial.replicates_).all()
    assert np.array_equal(serial.replicates_, forked.replicates_)
    pd.testing.assert_frame_equal(serial.table_, forked.table_, check_exact=True)


def test_the_progress_of_processes_counts_up_to_the_replicates():
    seen = []
    Leaderboard("bradley_terry", n_bootstrap=40, n_jobs=2).fit(simulated_verdicts(), lambda d, t: seen.append((d, t)))
    assert seen[0] == (1, 40) and seen[-1] == (40, 40)
    assert all(b[0] > a[0] for a, b in zip(seen, seen[1:]))


def test_a_replicate_error_in_a_worker_reaches_the_caller():
    from manyjudges.arena.leaderboard.ratings import ArenaBradleyTerry

    class Fails(ArenaBradleyTerry):
        def fit_cells(self, cells, counts, start=None):
            if start is not None and counts.sum() % 2:
                raise ValueError("replicate failed")
            return super().fit_cells(cells, counts, start)

    verdicts = simulated_verdicts().iloc[:149]  # an odd number of verdicts: every replicate fails
    with pytest.raises(ValueError, match="replicate failed"):
        Leaderboard(Fails(), n_bootstrap=10, n_jobs=2).fit(verdicts)


def test_crowd_bt_replicates_by_newton_equal_scipys_lbfgsb_from_the_same_start():
    """A replicate's projected Newton fit against scipy's L-BFGS-B from the full-data fit (the former path)."""
    from manyjudges.arena.leaderboard.cells import _cell_table, _unit_matrix
    from manyjudges.arena.leaderboard.ratings import ArenaCrowdBT
    from manyjudges.arena.verdict_codes import code_verdicts
    from manyjudges.core.pairwise.cells import HI_WINS, LO_WINS, TIE
    from manyjudges.core.pairwise.crowd_bt import crowd_bt_objective

    data = code_verdicts(simulated_verdicts(seed=10, n=400, n_judges=6), "tie")
    rating = ArenaCrowdBT()
    cells, cell_of_verdict = _cell_table(data, True, False)
    units = _unit_matrix(data, cell_of_verdict, cells.n_cells, "verdicts", None)
    full = rating.fit_cells(cells, np.bincount(cell_of_verdict, minlength=cells.n_cells).astype(float))
    lo_wins, hi_wins, tie = (cells.outcome == LO_WINS), (cells.outcome == HI_WINS), (cells.outcome == TIE)
    judge = np.concatenate([cells.judge[lo_wins], cells.judge[hi_wins], cells.judge[tie], cells.judge[tie]])
    win = np.concatenate([cells.lo[lo_wins], cells.hi[hi_wins], cells.lo[tie], cells.hi[tie]])
    lose = np.concatenate([cells.hi[lo_wins], cells.lo[hi_wins], cells.hi[tie], cells.lo[tie]])
    n, m = cells.n_models, cells.n_judges
    rng = np.random.default_rng(0)
    for _ in range(6):
        counts = units @ np.bincount(rng.integers(0, units.shape[1], units.shape[1]),
                                     minlength=units.shape[1]).astype(float)
        ours = rating.fit_cells(cells, counts, full)
        count = np.concatenate([counts[lo_wins], counts[hi_wins], 0.5 * counts[tie], 0.5 * counts[tie]])
        theirs = minimize(crowd_bt_objective, np.concatenate([full.scores, full.extra]), jac=True,
                          args=(judge, win, lose, count, n, 1.0, 0.0, (1.0, 1.0)), method="L-BFGS-B",
                          bounds=[(None, None)] * n + [(0.01, 0.99)] * m,
                          options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 10000}).x
        np.testing.assert_allclose(ours.scores, theirs[:n], atol=1e-6)
        np.testing.assert_allclose(ours.extra, theirs[n:], atol=1e-6)
