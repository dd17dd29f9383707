"""The arena: which model is best, from judges' pairwise verdicts on two models' answers, and how good the judges are.

Verdicts are ``prompt, judge, model_a, model_b, winner`` (Chatbot Arena's columns; ``model_a`` is the
answer shown first; winner ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``), from people or LLM
judges.

- A leaderboard pools every verdict into one score per model with bootstrap intervals:
  ``Leaderboard(method, n_bootstrap=1000, resample="prompts").fit(verdicts).table_`` or
  ``bootstrap(verdicts, method, n=1000, resample="verdicts")`` (methods ``bradley_terry`` with a tie
  half a win each way, ``davidson``, ``elo``, ``crowd_bt``, ``judge_aware``: :data:`LEADERBOARD_METHODS`),
  each fitted by the one pairwise kernel (:mod:`manyjudges.core.pairwise`).
- ``baseline_win_rates(verdicts, "gpt4")`` counts each model's win rate against a baseline model from
  the verdicts where the two met (AlpacaEval's, from ``p_b`` or the winners), with normal or prompt
  bootstrap intervals; ``control="length"`` gives AlpacaEval 2.0's length-controlled win rate.
- ``HumanCalibratedLeaderboard().fit(llm_verdicts, human_verdicts)`` calibrates the leaderboard of many
  LLM verdicts on a few human ones (prediction-powered inference, PPI++).
- :func:`judge_measures` measures the judges: position bias, agreement with a reference and among
  themselves, shared errors and the effective number of independent judges.
- ``JudgeAwareVerdicts().fit(verdicts).units_`` gives one verdict per (prompt, model pair) from a panel
  of judges, each judge's skill and position bias fitted and judges that share errors down-weighted
  (:func:`judge_weights`).
- The pipeline's section: a dataset is a pinned published set (``llmfao``, ``prd``, ``pandalm``) or a
  simulated arena (:func:`simulate_arena`); :func:`arena_tables` splits its verdicts into the panel's and
  the reference's, :func:`arena_leaderboards` rates the models with every configured method and
  :func:`arena_judges` measures the judges. ``registry`` holds the leaderboard's methods.

On the command line: ``manyjudges arena leaderboard|judges|verdicts|winrate``. Definitions: ``docs/methods.md``.

The package's rooms: :mod:`manyjudges.arena.leaderboard` (the leaderboard and its ratings, style control,
bootstrap, saved state and readings), :mod:`manyjudges.arena.judges` (the judges' measures, their clusters and
the judge-aware verdicts), :mod:`manyjudges.arena.winrate` (win rates against a baseline model) and
:mod:`manyjudges.arena.human` (the human-calibrated leaderboard and win rates); beside them the verdicts' codes
and reader, the method names (``registry``), the simulators and the pipeline's modules.

>>> import pandas as pd
>>> from manyjudges.arena import Leaderboard
>>> verdicts = pd.DataFrame({"model_a": ["x", "y", "x", "z"], "model_b": ["y", "z", "z", "y"],
...                          "winner": ["model_a", "model_a", "tie", "model_b"]})
>>> list(Leaderboard("bradley_terry").fit(verdicts).table_["model"])
['x', 'y', 'z']
>>> from manyjudges.arena import arena_leaderboards, simulate_arena
>>> arena = simulate_arena(0, n_models=4, n_prompts=10, panel={"fair": {}, "biased": {"position_bias": 1.0}})
>>> board = arena_leaderboards(arena.verdicts, {"bradley_terry": {}}, "toy", seed=1, n_bootstrap=0)
>>> list(board.columns)
['method', 'model', 'rank', 'score', 'ci_low', 'ci_high', 'rank_low', 'rank_high']
"""
from manyjudges.arena.data import arena_tables, read_reference, split_panel
from manyjudges.arena.experiment import arena_judges, arena_leaderboards, bootstrap_seed
from manyjudges.arena.human.leaderboard import HumanCalibratedLeaderboard
from manyjudges.arena.judges.clusters import judge_weights
from manyjudges.arena.judges.judge_aware_verdicts import JudgeAwareVerdicts, judge_aware_verdicts
from manyjudges.arena.judges.measures import JudgeMeasures, judge_measures
from manyjudges.arena.leaderboard.davidson import Davidson
from manyjudges.arena.leaderboard.estimator import LEADERBOARD_METHODS, Leaderboard, bootstrap
from manyjudges.arena.leaderboard.judge_aware import JudgeAware
from manyjudges.arena.leaderboard.ratings import ArenaBradleyTerry, ArenaCrowdBT, ArenaElo, ArenaRating
from manyjudges.arena.panel_simulation import PanelJudge, SimulatedPanel, simulate_panel
from manyjudges.arena.registry import ARENA_METHODS
from manyjudges.arena.simulate import SimulatedArena, simulate_arena
from manyjudges.arena.winrate.baseline import baseline_win_rates, model_preferences

registry = ARENA_METHODS

__all__ = [
    "ARENA_METHODS",
    "ArenaBradleyTerry",
    "ArenaCrowdBT",
    "ArenaElo",
    "ArenaRating",
    "Davidson",
    "HumanCalibratedLeaderboard",
    "JudgeAware",
    "JudgeAwareVerdicts",
    "JudgeMeasures",
    "LEADERBOARD_METHODS",
    "Leaderboard",
    "PanelJudge",
    "SimulatedArena",
    "SimulatedPanel",
    "arena_judges",
    "arena_leaderboards",
    "arena_tables",
    "baseline_win_rates",
    "bootstrap",
    "bootstrap_seed",
    "judge_aware_verdicts",
    "judge_measures",
    "judge_weights",
    "model_preferences",
    "read_reference",
    "registry",
    "simulate_arena",
    "simulate_panel",
    "split_panel",
]
