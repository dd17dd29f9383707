"""What an arena's verdicts can and cannot tell: the pieces of its comparison graph, one-sided models, flat intervals.

The **comparison graph** has the models as nodes and an edge between two models judged against each other
at least once (either shown first, any winner). Its **pieces** (connected components) are the sets of
models linked directly or through others; scores of models in different pieces are not comparable (every
pairwise model sees only differences within a piece, so the gap between pieces is set by the ridge or the
prior alone; Ford 1957, Hunter 2004). :func:`_comparison_pieces`
finds them (``scipy.sparse.csgraph.connected_components``), :func:`_pieces_message` says them.

A model that won every verdict it was in (no loss, no tie), or lost every one, has no finite
maximum-likelihood score (its likelihood keeps rising as its score goes to plus or minus infinity;
Hunter 2004): :func:`_one_sided_models` finds them. A model whose bootstrap replicate scores are all equal
(one unit to resample, all units alike, or present in fewer than two replicates) would get a zero-width
interval that the data does not support: :func:`_flat_replicates` finds them.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from manyjudges.arena.verdict_codes import ArenaVerdicts
from manyjudges.core.pairwise.cells import Cells

__all__ = ["named"]

#: how many models a message names before "... and k more"
_MODELS_SHOWN = 5


def _comparison_pieces(n_models: int, model_a: np.ndarray, model_b: np.ndarray) -> np.ndarray:
    """Return each model's piece of the comparison graph (module docstring), pieces numbered 0, 1, ...

    Parameters
    ----------
    n_models : int
    model_a, model_b : numpy.ndarray of int
        The two models of each verdict (codes 0..n_models-1).

    Returns
    -------
    numpy.ndarray of int, shape (n_models,)
        Piece 0 is the largest, ties broken by the smallest model code in the piece; a model in no verdict
        is a piece of its own.
    """
    edges = np.ones(len(model_a), dtype=np.int8)
    graph = coo_matrix((edges, (np.asarray(model_a), np.asarray(model_b))), shape=(n_models, n_models))
    _, labels = connected_components(graph, directed=False)
    sizes = np.bincount(labels)
    first = np.full(len(sizes), n_models)
    np.minimum.at(first, labels, np.arange(n_models))
    order = np.lexsort((first, -sizes))  # largest first, then by smallest model
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[labels]


def named(models: np.ndarray, shown: int = _MODELS_SHOWN) -> str:
    """Return the first ``shown`` models, comma-separated, then ``... and k more`` if there are more."""
    names = [str(m) for m in models[:shown]]
    more = f", ... and {len(models) - shown} more" if len(models) > shown else ""
    return ", ".join(names) + more


def _pieces_message(models: np.ndarray, pieces: np.ndarray) -> str:
    """Return the error of a comparison graph in several pieces: how many, each piece's size and first models."""
    n = int(pieces.max()) + 1
    sizes = np.bincount(pieces)
    said = "; ".join(f"piece {k + 1} ({sizes[k]} model{'' if sizes[k] == 1 else 's'}): {named(models[pieces == k])}"
                     for k in range(min(n, _MODELS_SHOWN)))
    more = f"; ... and {n - _MODELS_SHOWN} more pieces" if n > _MODELS_SHOWN else ""
    return (f"the comparison graph is in {n} pieces (models never compared with each other, directly or through "
            f"others, so their scores are not comparable): {said}{more}; keep the verdicts of one piece (e.g. the "
            "largest) or add verdicts that link the pieces")


