"""What the pipeline's arena datasets may ask for: answer lengths drawn, the humans' share, the report's side tables."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena.experiment import _human_share, arena_judges
from manyjudges.arena.report import _beside_raw_markdown, _winrate_markdown
from manyjudges.arena.simulate import simulate_arena


def test_verbosity_draws_lengths_after_the_verdicts_it_leaves_alone():
    plain = simulate_arena(3, 4, 5, {"j": {}, "h": {}}).verdicts
    long = simulate_arena(3, 4, 5, {"j": {}, "h": {}}, verbosity=-0.8).verdicts
    assert list(long.columns) == [*plain.columns, "length_a", "length_b"]
    assert (long["length_a"] > 0).all()
    # the strengths are drawn first, the lengths after them
    with_lengths = simulate_arena(3, 4, 5, {"j": {}}, verbosity=-0.8).strengths
    assert with_lengths.equals(simulate_arena(3, 4, 5, {"j": {}}).strengths)
    # weak models write longer answers: the mean log length falls with the strength
    arena = simulate_arena(0, 6, 200, {"j": {}}, verbosity=-0.8)
    v = arena.verdicts
    logs = pd.concat([pd.Series(np.log(v["length_a"].to_numpy()), index=v["model_a"]),
                      pd.Series(np.log(v["length_b"].to_numpy()), index=v["model_b"])]).groupby(level=0).mean()
    slope = np.polyfit(arena.strengths.loc[logs.index], logs, 1)[0]
    assert slope == pytest.approx(-0.8, abs=0.1)


def test_a_judge_that_weighs_length_prefers_the_longer_answer():
    v = simulate_arena(1, 4, 300, {"fan": {"length": 3.0}, "h": {}}, verbosity=0.0, nu=0.0).verdicts
    longer_first = v["length_a"] > v["length_b"]
    first_won = v["winner"] == "model_a"
    fan, human = v["judge"] == "fan", v["judge"] == "h"
    assert (first_won == longer_first)[fan].mean() > (first_won == longer_first)[human].mean() + 0.1
    measures = arena_judges(v, length="auto")
    prefs = measures.judges.set_index("judge")["length_preference"]
    assert prefs["fan"] > 0 and prefs["fan"] > prefs["h"]


def test_human_share_takes_whole_units_seeded():
    ref = pd.DataFrame({"prompt": ["p1", "p1", "p2", "p2", "p3", "p4"], "judge": "h",
                        "model_a": ["x", "y", "x", "z", "y", "x"], "model_b": ["y", "x", "z", "x", "z", "y"],
                        "winner": "model_a"})
    half = _human_share(ref, 0.5, "d", 0)
    def unit(frame):
        return [(p, *sorted((a, b))) for p, a, b in frame[["prompt", "model_a", "model_b"]].itertuples(index=False)]

    units = set(unit(half))
    assert len(units) == 2  # ceil(0.5 x 4 units)
    assert len(half) == sum(u in units for u in unit(ref))  # both orders of a unit come together
    assert half.equals(_human_share(ref, 0.5, "d", 0))
    shuffled = _human_share(ref.sample(frac=1, random_state=1).reset_index(drop=True), 0.5, "d", 0)
    assert sorted(map(tuple, shuffled.to_numpy())) == sorted(map(tuple, half.to_numpy()))
    assert len(_human_share(ref, 1.0, "d", 0)) == len(ref)
    # with the panel: only units the panel judged too (a human unit needs LLM verdicts)
    panel = ref[ref["prompt"].isin(["p1", "p3"])].assign(judge="llm")
    assert set(_human_share(ref, 1.0, "d", 0, panel)["prompt"]) == {"p1", "p3"}


def test_the_report_sets_the_side_tables_beside_the_raw_ranks():
    board = pd.DataFrame({"method": ["elo", "elo", "bradley_terry", "bradley_terry"], "model": ["x", "y", "x", "y"],
                          "rank": [2, 1, 1, 2]})
    other = pd.DataFrame({"model": ["y", "x"], "rank": [1, 2], "score": [0.5, -0.5], "ci_low": [0.1, -0.9],
                          "ci_high": [0.9, -0.1], "rank_low": [1, 1], "rank_high": [2, 2], "human_verdicts": [3, 4]})
    text = _beside_raw_markdown(board, other, "controlled", "human_verdicts")
    assert "| model | raw rank (bradley_terry) | controlled | human_verdicts |" in text
    assert "| y | 2 | 1 (1-2): 0.500 [0.100, 0.900] | 3 |" in text
    rates = pd.DataFrame({"model": ["x"], "win_rate": [0.75], "se": [0.1], "ci_low": [0.6], "ci_high": [0.9],
                          "discrete_win_rate": [1.0], "n": [4], "raw_win_rate": [0.8]})
    shown = _winrate_markdown(rates, "b")
    assert "against `b`" in shown and "| x | 0.750 [0.600, 0.900] | 0.800 | 1.000 | 4 |" in shown
