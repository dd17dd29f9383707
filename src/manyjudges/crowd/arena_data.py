"""An arena's verdicts as integer codes, summed into cells: the input of every leaderboard rating.

The verdicts table has one row per verdict, columns ``model_a, model_b, winner`` and optionally
``prompt`` and ``judge``; ``model_a`` is the answer shown first and ``winner`` is one of
``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``. A rating needs only how many verdicts fall
in each *cell* (judge when the method models judges, unordered pair of models, outcome), so
the verdicts are coded once (models, prompts and judges in natural order, rows in a canonical
order, so the same verdicts in any row order give the same codes) and every fit, including each
bootstrap replicate, works on a vector of cell counts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from manyjudges.io.tables import natural_sort
from manyjudges.io.verdicts import MISSING
from manyjudges.io.verdicts import WINNERS as VERDICT_WINNERS

__all__ = ["BOTHBAD_RULES", "RESAMPLE_UNITS", "WINNERS", "ArenaVerdicts", "Cells", "code_verdicts", "cell_table",
           "unit_matrix"]

#: the values of ``winner``, in the order of their codes 0..3
WINNERS = tuple(VERDICT_WINNERS)
#: what a ``tie (bothbad)`` verdict is: a tie like any other, or dropped
BOTHBAD_RULES = ("tie", "drop")
#: what the bootstrap resamples with replacement
RESAMPLE_UNITS = ("verdicts", "prompts", "judges")

#: cell outcomes: the pair's lower-coded model wins, the higher-coded one wins, a tie
LO_WINS, HI_WINS, TIE = 0, 1, 2


@dataclass(frozen=True)
class ArenaVerdicts:
    """Verdicts as codes, one row per verdict in canonical order (by model_a, model_b, winner, prompt,
    judge codes).

    Attributes
    ----------
    models, prompts, judges : str arrays in natural order (a missing prompt or judge column: one
        unnamed prompt or judge, ``""``)
    model_a, model_b, prompt, judge : (p,) int arrays
    winner : (p,) int8 array: 0 model_a, 1 model_b, 2 tie (``tie (bothbad)`` is 2 too, or dropped)
    has_prompt, has_judge : whether the table had the column (not only the reader's fill-in '-')
    """

    models: np.ndarray
    prompts: np.ndarray
    judges: np.ndarray
    model_a: np.ndarray
    model_b: np.ndarray
    winner: np.ndarray
    prompt: np.ndarray
    judge: np.ndarray
    has_prompt: bool
    has_judge: bool

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_verdicts(self) -> int:
        return len(self.winner)


def _factor(verdicts: pd.DataFrame, column: str) -> tuple[list[str], np.ndarray]:
    """``(labels, codes)`` of a column: its distinct values as text (first-seen order) and each row's
    index into them (``Series.factorize``, without turning every value into a string first); a
    missing value is a ValueError naming its (0-based) row."""
    codes, uniques = verdicts[column].factorize()
    if (codes < 0).any():
        raise ValueError(f"verdicts: row {int(np.flatnonzero(codes < 0)[0])} (0-based) has no {column}")
    return [str(u) for u in uniques], codes


def _natural_codes(labels: list[list[str]], codes: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The distinct texts of several factorized columns in natural order, and each column's codes into them
    (values that differ but read the same, such as 1 and "1", share a code)."""
    names = np.asarray(natural_sort(set().union(*labels)), dtype=object)
    lookup = {name: i for i, name in enumerate(names)}
    return names, [np.array([lookup[x] for x in lab], dtype=np.int64)[c] for lab, c in zip(labels, codes)]


def _first_row(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _canonical_order(keys: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """The stable order of rows by ``keys`` (first key first): one argsort of the mixed-radix number
    of the keys when it fits in int64 (several times faster than ``np.lexsort``), else lexsort."""
    if float(np.prod(np.asarray(sizes, dtype=float))) < 2.0 ** 62:
        combined = np.zeros(len(keys[0]), dtype=np.int64)
        for key, size in zip(keys, sizes):
            combined *= size
            combined += key
        return np.argsort(combined, kind="stable")
    return np.lexsort(keys[::-1])


def code_verdicts(verdicts: pd.DataFrame, bothbad: str = "tie") -> ArenaVerdicts:
    """The verdicts table as :class:`ArenaVerdicts`.

    ``bothbad``: ``"tie"`` (default) reads ``tie (bothbad)`` as a tie, ``"drop"`` leaves those
    verdicts out. A missing column, a missing value, an unknown ``winner`` or a model judged
    against itself is a ValueError naming the (0-based) row and the value.
    """
    if bothbad not in BOTHBAD_RULES:
        raise ValueError(f"bothbad must be one of {', '.join(BOTHBAD_RULES)}, got {bothbad!r}")
    absent = [c for c in ("model_a", "model_b", "winner") if c not in verdicts.columns]
    if absent:
        raise ValueError(f"verdicts: no column {', '.join(absent)} (need model_a, model_b, winner; "
                         "prompt and judge optional)")
    w_labels, w_codes = _factor(verdicts, "winner")
    known = {w: i for i, w in enumerate(WINNERS)}
    for i, label in enumerate(w_labels):
        if label not in known:
            raise ValueError(f"verdicts: row {_first_row(w_codes == i)} (0-based): winner must be one of "
                             f"{', '.join(WINNERS)}: {label!r}")
    winner = np.array([known[w] for w in w_labels], dtype=np.int64)[w_codes]
    (a_labels, a_codes), (b_labels, b_codes) = _factor(verdicts, "model_a"), _factor(verdicts, "model_b")
    models, (a, b) = _natural_codes([a_labels, b_labels], [a_codes, b_codes])
    if (a == b).any():
        row = _first_row(a == b)
        raise ValueError(f"verdicts: row {row} (0-based) compares a model with itself: {models[a[row]]!r}")
    # a column the file lacked is read as MISSING ('-') in every row (manyjudges.io.verdicts): not a column
    has = {c: c in verdicts.columns and not bool((verdicts[c] == MISSING).all()) for c in ("prompt", "judge")}
    extra = {}
    for c in ("prompt", "judge"):
        labels, codes = _factor(verdicts, c) if has[c] else ([""], np.zeros(len(winner), dtype=np.int64))
        extra[c] = _natural_codes([labels], [codes])
    keep = np.ones(len(winner), dtype=bool) if bothbad == "tie" else winner != 3
    a, b, code = a[keep], b[keep], np.minimum(winner[keep], 2).astype(np.int8)
    (prompts, (prompt,)), (judges, (judge,)) = extra["prompt"], extra["judge"]
    prompt, judge = prompt[keep], judge[keep]
    order = _canonical_order([a, b, code, prompt, judge], [len(models), len(models), 3, len(prompts), len(judges)])
    return ArenaVerdicts(models=models, prompts=prompts, judges=judges, model_a=a[order], model_b=b[order],
                         winner=code[order], prompt=prompt[order], judge=judge[order], has_prompt=has["prompt"],
                         has_judge=has["judge"])


@dataclass(frozen=True)
class Cells:
    """Distinct (judge, lo, hi, outcome) of the verdicts: ``lo < hi`` model codes, outcome
    :data:`LO_WINS`, :data:`HI_WINS` or :data:`TIE`; ``judge`` is 0 everywhere unless the cells
    were built by judge. ``pair`` indexes the unordered pairs ``pair_lo < pair_hi``; ``names`` the
    models' names (for messages), or None. ``lo_first``: when the cells were built by presentation
    order, 1 where ``lo`` was shown first and 0 where ``hi`` was (a cell per order), else None."""

    n_models: int
    n_judges: int
    judge: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    outcome: np.ndarray
    pair: np.ndarray
    pair_lo: np.ndarray
    pair_hi: np.ndarray
    names: np.ndarray | None = None
    lo_first: np.ndarray | None = None

    @property
    def n_cells(self) -> int:
        return len(self.outcome)

    def pair_totals(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(lo, hi, lo_wins, hi_wins, ties)`` summed over judges per unordered pair, pairs without a
        verdict (total count 0) left out."""
        n_pairs = len(self.pair_lo)
        sums = [np.bincount(self.pair, weights=counts * (self.outcome == o), minlength=n_pairs)
                for o in (LO_WINS, HI_WINS, TIE)]
        keep = (sums[0] + sums[1] + sums[2]) > 0
        return self.pair_lo[keep], self.pair_hi[keep], sums[0][keep], sums[1][keep], sums[2][keep]

    def model_totals(self, counts: np.ndarray) -> np.ndarray:
        """Verdicts per model (each verdict counts for both its models)."""
        return (np.bincount(self.lo, weights=counts, minlength=self.n_models)
                + np.bincount(self.hi, weights=counts, minlength=self.n_models))

    def subset(self, present: np.ndarray, counts: np.ndarray) -> tuple[Cells, np.ndarray]:
        """The cells of the models in the boolean mask ``present`` (renumbered in order) with positive
        ``counts``, and those counts."""
        keep = (counts > 0) & present[self.lo] & present[self.hi]
        new = np.cumsum(present) - 1
        names = None if self.names is None else self.names[present]
        lo_first = None if self.lo_first is None else self.lo_first[keep]
        return cells_from_codes(new[self.lo[keep]], new[self.hi[keep]], self.outcome[keep], self.judge[keep],
                                int(present.sum()), self.n_judges, names, lo_first)[0], counts[keep]


def _dense_unique(key: np.ndarray, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` for keys in [0, n_keys): by one bincount when the key
    range is no larger than a few times the rows (no sort), else np.unique."""
    if n_keys > max(4 * len(key), 1 << 16):
        keys, inverse = np.unique(key, return_inverse=True)
        return keys, inverse.reshape(-1)
    present = np.bincount(key, minlength=n_keys) > 0
    return np.flatnonzero(present), (np.cumsum(present) - 1)[key]


def cells_from_codes(lo: np.ndarray, hi: np.ndarray, outcome: np.ndarray, judge: np.ndarray, n_models: int,
                     n_judges: int, names: np.ndarray | None = None, lo_first: np.ndarray | None = None
                     ) -> tuple[Cells, np.ndarray]:
    """:class:`Cells` of rows ``(judge, lo, hi, outcome)`` (and ``lo_first``, 1 where lo was shown
    first, when given), and each row's cell index."""
    key = ((judge * n_models + lo) * n_models + hi) * 3 + outcome
    n_orders = 1 if lo_first is None else 2
    if lo_first is not None:
        key = key * 2 + lo_first
    keys, cell_of_row = _dense_unique(key, n_judges * n_models * n_models * 3 * n_orders)
    first_c = None if lo_first is None else keys % 2
    keys = keys // n_orders
    outcome_c, rest = keys % 3, keys // 3
    hi_c, rest = rest % n_models, rest // n_models
    lo_c, judge_c = rest % n_models, rest // n_models
    pairs, pair = np.unique(lo_c * n_models + hi_c, return_inverse=True)
    cells = Cells(n_models=n_models, n_judges=n_judges, judge=judge_c, lo=lo_c, hi=hi_c, outcome=outcome_c,
                  pair=pair, pair_lo=pairs // n_models, pair_hi=pairs % n_models, names=names, lo_first=first_c)
    return cells, cell_of_row


def cell_table(data: ArenaVerdicts, by_judge: bool, by_order: bool = False) -> tuple[Cells, np.ndarray]:
    """The verdicts' cells (by judge when ``by_judge``, by presentation order when ``by_order``), and
    each verdict's cell index."""
    lo, hi = np.minimum(data.model_a, data.model_b), np.maximum(data.model_a, data.model_b)
    a_is_lo = data.model_a == lo
    outcome = np.where(data.winner == 2, TIE, np.where((data.winner == 0) == a_is_lo, LO_WINS, HI_WINS))
    judge = data.judge if by_judge else np.zeros_like(data.judge)
    return cells_from_codes(lo, hi, outcome, judge, data.n_models, len(data.judges) if by_judge else 1, data.models,
                            a_is_lo.astype(np.int64) if by_order else None)


def unit_matrix(data: ArenaVerdicts, cell_of_verdict: np.ndarray, n_cells: int, resample: str,
                weights: np.ndarray | None = None) -> sparse.csr_matrix:
    """(cells, units) sparse matrix of verdict counts (each verdict counting ``weights``, default 1): a
    replicate's cell counts are this matrix times the units' multiplicities. Units: the verdicts
    (canonical order), the prompts or the judges (natural order)."""
    if resample not in RESAMPLE_UNITS:
        raise ValueError(f"resample must be one of {', '.join(RESAMPLE_UNITS)}, got {resample!r}")
    if resample == "prompts" and not data.has_prompt:
        raise ValueError("resample='prompts' needs a prompt column in the verdicts")
    if resample == "judges" and not data.has_judge:
        raise ValueError("resample='judges' needs a judge column in the verdicts")
    unit = {"verdicts": np.arange(data.n_verdicts), "prompts": data.prompt, "judges": data.judge}[resample]
    n_units = {"verdicts": data.n_verdicts, "prompts": len(data.prompts), "judges": len(data.judges)}[resample]
    ones = np.ones(data.n_verdicts) if weights is None else np.asarray(weights, dtype=float)
    return sparse.csr_matrix((ones, (cell_of_verdict, unit)), shape=(n_cells, n_units))