def _one_sided_models(n_models: int, model_a: np.ndarray, model_b: np.ndarray, winner: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """Return the codes of the models that won every verdict they were in, and of those that lost every one.

    ``winner``: 0 model_a, 1 model_b, 2 tie (a tie is neither a win nor a loss, so it makes a model two-sided).
    """
    a, b = np.asarray(model_a), np.asarray(model_b)
    wins = np.bincount(a[winner == 0], minlength=n_models) + np.bincount(b[winner == 1], minlength=n_models)
    losses = np.bincount(a[winner == 1], minlength=n_models) + np.bincount(b[winner == 0], minlength=n_models)
    seen = np.bincount(a, minlength=n_models) + np.bincount(b, minlength=n_models)
    return np.flatnonzero((wins == seen) & (seen > 0)), np.flatnonzero((losses == seen) & (seen > 0))


def _flat_replicates(replicates: np.ndarray, tolerance: float = 1e-12) -> np.ndarray:
    """Return, per model, whether its replicate scores (NaN: absent) span no width: fewer than two, or all equal.

    Equal means max - min <= ``tolerance`` * (1 + max |score|). ``replicates``: shape (n_bootstrap, models),
    n_bootstrap >= 1.
    """
    present = ~np.isnan(replicates)
    filled_low = np.where(present, replicates, np.inf).min(axis=0)
    filled_high = np.where(present, replicates, -np.inf).max(axis=0)
    few = present.sum(axis=0) < 2
    with np.errstate(invalid="ignore"):
        scale = 1.0 + np.maximum(np.abs(filled_low), np.abs(filled_high))
        flat = filled_high - filled_low <= tolerance * scale
    return few | flat


def _check_rateable(cells: Cells, counts: np.ndarray) -> None:
    """Refuse cells whose comparison graph is in several pieces; warn of models that only won or only lost.

    A ValueError (:func:`~manyjudges.arena.leaderboard.pieces._pieces_message`: scores of different pieces are not
    comparable) names the pieces. A warning names the models that won every verdict they were in, or lost
    every one (no finite maximum-likelihood score: the ridge or the prior holds theirs;
    :mod:`manyjudges.arena.leaderboard.pieces`). Both are read from the cells with a positive count (a cell is a judged
    pair and its outcome, :data:`~manyjudges.core.pairwise.cells.LO_WINS` = 0, ``HI_WINS`` = 1, ``TIE`` = 2,
    the winner codes with ``lo`` as model_a), which hold the same pairs and outcomes as the verdicts.
    """
    seen = counts > 0
    lo, hi, outcome = cells.lo[seen], cells.hi[seen], cells.outcome[seen]
    pieces = _comparison_pieces(cells.n_models, lo, hi)
    models = np.asarray(cells.names if cells.names is not None else np.arange(cells.n_models), dtype=object)
    if pieces.max() > 0:
        raise ValueError(_pieces_message(models, pieces))
    won, lost = _one_sided_models(cells.n_models, lo, hi, outcome)
    said = [f"models that {what}: {named(models[codes])}" for what, codes in
            (("won every verdict they were in", won), ("lost every verdict they were in", lost)) if len(codes)]
    if said:
        warnings.warn(f"{'; '.join(said)}; their scores have no finite maximum-likelihood value: only the method's "
                      "ridge or prior (Elo: its K and rounds) holds them, and they say only that these models are "
                      "above (below) the others", stacklevel=4)


def _without_flat_intervals(table: pd.DataFrame, data: ArenaVerdicts, replicates: np.ndarray, resample: str
                           ) -> pd.DataFrame:
    """Return the leaderboard table with the intervals of models whose replicates are flat emptied, with a warning.

    A model whose replicate scores are fewer than two or all equal (:func:`_flat_replicates`:
    one unit to resample, every unit alike, a model in at most one replicate) would get a zero-width
    interval (and ``rank_low == rank_high``) that the data does not support: its ``ci_low, ci_high,
    rank_low, rank_high`` are left empty (NaN) instead, and a warning names the models.
    """
    if not len(replicates):
        return table
    flat = data.models[_flat_replicates(replicates)]
    if not len(flat):
        return table
    table = table.copy()
    rows = table["model"].isin([str(m) for m in flat]).to_numpy()
    table.loc[rows, ["ci_low", "ci_high"]] = np.nan
    table.loc[rows, ["rank_low", "rank_high"]] = pd.NA
    warnings.warn(f"models with the same score in every bootstrap replicate they are in, or in "
                  f"fewer than two ({named(flat)}; {len(replicates)} replicates resampling {resample}): too few "
                  "verdicts for an interval, theirs are left empty", stacklevel=5)
    return table

