"""The consensus-measure experiments (Lin, Li, Guo; docs/methods.md, consensus section).

1. ``search_engine_grid``: kappa, kappa_l and LCS length of each list set (Google, Bing)
   over a lambda x gamma grid.
2. ``aggregator_consensus``: aggregate each set of rankings with every aggregator and
   measure the aggregate's consensus with its inputs.
3. ``perturbation_sensitivity``: kappa as one list of a unanimous set is progressively
   perturbed (adjacent swaps; one item displaced), for several (lambda, gamma).
"""
from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from manyjudges.consensus.measure import consensus_measure, log2_kappa_plus_one
from manyjudges.consensus.registry import get_aggregator
from manyjudges.core.random_streams import rng_for
from manyjudges.io.tables.orderings import orderings_to_rank_matrices, read_orderings
from manyjudges.io.tables.rankings import rankings_to_lists, read_rankings

log = logging.getLogger(__name__)

ListSets = Mapping[str, Sequence[Sequence[Hashable]]]


def list_sets_from_orderings(orderings: pd.DataFrame) -> dict[str, list[list[str]]]:
    """{set_id: one list per judge, best first}; tied items in item order (natural sort)."""
    out: dict[str, list[list[str]]] = {}
    for set_id, (_, items, ranks) in orderings_to_rank_matrices(orderings).items():
        out[set_id] = [[items[i] for i in np.lexsort((np.arange(len(items)), row))] for row in ranks]
    return out


def load_list_sets(path: str | Path) -> dict[str, list[list[str]]]:
    """{list_set: lists} from a processed rankings.tsv or orderings.tsv (by file name)."""
    if Path(path).name == "rankings.tsv":
        return {name: list(lists.values()) for name, lists in rankings_to_lists(read_rankings(path)).items()}
    return list_sets_from_orderings(read_orderings(path))


def _fmt_lengths(values: np.ndarray) -> str:
    return ";".join(str(int(v)) if isinstance(v, int) or float(v).is_integer() else f"{float(v):.6g}" for v in values)


def search_engine_grid(list_sets: ListSets, lambdas: Sequence[float], gammas: Sequence[float]) -> pd.DataFrame:
    """list_set, lambda, gamma, kappa, kappa_by_length ('7;13;10;3'), lcs_length."""
    rows = []
    for name, lists in list_sets.items():
        for lam in lambdas:
            for gamma in gammas:
                c = consensus_measure(lists, lam, gamma)
                rows.append(
                    {"list_set": name, "lambda": lam, "gamma": gamma, "kappa": c.kappa,
                     "kappa_by_length": _fmt_lengths(c.kappa_by_length), "lcs_length": c.lcs_length}
                )
    return pd.DataFrame(rows)


def pairwise_consensus(a: Sequence[Hashable], b: Sequence[Hashable], lam: float = 1.0, gamma: float = 1.0) -> float:
    """log2(1 + kappa({a, b})) / log2(1 + kappa({a})): what b shares with a, in a's 'effective length'."""
    base = log2_kappa_plus_one(consensus_measure([a], lam, gamma, by_length=False))
    shared = log2_kappa_plus_one(consensus_measure([a, b], lam, gamma, by_length=False))
    return min(1.0, shared / base) if base > 0 else 0.0


def aggregator_consensus(list_sets: ListSets, aggregators: Sequence[str], lam: float = 1.0,
                         gamma: float = 1.0) -> pd.DataFrame:
    """Per set and aggregator: the consensus of the inputs plus the aggregate, and a pairwise consensus.

    The pairwise consensus is the mean pairwise consensus of the aggregate with each input.
    The aggregate is cut to the longest input's length (a fused top-k run).
    Columns: list_set, aggregator, lambda, gamma, kappa, lcs_length, n_common_items, pairwise_consensus.
    """
    rows = []
    for name, lists in list_sets.items():
        length = max(len(x) for x in lists)
        for agg_name in aggregators:
            aggregate = list(get_aggregator(agg_name)(lists))[:length]
            c = consensus_measure([aggregate, *lists], lam, gamma, by_length=False)
            pair = float(np.mean([pairwise_consensus(aggregate, x, lam, gamma) for x in lists]))
            rows.append(
                {"list_set": name, "aggregator": agg_name, "lambda": lam, "gamma": gamma, "kappa": c.kappa,
                 "lcs_length": c.lcs_length, "n_common_items": c.n_common_items, "pairwise_consensus": pair}
            )
    return pd.DataFrame(rows)


def summarise_aggregators(table: pd.DataFrame) -> pd.DataFrame:
    """Mean and sd over sets of each aggregator's pairwise consensus and LCS length, best first."""
    out = (
        table.groupby("aggregator", sort=False)
        .agg(pairwise_mean=("pairwise_consensus", "mean"), pairwise_sd=("pairwise_consensus", "std"),
             lcs_mean=("lcs_length", "mean"), sets=("list_set", "nunique"))
        .reset_index()
        .sort_values(["pairwise_mean", "aggregator"], ascending=[False, True], kind="stable")
    )
    return out.fillna({"pairwise_sd": 0.0})


def _adjacent_swaps(rng: np.random.Generator, base: list, swaps: int) -> list:
    out = list(base)
    for _ in range(swaps):
        i = int(rng.integers(len(out) - 1))
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _displace(base: list, distance: int) -> list:
    out = list(base)
    item = out.pop(0)
    out.insert(min(distance, len(out)), item)
    return out


def perturbation_sensitivity(
    n_items: int, n_lists: int, steps: Sequence[int], grid: Sequence[tuple[float, float]], replicates: int, seed: int
) -> pd.DataFrame:
    """Kappa of n_lists - 1 identical lists plus one perturbed list, relative to no perturbation.

    kinds: ``adjacent_swaps`` (step = number of random adjacent transpositions; mean over
    replicates) and ``displacement`` (the top item moved down step places; deterministic).
    Columns: kind, step, lambda, gamma, kappa_mean, kappa_sd, log_kappa_ratio (log kappa / log kappa at step 0).
    """
    base = list(range(n_items))
    rows = []
    for lam, gamma in grid:
        reference = consensus_measure([base] * n_lists, lam, gamma, by_length=False).log_kappa
        for kind in ("adjacent_swaps", "displacement"):
            for step in steps:
                reps = replicates if kind == "adjacent_swaps" and step > 0 else 1
                logs = []
                for rep in range(reps):
                    rng = rng_for(seed, "sensitivity", kind, step, rep)
                    moved = _adjacent_swaps(rng, base, step) if kind == "adjacent_swaps" else _displace(base, step)
                    logs.append(consensus_measure([*([base] * (n_lists - 1)), moved], lam, gamma,
                                                  by_length=False).log_kappa)
                kappas = np.exp(logs)
                rows.append(
                    {"kind": kind, "step": step, "lambda": lam, "gamma": gamma, "kappa_mean": float(kappas.mean()),
                     "kappa_sd": float(kappas.std(ddof=1)) if reps > 1 else 0.0,
                     "log_kappa_ratio": float(np.mean(logs) / reference) if reference > 0 else float("nan")}
                )
        log.info("sensitivity lambda=%g gamma=%g done", lam, gamma)
    return pd.DataFrame(rows)
