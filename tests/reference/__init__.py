"""Independent, deliberately naive reference implementations used only by the tests.

One module per family (``core``, ``orderings``, ``consensus``, ``graded``, ``crowd``); the names
the tests use are re-exported here, so ``from reference import random_panel`` works from any test
folder (tests/conftest.py puts tests/ on sys.path).
"""
from .consensus import batched_consensus_loo, brute_force_consensus, brute_force_pair_log2_kappa, loop_consensus_score
from .core import brute_force_common_subsequences, contains, random_panel, reverse_by_loop
from .crowd import brute_crowdagg, brute_pairwise, brute_scores, brute_skill, enumerate_pmf
from .graded import (
    by_item,
    drop_judge,
    ref_D,
    ref_ds_votes,
    ref_gauss_logp,
    ref_logsumexp,
    ref_m1_loglik,
    ref_m1_predict,
    ref_m4_held_out,
    ref_m4_learned_objective,
    ref_m4_loglik,
    ref_maxent_log_proba,
    ref_maxent_objective,
    ref_prior,
    ref_squared_errors,
    ref_vote_shares,
    ref_votes_loglik,
    ref_votes_predict,
    ref_weighted_means,
    ref_yu,
    reference_em,
)
from .graded_previous import previous_maxent_objective, previous_votes_objective
from .orderings import brute_force_frespa, loop_ac, loop_rba, loop_wca, matrix_ac_loo, matrix_wca_loo

__all__ = [
    # graded: the previous vectorised objectives
    "previous_maxent_objective", "previous_votes_objective",
    # core
    "contains", "brute_force_common_subsequences", "reverse_by_loop", "random_panel",
    # orderings
    "brute_force_frespa", "loop_ac", "loop_wca", "loop_rba", "matrix_ac_loo", "matrix_wca_loo",
    # consensus
    "brute_force_consensus", "brute_force_pair_log2_kappa", "loop_consensus_score", "batched_consensus_loo",
    # graded
    "ref_prior", "drop_judge", "by_item", "ref_logsumexp", "ref_m1_predict", "ref_m1_loglik", "ref_D",
    "ref_vote_shares", "ref_votes_loglik", "ref_votes_predict", "ref_weighted_means", "ref_squared_errors",
    "ref_yu", "ref_gauss_logp", "ref_m4_held_out", "ref_m4_loglik", "ref_m4_learned_objective",
    "ref_maxent_objective", "ref_maxent_log_proba", "ref_ds_votes", "reference_em",
    # crowd
    "enumerate_pmf", "brute_pairwise", "brute_scores", "brute_skill", "brute_crowdagg",
]
