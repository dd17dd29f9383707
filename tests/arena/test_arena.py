"""The arena section's library: the simulated arena against its outcome probabilities written out verdict by
verdict, the panel and reference split, the stacked leaderboards against Leaderboard fitted alone, the judge
measures against judge_measures, the report and the figures."""
import math

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import (
    Leaderboard,
    arena_judges,
    arena_leaderboards,
    arena_tables,
    bootstrap_seed,
    judge_measures,
    read_reference,
    simulate_arena,
    split_panel,
)
from manyjudges.arena.plots import _busiest_pairs, plot_agreement, plot_leaderboard
from manyjudges.arena.report import report_section
from manyjudges.arena.simulate import arena_problem

PANEL = {"fair": {}, "first": {"position_bias": 0.8, "skill": 0.8},
         "second": {"position_bias": -0.5, "skill": 0.6}}


def test_the_design_every_judge_every_drawn_pair_in_both_orders():
    arena = simulate_arena(3, n_models=6, n_prompts=7, panel=PANEL, pairs_per_prompt=4)
    v = arena.verdicts
    assert list(v.columns) == ["prompt", "judge", "model_a", "model_b", "winner"]
    assert len(v) == 7 * 4 * 2 * 3 and list(pd.unique(v["judge"])) == list(PANEL)
    assert set(v["winner"]) <= {"model_a", "model_b", "tie"} and (v["model_a"] != v["model_b"]).all()
    lo, hi = np.minimum(v["model_a"], v["model_b"]), np.maximum(v["model_a"], v["model_b"])
    units = v.assign(lo=lo, hi=hi).groupby(["prompt", "judge"])
    assert (units[["lo", "hi"]].apply(lambda g: len(g.drop_duplicates())) == 4).all()  # 4 distinct pairs
    shown = v.groupby(["prompt", "judge", "model_a", "model_b"]).size()
    assert (shown == 1).all()  # each pair once in each order
    assert v.groupby(["prompt", "judge"]).size().eq(8).all()
    assert len(arena.strengths) == 6 and abs(arena.strengths.sum()) < 1e-12
    again = simulate_arena(3, n_models=6, n_prompts=7, panel=PANEL, pairs_per_prompt=4)
    pd.testing.assert_frame_equal(again.verdicts, v)
    assert not simulate_arena(4, n_models=6, n_prompts=7, panel=PANEL, pairs_per_prompt=4).verdicts.equals(v)


def test_one_order_shows_each_pair_once_in_either_order_and_nu_zero_draws_no_tie():
    v = simulate_arena(0, n_models=5, n_prompts=60, panel={"j": {}, "k": {}}, both_orders=False, nu=0.0).verdicts
    assert len(v) == 60 * 10 * 2 and "tie" not in set(v["winner"])
    lo = np.minimum(v["model_a"], v["model_b"])
    assert v.assign(lo=lo, hi=np.maximum(v["model_a"], v["model_b"])).groupby(
        ["prompt", "judge", "lo", "hi"]).size().eq(1).all()
    first_is_lower = (v["model_a"] == lo).mean()
    assert 0.45 < first_is_lower < 0.55


def expected_probabilities(arena, panel, nu):
    """P(model_a wins), P(model_b wins), P(tie) of every verdict, from the judge model written out with math."""
    s = arena.strengths.to_dict()
    rows = []
    for a, b, judge in zip(arena.verdicts["model_a"], arena.verdicts["model_b"], arena.verdicts["judge"]):
        bias = panel[judge].get("position_bias", 0.0)
        eta = panel[judge].get("skill", 1.0)
        pi_a, pi_b = math.exp(s[a] + bias), math.exp(s[b])
        tie = nu * math.sqrt(pi_a * pi_b)
        d = pi_a + pi_b + tie
        win_a, win_b = pi_a / d, pi_b / d
        rows.append((eta * win_a + (1 - eta) * win_b, eta * win_b + (1 - eta) * win_a, tie / d))
    return np.array(rows)


def test_outcomes_follow_davidson_with_position_bias_and_reversals():
    nu = 0.7
    arena = simulate_arena(11, n_models=5, n_prompts=300, panel=PANEL, strength_sd=0.8, nu=nu)
    p = expected_probabilities(arena, PANEL, nu)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    observed = arena.verdicts["winner"].map({"model_a": 0, "model_b": 1, "tie": 2}).to_numpy()
    judge = arena.verdicts["judge"].to_numpy()
    for name in PANEL:
        mine = judge == name
        for k in range(3):
            expected = p[mine, k].sum()
            sd = math.sqrt((p[mine, k] * (1 - p[mine, k])).sum())
            assert abs((observed[mine] == k).sum() - expected) < 4 * sd, (name, k)
    # the biased judge's first-shown answer wins more often than the fair judge's, in the data too
    rates = judge_measures(arena.verdicts).judges.set_index("judge")["first_win_rate"]
    assert rates["first"] > rates["fair"] + 0.05 and rates["second"] < rates["fair"]


