"""What a verdicts table holds, in one line.

Verdicts, models, judges, prompts, ties, and whether the comparison graph is connected (the arena
commands print it on stderr).
"""
from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from manyjudges.arena.verdict_codes import ArenaVerdicts

__all__ = ["verdicts_summary"]


def _comparison_components(data: ArenaVerdicts) -> np.ndarray:
    """Return the component of each model in the comparison graph (an edge per pair of models with a verdict).

    Models of different components were never compared, directly or through others, so their scores
    cannot be compared (:func:`scipy.sparse.csgraph.connected_components`, undirected).
    """
    n = data.n_models
    graph = coo_matrix((np.ones(data.n_verdicts), (data.model_a, data.model_b)), shape=(n, n))
    return np.asarray(connected_components(graph, directed=False)[1])


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def verdicts_summary(data: ArenaVerdicts, source: str) -> str:
    """Return one line: ``read N verdicts from SOURCE: models, judges, prompts, ties (share); graph connected``.

    Judges and prompts are counted when the table has the column; ties are ``tie`` and ``tie (bothbad)``
    verdicts (the latter only when they are kept as ties). A comparison graph in several components
    (:func:`_comparison_components`) is named with the size of its largest component.
    """
    parts = [_count(data.n_models, "model")]
    if data.has_judge:
        parts.append(_count(len(data.judges), "judge"))
    if data.has_prompt:
        parts.append(_count(len(data.prompts), "prompt"))
    ties = int((data.winner == 2).sum())
    share = f" ({ties / data.n_verdicts:.0%})" if data.n_verdicts else ""
    parts.append(_count(ties, "tie") + share)
    component = _comparison_components(data)
    n_components = int(component.max()) + 1 if len(component) else 0
    if n_components <= 1:
        graph = "comparison graph connected"
    else:
        largest = int(np.bincount(component).max())
        graph = (f"comparison graph NOT connected: {n_components} components, the largest {_count(largest, 'model')}"
                 " (scores across components are not comparable)")
    return f"read {_count(data.n_verdicts, 'verdict')} from {source}: {', '.join(parts)}; {graph}"
