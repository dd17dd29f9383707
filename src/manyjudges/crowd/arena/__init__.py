"""The arena section of the pipeline: leaderboards of models and measures of their judges.

Both come from pairwise verdicts (``prompt, judge, model_a, model_b, winner``; ``model_a`` shown first).

A dataset is a pinned published set (``llmfao``, ``prd``, ``pandalm``) or a simulated arena
(:func:`simulate_arena`: models with known strengths, Davidson ties, judges with a position bias and a
reliability); :func:`arena_tables` splits its verdicts into the panel's and the reference's (by judge name
patterns). :func:`arena_leaderboards` rates the models with every configured method
(:class:`manyjudges.crowd.leaderboard.Leaderboard`, bootstrap intervals), :func:`arena_judges` measures the
judges (:func:`manyjudges.crowd.judges.judge_measures`). ``registry`` holds the methods (the leaderboard's);
on the command line they run as ``manyjudges crowd leaderboard`` and ``manyjudges crowd judges``.

>>> from manyjudges.crowd.arena import arena_leaderboards, simulate_arena
>>> arena = simulate_arena(0, n_models=4, n_prompts=10, panel={"fair": {}, "biased": {"position_bias": 1.0}})
>>> board = arena_leaderboards(arena.verdicts, {"bradley_terry": {}}, "toy", seed=1, n_bootstrap=0)
>>> list(board.columns)
['method', 'model', 'rank', 'score', 'ci_low', 'ci_high', 'rank_low', 'rank_high']
"""
from manyjudges.crowd.arena.data import arena_tables, read_reference, split_panel
from manyjudges.crowd.arena.experiment import arena_judges, arena_leaderboards, bootstrap_seed
from manyjudges.crowd.arena.registry import ARENA_METHODS
from manyjudges.crowd.arena.simulate import SimulatedArena, simulate_arena

registry = ARENA_METHODS

__all__ = ["ARENA_METHODS", "SimulatedArena", "arena_judges", "arena_leaderboards", "arena_tables", "bootstrap_seed",
           "read_reference", "registry", "simulate_arena", "split_panel"]
