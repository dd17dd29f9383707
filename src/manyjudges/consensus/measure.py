"""Consensus measure of a set of rankings (Lin, Li, Guo, arXiv 1704.08464; docs/methods.md, consensus section).

The consensus of rankings R_1..R_m is the weighted number of their common subsequences,
read off a DAG on the items present in EVERY ranking (others are dropped):

- p_k(i): 0-based position of item i in ranking k, as given (a repeated item counts at
  its first position and a repeat still occupies its slot);
- edge i -> j iff p_k(i) < p_k(j) for every k (tied items: no edge);
- item weight f(i) = gamma ** sigma_i, sigma_i the population std of p_k(i);
- edge weight g(i, j) = lambda ** ((1/m) sum_k (p_k(j) - p_k(i))), the mean gap;
- kappa_1 = sum_i f(i); kappa_l = 1' G^(l-1) 1 (l >= 2); kappa = sum_l kappa_l;
  LCS length = the largest l with kappa_l > 0.

Duplicate rankings form a multiset: ``multiplicities`` weight the positions' mean and std
(our reading, docs/methods.md), which equals listing a ranking that many times.

Representation of large counts: with lambda = gamma = 1 the counts are integers and are
returned exactly (Python ints, no overflow: near-identical lists of 1000 items have
about 2^1000 common subsequences). Otherwise totals are float64 computed by a log-space
forward substitution: ``kappa`` is inf past float64's range but ``log_kappa`` stays exact
to rounding; per-length sums are float64.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from manyjudges.core.counting import (
    count_paths_by_length,
    count_paths_total,
    longest_path_vertices,
    weighted_paths_by_length,
    weighted_paths_total,
)


@dataclass(frozen=True)
class ConsensusGraph:
    """The consensus DAG: common items (in first-ranking order), weights and edges."""

    items: list
    positions: np.ndarray  # (m, v) 0-based positions of the common items
    weights: np.ndarray  # (m,) multiplicities
    item_weight: np.ndarray  # (v,) gamma ** sigma
    edges: np.ndarray  # (v, v) bool, strictly upper triangular
    edge_weight: np.ndarray  # (v, v) float, lambda ** mean gap on edges, 0 elsewhere


@dataclass(frozen=True)
class ConsensusMeasure:
    """kappa, kappa_l (index 0 = length 1), LCS length, and the exact count when unweighted."""

    kappa: float
    log_kappa: float
    kappa_by_length: np.ndarray  # Python ints (object array) when exact, else float64
    lcs_length: int
    n_common_items: int
    exact_kappa: int | None = field(default=None)


def first_positions(ranking: Sequence[Hashable]) -> dict:
    """{item: 0-based position of its first occurrence} (positions as given)."""
    pos: dict = {}
    for index, item in enumerate(ranking):
        pos.setdefault(item, index)
    return pos


def consensus_graph(
    rankings: Sequence[Sequence[Hashable]],
    lam: float = 1.0,
    gamma: float = 1.0,
    multiplicities: Sequence[float] | None = None,
    positions: Sequence[dict] | None = None,
) -> ConsensusGraph:
    """Build the consensus DAG of a multiset of rankings (lists of items, best first).

    ``positions`` may replace the lists by explicit {item: position} maps (ties = equal
    positions), e.g. for tied orderings.
    """
    if positions is None:
        if len(rankings) == 0:
            raise ValueError("the consensus of no rankings is undefined")
        positions = [first_positions(r) for r in rankings]
        first = list(dict.fromkeys(rankings[0]))
    else:
        if len(positions) == 0:
            raise ValueError("the consensus of no rankings is undefined")
        first = sorted(positions[0], key=lambda x: (positions[0][x], str(x)))
    if not (0 < lam and 0 < gamma):
        raise ValueError(f"lambda and gamma must be positive, got {lam}, {gamma}")
    m = len(positions)
    w = np.ones(m) if multiplicities is None else np.asarray(multiplicities, dtype=float)
    if w.shape != (m,) or np.any(w <= 0):
        raise ValueError("multiplicities must be one positive number per ranking")
    common = [x for x in first if all(x in p for p in positions)]
    pos = np.array([[p[x] for x in common] for p in positions], dtype=float).reshape(m, len(common))
    share = w / w.sum()
    mean = share @ pos
    sigma = np.sqrt(share @ (pos - mean) ** 2)
    item_weight = gamma**sigma
    edges = np.all(pos[:, :, None] < pos[:, None, :], axis=0)
    gap = mean[None, :] - mean[:, None]
    edge_weight = np.where(edges, lam ** np.where(edges, gap, 0.0), 0.0)
    return ConsensusGraph(common, pos, w, item_weight, edges, edge_weight)


def consensus_measure(
    rankings: Sequence[Sequence[Hashable]],
    lam: float = 1.0,
    gamma: float = 1.0,
    multiplicities: Sequence[float] | None = None,
    by_length: bool = True,
    positions: Sequence[dict] | None = None,
) -> ConsensusMeasure:
    """kappa(R), the per-length kappa_l and the LCS length of a set of rankings."""
    graph = consensus_graph(rankings, lam, gamma, multiplicities, positions)
    v = len(graph.items)
    if v == 0:
        return ConsensusMeasure(0.0, -np.inf, np.zeros(0), 0, 0, 0 if lam == gamma == 1 else None)
    lcs = longest_path_vertices(graph.edges)
    if lam == 1 and gamma == 1:
        exact = count_paths_total(graph.edges, np.arange(v))
        per_length = count_paths_by_length(graph.edges[None], lcs)[0, 1:] if by_length else np.zeros(0)
        return ConsensusMeasure(
            _int_to_float(exact), math.log(exact), np.array([int(x) for x in per_length], dtype=object), lcs, v, exact,
        )
    _, log_paths = weighted_paths_total(graph.edge_weight)
    kappa_1 = graph.item_weight.sum()
    # kappa = sum_i f(i) + (sum over paths of >= 2 vertices) = sum f + (total - v)
    log_longer = _log_sub(log_paths, np.log(v))
    log_kappa = np.logaddexp(np.log(kappa_1), log_longer)
    with np.errstate(over="ignore"):
        kappa = float(np.exp(log_kappa))
    per_length = weighted_paths_by_length(graph.edge_weight, lcs) if by_length else np.zeros(0)
    if by_length and len(per_length):
        per_length[0] = kappa_1
    return ConsensusMeasure(kappa, float(log_kappa), per_length, lcs, v, None)


def log2_kappa_plus_one(c: ConsensusMeasure) -> float:
    """log2(1 + kappa), exact for integer counts of any size, from log_kappa otherwise."""
    if c.exact_kappa is not None:
        return math.log2(1 + c.exact_kappa)
    return float(np.logaddexp(0.0, c.log_kappa) / np.log(2))


def _int_to_float(x: int) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _log_sub(log_a: float, log_b: float) -> float:
    """log(exp(a) - exp(b)) for a >= b (-inf when equal)."""
    if log_a <= log_b:
        return -np.inf
    return log_a + np.log1p(-np.exp(log_b - log_a))
