"""The one panel simulator (manyjudges.arena.panel_simulation) and its two doors, against direct loops."""
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

from manyjudges.arena.panel_simulation import PanelJudge, simulate_panel
from manyjudges.arena.simulate import simulate_arena
from manyjudges.arena.simulate_judges import SimulatedJudge, simulate_judge_panel
from manyjudges.core.random_streams import distinct_draws

PANEL = {"fair": {}, "biased": {"position_bias": 1.0, "skill": 0.8}, "noisy": {"skill": 0.6}}


def loop_arena(seed, n_models, n_prompts, panel, pairs_per_prompt, both_orders, sd, nu):
    """The arena door's model, one verdict at a time (module docstring of manyjudges.arena.simulate)."""
    rng = np.random.default_rng(seed)
    s = np.array([rng.normal(0.0, sd) for _ in range(n_models)])
    s -= s.mean()
    pairs = list(combinations(range(n_models), 2))
    per = len(pairs) if pairs_per_prompt is None else pairs_per_prompt
    chosen = np.sort(distinct_draws(rng, n_prompts, len(pairs), per), axis=1)
    rows = []
    for p in range(n_prompts):
        for c in chosen[p]:
            lo, hi = pairs[c]
            for order in ((lo, hi), (hi, lo)) if both_orders else ((lo, hi),):
                rows += [[p, j, *order] for j in panel]
    if not both_orders:
        for row in rows:
            if rng.random() < 0.5:
                row[2], row[3] = row[3], row[2]
    u = [rng.random() for _ in rows]
    r = [rng.random() for _ in rows]
    out = []
    for (p, j, f, g), uu, rr in zip(rows, u, r):
        opt = panel[j] or {}
        pa, pb = np.exp(s[f] + opt.get("position_bias", 0.0)), np.exp(s[g])
        pt = nu * np.sqrt(pa * pb)
        uu *= pa + pb + pt
        k = 0 if uu < pa else 1 if uu < pa + pb else 2
        if k < 2 and rr >= opt.get("skill", 1.0):
            k = 1 - k
        out.append((f"p{p + 1:02d}", j, f"m{f + 1:02d}", f"m{g + 1:02d}", ["model_a", "model_b", "tie"][k]))
    return pd.DataFrame(out, columns=["prompt", "judge", "model_a", "model_b", "winner"]), s


@pytest.mark.parametrize("options", [dict(pairs_per_prompt=None, both_orders=True, sd=1.0, nu=0.5),
                                     dict(pairs_per_prompt=2, both_orders=False, sd=0.7, nu=0.0),
                                     dict(pairs_per_prompt=4, both_orders=True, sd=1.3, nu=1.5)])
def test_arena_door_draws_what_a_direct_loop_draws(options):
    loop, s = loop_arena(4, 5, 6, PANEL, options["pairs_per_prompt"], options["both_orders"], options["sd"],
                         options["nu"])
    arena = simulate_arena(4, n_models=5, n_prompts=6, panel=PANEL, pairs_per_prompt=options["pairs_per_prompt"],
                           both_orders=options["both_orders"], strength_sd=options["sd"], nu=options["nu"])
    pd.testing.assert_frame_equal(arena.verdicts.astype(object), loop.astype(object))
    np.testing.assert_allclose(arena.strengths.to_numpy(), s, rtol=0, atol=1e-12)


def loop_judge_panel(strengths, judges, n_prompts, seed, tie_rate):
    """The judge-panel door's model, one judge at a time (module docstring of manyjudges.arena.simulate_judges)."""
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    units = [(p, a, b) for p in range(n_prompts) for a, b in combinations(range(len(names)), 2)]
    one_wins = [rng.random() < expit(strengths[names[a]] - strengths[names[b]]) for _, a, b in units]
    shown = [(p, a, b, w) for (p, a, b), w in zip(units, one_wins)] + \
            [(p, b, a, not w) for (p, a, b), w in zip(units, one_wins)]
    named, rows = {}, []
    for judge in judges:
        first = [rng.random() < expit((logit(judge.eta) if w else -logit(judge.eta)) + judge.gamma)
                 for *_, w in shown]
        if judge.copy_of is not None:
            first = [named[judge.copy_of][i] if rng.random() < judge.copy_rate else x for i, x in enumerate(first)]
        named[judge.name] = first
        ties = [rng.random() < tie_rate for _ in shown]
        rows += [(str(p), judge.name, names[f], names[g], "tie" if t else "model_a" if x else "model_b")
                 for (p, f, g, _), x, t in zip(shown, first, ties)]
    truth = [(str(p), names[a], names[b], names[a] if w else names[b]) for (p, a, b), w in zip(units, one_wins)]
    return (pd.DataFrame(rows, columns=["prompt", "judge", "model_a", "model_b", "winner"]),
            pd.DataFrame(truth, columns=["prompt", "model_1", "model_2", "winner"]))


def test_judge_panel_door_draws_what_a_direct_loop_draws():
    strengths = {"x": 0.5, "y": 0.0, "z": -0.3, "w": 1.0}
    judges = [SimulatedJudge("a", 0.9, 1.2), SimulatedJudge("b", 0.8, -0.8),
              SimulatedJudge("c", 0.7), SimulatedJudge("c2", 0.7, 1.0, copy_of="c", copy_rate=0.6)]
    verdicts, truth = simulate_judge_panel(strengths, judges, n_prompts=4, seed=9, tie_rate=0.15)
    loop_verdicts, loop_truth = loop_judge_panel(strengths, judges, 4, 9, 0.15)
    pd.testing.assert_frame_equal(verdicts.astype(object), loop_verdicts.astype(object))
    pd.testing.assert_frame_equal(truth.astype(object), loop_truth.astype(object))