def test_a_bad_simulation_is_named():
    assert "n_models" in arena_problem(1, 5, PANEL)
    assert "pairs_per_prompt must be in 1..3" in arena_problem(3, 5, PANEL, pairs_per_prompt=4)
    assert "panel" in arena_problem(3, 5, {})
    assert "skill" in arena_problem(3, 5, {"j": {"skill": 1.5}})
    assert "unknown options ['bias']" in arena_problem(3, 5, {"j": {"bias": 1}})
    assert arena_problem(3, 5, {"j": None}) is None
    with pytest.raises(ValueError, match="n_prompts"):
        simulate_arena(0, n_models=3, n_prompts=0, panel=PANEL)


def verdicts_of(judges):
    return pd.DataFrame({"prompt": "p1", "judge": judges, "model_a": "x", "model_b": "y", "winner": "model_a"})


def test_the_reference_and_the_panel_are_picked_by_patterns():
    v = verdicts_of(["gpt4", "human-1", "gpt3", "human-2", "claude"])
    panel, ref = split_panel(v, reference="human-*")
    assert list(panel["judge"]) == ["gpt4", "gpt3", "claude"] and list(ref["judge"]) == ["human-1", "human-2"]
    panel, ref = split_panel(v, judges=["gpt*"], reference=["human-2"])
    assert list(panel["judge"]) == ["gpt4", "gpt3"] and list(ref["judge"]) == ["human-2"]
    panel, ref = split_panel(v)
    assert len(panel) == 5 and ref.empty and list(ref.columns) == list(v.columns)
    with pytest.raises(ValueError, match=r"arena.datasets.d.reference: patterns \['annotator\*'\] match no judge"):
        split_panel(v, reference="annotator*", where="arena.datasets.d")
    with pytest.raises(ValueError, match="both in judges and in reference"):
        split_panel(v, judges="*", reference="human-*")


def test_a_simulated_dataset_gives_the_same_tables_as_its_draw():
    spec = {"source": "simulate", "n_models": 4, "n_prompts": 5, "panel": {"a": {}, "h": {}}, "reference": "h",
            "nu": 0.3}
    panel, ref = arena_tables("sim", spec, [], seed=7)
    assert set(panel["judge"]) == {"a"} and set(ref["judge"]) == {"h"} and len(panel) == len(ref) == 5 * 6 * 2
    again, _ = arena_tables("sim", spec, [], seed=7)
    pd.testing.assert_frame_equal(panel, again)
    other, _ = arena_tables("sim2", spec, [], seed=7)  # another dataset name, another stream
    assert not other.equals(panel)


METHODS = {"bradley_terry": {}, "dav": {"method": "davidson", "params": {"reg": 0.1}}, "elo": None, "crowd_bt": {}}


def test_the_stacked_leaderboards_are_each_method_fitted_alone():
    v = simulate_arena(5, n_models=5, n_prompts=12, panel=PANEL, pairs_per_prompt=5).verdicts
    table = arena_leaderboards(v, METHODS, "sim", seed=3, n_bootstrap=30, resample="prompts", ci=0.9)
    assert list(table.columns) == ["method", "model", "rank", "score", "ci_low", "ci_high", "rank_low", "rank_high"]
    assert list(pd.unique(table["method"])) == list(METHODS)
    for name, entry in METHODS.items():
        entry = entry or {}
        alone = Leaderboard(entry.get("method", name), entry.get("params"), n_bootstrap=30, resample="prompts",
                            ci=0.9, seed=bootstrap_seed(3, "sim", name)).fit(v).table_
        pd.testing.assert_frame_equal(table[table["method"] == name].drop(columns="method").reset_index(drop=True),
                                      alone[table.columns[1:]])  # the pipeline's columns (not the win rates)
    # any row order: the same table
    shuffled = v.sample(frac=1.0, random_state=1).reset_index(drop=True)
    again = arena_leaderboards(shuffled, METHODS, "sim", seed=3, n_bootstrap=30, resample="prompts", ci=0.9)
    pd.testing.assert_frame_equal(again[["method", "model", "rank"]], table[["method", "model", "rank"]])
    np.testing.assert_allclose(again[["score", "ci_low", "ci_high"]].to_numpy(float),
                               table[["score", "ci_low", "ci_high"]].to_numpy(float), atol=1e-6)


def test_the_bootstrap_seed_is_one_per_dataset_and_method():
    assert bootstrap_seed(1, "d", "m") == bootstrap_seed(1, "d", "m")
    assert len({bootstrap_seed(1, "d", "m"), bootstrap_seed(1, "d", "n"), bootstrap_seed(1, "e", "m"),
                bootstrap_seed(2, "d", "m")}) == 4


