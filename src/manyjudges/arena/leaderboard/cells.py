"""An arena's coded verdicts summed into the kernel's cells, and the bootstrap's units.

A rating needs only how many verdicts fall in each *cell* (judge when the method models judges,
unordered pair of models, outcome, and presentation order when the method models it;
:class:`~manyjudges.core.pairwise.cells.Cells`), so the verdicts are coded once
(:func:`~manyjudges.arena.verdict_codes.code_verdicts`) and every fit, including each bootstrap
replicate, works on a vector of cell counts (:func:`_unit_matrix` times the units' multiplicities).
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from manyjudges.arena.verdict_codes import ArenaVerdicts
from manyjudges.core.pairwise.cells import HI_WINS, LO_WINS, TIE, Cells, cells_from_codes

#: what the bootstrap resamples with replacement
_RESAMPLE_UNITS = ("verdicts", "prompts", "judges")


def _cell_table(data: ArenaVerdicts, by_judge: bool, by_order: bool = False) -> tuple[Cells, np.ndarray]:
    """Return the verdicts' cells, and each verdict's cell index.

    The cells are by judge when ``by_judge``, by presentation order when ``by_order``.
    """
    lo, hi = np.minimum(data.model_a, data.model_b), np.maximum(data.model_a, data.model_b)
    a_is_lo = data.model_a == lo
    outcome = np.where(data.winner == 2, TIE, np.where((data.winner == 0) == a_is_lo, LO_WINS, HI_WINS))
    judge = data.judge if by_judge else np.zeros_like(data.judge)
    return cells_from_codes(lo, hi, outcome, judge, data.n_models, len(data.judges) if by_judge else 1, data.models,
                            a_is_lo.astype(np.int64) if by_order else None)


def _unit_matrix(data: ArenaVerdicts, cell_of_verdict: np.ndarray, n_cells: int, resample: str,
                weights: np.ndarray | None = None) -> sparse.csr_matrix:
    """Return the (cells, units) sparse matrix of verdict counts.

    Each verdict counts ``weights``, default 1; a replicate's cell counts are this matrix times the
    units' multiplicities. Units: the verdicts
    (canonical order), the prompts or the judges (natural order).
    """
    if resample not in _RESAMPLE_UNITS:
        raise ValueError(f"resample must be one of {', '.join(_RESAMPLE_UNITS)}, got {resample!r}")
    if resample == "prompts" and not data.has_prompt:
        raise ValueError("resample='prompts' needs a prompt column in the verdicts")
    if resample == "judges" and not data.has_judge:
        raise ValueError("resample='judges' needs a judge column in the verdicts")
    unit = {"verdicts": np.arange(data.n_verdicts), "prompts": data.prompt, "judges": data.judge}[resample]
    n_units = {"verdicts": data.n_verdicts, "prompts": len(data.prompts), "judges": len(data.judges)}[resample]
    ones = np.ones(data.n_verdicts) if weights is None else np.asarray(weights, dtype=float)
    return sparse.csr_matrix((ones, (cell_of_verdict, unit)), shape=(n_cells, n_units))