def test_doors_and_the_simulator_give_the_same_frames():
    strengths = pd.Series([0.3, -0.3, 0.0], index=["m01", "m02", "m03"])
    judges = [PanelJudge("fair"), PanelJudge("biased", 0.8, 1.0)]
    rng = np.random.default_rng(2)
    drawn = rng.normal(0.0, 1.0, 3)
    drawn -= drawn.mean()
    direct = simulate_panel(rng, pd.Series(drawn, index=strengths.index), judges, 5, nu=0.5).verdicts
    door = simulate_arena(2, n_models=3, n_prompts=5, panel={"fair": {}, "biased": {"skill": 0.8,
                                                                                     "position_bias": 1.0}})
    pd.testing.assert_frame_equal(door.verdicts, direct)


def test_a_clique_member_copying_always_gives_its_leaders_verdicts():
    judges = [PanelJudge("lead", 0.7, 0.5), PanelJudge("other", 0.9), PanelJudge("clone", 0.9, copy_of="lead",
                                                                                      copy_rate=1.0)]
    strengths = pd.Series([0.5, 0.0, -0.5], index=["a", "b", "c"])
    for judging in ("davidson", "true_winner"):
        v = simulate_panel(1, strengths, judges, 30, judging=judging).verdicts
        lead, clone = (v.loc[v["judge"] == j, "winner"].to_numpy() for j in ("lead", "clone"))
        assert (lead == clone).all()
        assert not (lead == v.loc[v["judge"] == "other", "winner"].to_numpy()).all()


def test_style_columns_and_a_swayed_judge_follows_the_model():
    strengths = pd.Series(np.zeros(4), index=["a", "b", "c", "d"])
    judges = [PanelJudge("plain", 0.9), PanelJudge("swayed", 0.9, style={"length": 1.5})]
    for judging in ("davidson", "true_winner"):
        v = simulate_panel(3, strengths, judges, 300, judging=judging, style={"length": 1.0}).verdicts
        assert list(v.columns) == ["prompt", "judge", "model_a", "model_b", "winner", "length_a", "length_b"]
        # one answer per (prompt, model): every row showing it carries the same length
        per_answer = pd.concat([v[["prompt", "model_a", "length_a"]].set_axis(["p", "m", "x"], axis=1),
                                v[["prompt", "model_b", "length_b"]].set_axis(["p", "m", "x"], axis=1)])
        assert per_answer.groupby(["p", "m"])["x"].nunique().max() == 1
        # equal strengths, no ties: P(first named) from the knobs, row by row, against the draws
        sway = np.where(v["judge"] == "swayed", 1.5, 0.0) * (v["length_a"] - v["length_b"]).to_numpy()
        if judging == "davidson":  # a Davidson (nu = 0) outcome, kept with probability 0.9
            p = 0.9 * expit(sway) + 0.1 * expit(-sway)
        else:  # a fair coin for the true winner, then logit +-logit(0.9) + sway
            p = 0.5 * expit(logit(0.9) + sway) + 0.5 * expit(-logit(0.9) + sway)
        first = (v["winner"] == "model_a").to_numpy()
        longer = (v["length_a"] > v["length_b"]).to_numpy()
        for judge in ("plain", "swayed"):
            for side in (longer, ~longer):
                rows = (v["judge"] == judge).to_numpy() & side
                se = np.sqrt((p[rows] * (1 - p[rows])).sum()) / rows.sum()
                assert abs(first[rows].mean() - p[rows].mean()) < 4 * se
        swayed = (v["judge"] == "swayed").to_numpy()
        assert first[swayed & longer].mean() > first[swayed & ~longer].mean() + 0.3


def test_ties_position_bias_and_bad_knobs():
    strengths = pd.Series([0.0, 0.0], index=["a", "b"])
    v = simulate_panel(0, strengths, [PanelJudge("j", position_bias=2.0)], 400, tie_rate=0.0).verdicts
    assert (v["winner"] == "model_a").mean() > 0.8  # e^2 / (1 + e^2) = 0.88 on equal models
    v = simulate_panel(0, strengths, [PanelJudge("j", 0.8)], 50, judging="true_winner", tie_rate=1.0).verdicts
    assert (v["winner"] == "tie").all()
    with pytest.raises(ValueError, match="judging"):
        simulate_panel(0, strengths, [PanelJudge("j")], 2, judging="thurstone")
    with pytest.raises(ValueError, match="not an earlier judge"):
        simulate_panel(0, strengths, [PanelJudge("j", copy_of="k", copy_rate=0.5), PanelJudge("k")], 2)
    with pytest.raises(ValueError, match="style features"):
        simulate_panel(0, strengths, [PanelJudge("j", style={"length": 1.0})], 2)
    with pytest.raises(ValueError, match="skill and copy_rate"):
        simulate_panel(0, strengths, [PanelJudge("j", skill=1.5)], 2)
    with pytest.raises(ValueError, match="tie_rate"):
        simulate_panel(0, strengths, [PanelJudge("j")], 2, tie_rate=2.0)