def test_the_judge_measures_are_judge_measures_and_an_empty_reference_is_none():
    arena = simulate_arena(2, n_models=4, n_prompts=10, panel={**PANEL, "h": {}})
    panel, ref = split_panel(arena.verdicts, reference="h")
    with_ref = arena_judges(panel, ref)
    expected = judge_measures(panel, ref)
    pd.testing.assert_frame_equal(with_ref.judges, expected.judges)
    pd.testing.assert_frame_equal(with_ref.summary, expected.summary)
    without = arena_judges(panel, ref.iloc[:0])
    pd.testing.assert_frame_equal(without.judges, judge_measures(panel).judges)
    assert without.summary["error_reference"].iloc[0] == "majority of the other judges"


def test_a_reference_file_with_its_header_only_is_no_reference(tmp_path):
    from manyjudges.io.tables.verdicts import write_verdicts

    v = verdicts_of(["h1", "h2"])
    write_verdicts(v.iloc[:0], tmp_path / "none.tsv")
    write_verdicts(v, tmp_path / "two.tsv")
    assert read_reference(tmp_path / "none.tsv") is None
    pd.testing.assert_frame_equal(read_reference(tmp_path / "two.tsv"), v)


def test_the_report_and_the_figures(tmp_path):
    arena = simulate_arena(2, n_models=4, n_prompts=10, panel={**PANEL, "h": {}})
    panel, ref = split_panel(arena.verdicts, reference="h")
    board = arena_leaderboards(panel, {"bradley_terry": {}, "elo": {}}, "sim", seed=1, n_bootstrap=20)
    measures = arena_judges(panel, ref)
    files = {}
    for name, table in (("leaderboard", board), ("judges", measures.judges), ("judge_summary", measures.summary)):
        files[name] = tmp_path / f"{name}.tsv"
        table.to_csv(files[name], sep="\t", index=False)
    section = report_section({"sim": files}, {"sim": {"source": "simulate", "reference": "h"}},
                             {"bradley_terry": {}, "elo": {}}, bootstrap=20, resample="verdicts", ci=0.95)
    text = section.markdown
    assert "### Dataset `sim` (**simulated**)" in text and section.cells.empty
    top = board[board["method"] == "bradley_terry"].iloc[0]
    assert f"| {top['model']} | 1 ({top['rank_low']}-{top['rank_high']}): {top['score']:.3f} [" in text
    assert "| first |" in text and "accuracy | kappa |" in text
    assert report_section({}, {}, None).markdown == ""
    plot_leaderboard(board, tmp_path / "board.png")
    plot_agreement(measures.pairs, measures.judges, tmp_path / "agree.png")
    one = arena_judges(panel[panel["judge"] == "fair"])
    plot_agreement(one.pairs, one.judges, tmp_path / "one.png")  # no pair: an empty figure
    for name in ("board.png", "agree.png", "one.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_the_heatmap_keeps_the_busiest_judges():
    judges = pd.DataFrame({"judge": ["a", "b", "c", "d"], "verdicts": [5, 9, 9, 1]})
    pairs = pd.DataFrame({"judge_a": ["a", "a", "b", "b", "c"], "judge_b": ["b", "c", "c", "d", "d"],
                          "agreement": [0.1, 0.2, 0.3, 0.4, 0.5]})
    kept = _busiest_pairs(pairs, judges, limit=3)
    assert list(kept["agreement"]) == [0.1, 0.2, 0.3]
    assert _busiest_pairs(pairs, judges, limit=4) is pairs


def test_prd_with_the_human_votes_as_reference(mirror):
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = [_mirror_path(p, mirror) for p in _pinned_files("prd")["repo_path"]]
    panel, ref = arena_tables("prd", {"source": "prd", "reference": "human-*"}, files)
    assert sorted(pd.unique(panel["judge"])) == ["bard", "claude", "gpt35", "gpt4", "vicuna-13b"]
    assert len(panel) == 8000 and len(ref) == 1760 and ref["judge"].str.startswith("human-").all()


def test_a_table_of_ones_own_is_read_as_verdicts_or_as_preferences(tmp_path):
    verdicts = verdicts_of(["h1", "gpt4"])
    verdicts.to_csv(tmp_path / "v.tsv", sep="\t", index=False)
    panel, ref = arena_tables("own", {"source": "verdicts_table", "path": "v.tsv", "reference": "h*"},
                              [tmp_path / "v.tsv"])
    assert list(panel["judge"]) == ["gpt4"] and list(ref["judge"]) == ["h1"]
    (tmp_path / "p.tsv").write_text("topic\tjudge\tleft\tright\toutcome\nq1\tw1\tx\ty\tright\n")
    panel, ref = arena_tables("own", {"source": "verdicts_table", "path": "p.tsv"}, [tmp_path / "p.tsv"])
    assert panel.iloc[0].to_dict() == {"prompt": "q1", "judge": "w1", "model_a": "x", "model_b": "y",
                                       "winner": "model_b"} and ref.empty
