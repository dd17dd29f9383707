"""What an arena leaderboard's fit needs to take more verdicts: a state saved, loaded and resumed.

A :class:`LeaderboardState` holds the method, its parameters and the ``bothbad`` rule; the models',
prompts' and judges' names (natural order); the method's counted cells
(:func:`~manyjudges.arena.leaderboard.cells._cell_table`) and their counts; each model's verdicts; the fit of the
data (scores and ``extra``, the warm start of the next fit); and, when the fit had a bootstrap or its
rating weighs each verdict by all of them (``judge_aware``'s clusters), the verdicts as codes (the
bootstrap's units, canonical order: :class:`~manyjudges.arena.verdict_codes.ArenaVerdicts`).

Resuming (:func:`_merge_state`) codes only the new verdicts, counts only their cells, and adds them to the
saved cells after renaming both onto the union of the names in natural order (so codes, cells and
canonical order are those of a one-pass fit of all the verdicts). The refit of a method in
:data:`_WARM_STARTED` starts from the saved fit (:func:`_warm_start`: a new model at score 0) and ends at
the one minimum of its convex objective, the one-pass fit's to the solver's tolerance. ``elo`` is
computed from the cells (each pair's win share, replayed in a seeded round order), so it is refitted
from the merged cells and equals one pass exactly. ``crowd_bt`` and ``judge_aware`` are not convex in
the judges' skills and have several local minima: started from the saved fit, Newton may end in
another minimum than one pass (docs/methods.md, the incremental fit), so they refit from one pass's
own start (the Bradley-Terry scores, ``eta_init``); that equals one pass but is not faster than it:
only the reading, coding and counting are saved. Without the verdicts, resuming takes a time that
grows with the new verdicts, the names and the cells, not with the old verdicts. With them, the old
and new verdicts' codes are merged (a sort of integer keys over all of them) so that a bootstrap after
resuming draws the same units in the same order as one pass and its intervals are the one-pass
intervals; ``judge_aware`` with ``clusters`` recomputes its judges' weights over all the verdicts (they
depend on every verdict), so its cells are recounted. A state without the verdicts cannot be resumed
with a bootstrap.

The file is one ``numpy.savez_compressed`` archive read with ``allow_pickle=False``: integer and float
arrays, and one JSON text (:data:`_STATE_FORMAT`, method, parameters, names). No pickle.
"""
from __future__ import annotations

import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from manyjudges.arena.leaderboard.ratings import ArenaRating, RatingFit
from manyjudges.arena.verdict_codes import ArenaVerdicts, arena_verdicts
from manyjudges.core.natural_order import natural_sort
from manyjudges.core.pairwise.cells import TIE, Cells, cells_from_codes

__all__ = ["LeaderboardState"]

#: the name and version written in every state file's JSON
_STATE_FORMAT = "manyjudges leaderboard state 1"
#: the methods whose refit starts from the saved fit: their objectives are strictly convex (one minimum), so a
#: warm start ends where one pass ends; the others refit from one pass's own start (module docstring)
_WARM_STARTED = ("bradley_terry", "davidson")
_VERDICT_ARRAYS = ("model_a", "model_b", "winner", "prompt", "judge")
_CELL_ARRAYS = ("judge", "lo", "hi", "outcome")


def _jsonable_params(rating: ArenaRating) -> dict[str, Any]:
    """Return ``rating.get_params()`` as JSON reads it back (tuples as lists, numpy scalars as numbers).

    A parameter JSON cannot write is a ValueError.
    """
    def plain(value: Any) -> Any:
        if isinstance(value, np.generic):
            return value.item()
        raise TypeError(f"{type(value).__name__} is not JSON")
    try:
        return dict(json.loads(json.dumps(rating.get_params(), default=plain, sort_keys=True)))
    except TypeError as err:
        raise ValueError(f"the parameters of {rating.name} cannot be saved in a state: {err}") from None


@dataclass(frozen=True)
class LeaderboardState:
    """What a leaderboard's fit needs to take more verdicts (module docstring).

    Attributes
    ----------
    method : str
        The rating's name (``RatingFit`` of :data:`~manyjudges.arena.leaderboard.estimator.LEADERBOARD_METHODS`).
    params : dict
        The rating's parameters (:func:`_jsonable_params`).
    bothbad : str
        What ``tie (bothbad)`` was (``tie`` or ``drop``).
    data : ArenaVerdicts
        The verdicts as codes, canonical order.
    cells : Cells
        The method's cells of ``data``.
    counts : numpy.ndarray
        Each cell's count (its verdicts' summed weights).
    fit : RatingFit
        The fit of the counts (the raw scores, not centred, and ``extra``).
    model_verdicts : numpy.ndarray of int
        Per model, the verdicts it is in (the leaderboard's ``verdicts`` column).
    units : bool
        Whether ``data`` holds the verdicts (True) or only the names (no rows: a state kept without its
        verdicts, which a bootstrap cannot resume).
    """

    method: str
    params: dict[str, Any]
    bothbad: str
    data: ArenaVerdicts
    cells: Cells
    counts: np.ndarray
    fit: RatingFit
    model_verdicts: np.ndarray
    units: bool = True

    def check_same(self, rating: ArenaRating, bothbad: str, where: str = "the state") -> None:
        """Raise a ValueError unless the state was fitted by ``rating``'s method and parameters and ``bothbad``."""
        mine = (self.method, self.params, self.bothbad)
        theirs = (rating.name, _jsonable_params(rating), bothbad)
        if mine != theirs:
            raise ValueError(f"{where} was fitted by {self.method} with parameters {json.dumps(self.params)} and "
                             f"bothbad {self.bothbad}, not {rating.name} with {json.dumps(theirs[1])} and bothbad "
                             f"{bothbad}: resume with the same method, parameters and bothbad, or fit all the "
                             "verdicts in one pass")

    def save(self, path: str | Path) -> None:
        """Write the state to ``path`` (an ``.npz`` archive, module docstring); written whole or not at all."""
        meta = {"format": _STATE_FORMAT, "method": self.method, "params": self.params, "bothbad": self.bothbad,
                "models": [str(m) for m in self.data.models], "prompts": [str(p) for p in self.data.prompts],
                "judges": [str(j) for j in self.data.judges], "has_prompt": bool(self.data.has_prompt),
                "has_judge": bool(self.data.has_judge), "has_extra": self.fit.extra is not None,
                "by_order": self.cells.lo_first is not None, "by_judge": self.cells.n_judges > 1,
                "units": bool(self.units)}
        arrays = {f"verdict_{k}": np.asarray(getattr(self.data, k)) for k in _VERDICT_ARRAYS}
        arrays |= {f"cell_{k}": np.asarray(getattr(self.cells, k)) for k in _CELL_ARRAYS}
        if self.cells.lo_first is not None:
            arrays["cell_lo_first"] = np.asarray(self.cells.lo_first)
        arrays |= {"counts": self.counts, "scores": self.fit.scores, "model_verdicts": self.model_verdicts,
                   "extra": np.zeros(0) if self.fit.extra is None else self.fit.extra,
                   "meta": np.asarray(json.dumps(meta))}
        path = Path(path)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent or ".")
        try:
            with os.fdopen(handle, "wb") as out:
                np.savez_compressed(out, **arrays)  # type: ignore[arg-type]
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)  # as an ordinary new file, not mkstemp's 0600
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | Path) -> LeaderboardState:
        """Read a state :meth:`save` wrote; anything else is a ValueError naming the file and what is wrong."""
        try:
            with np.load(path, allow_pickle=False) as archive:
                arrays = {name: archive[name] for name in archive.files}
            meta = json.loads(str(arrays["meta"]))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
            raise ValueError(f"{path}: not a leaderboard state ({type(err).__name__}: {err})") from None
        if not isinstance(meta, dict) or meta.get("format") != _STATE_FORMAT:
            found = meta.get("format") if isinstance(meta, dict) else meta
            raise ValueError(f"{path}: not a leaderboard state of this version (format {found!r}, "
                             f"expected {_STATE_FORMAT!r})")
        try:
            return _state_of(meta, arrays)
        except (KeyError, IndexError, ValueError) as err:
            raise ValueError(f"{path}: a damaged leaderboard state ({type(err).__name__}: {err})") from None


def _names(values: list[str]) -> np.ndarray:
    return np.asarray(values, dtype=object)


def _state_of(meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> LeaderboardState:
    """Return the state of a file's JSON and arrays (:meth:`LeaderboardState.load`)."""
    models, prompts, judges = (_names(meta[k]) for k in ("models", "prompts", "judges"))
    v = {k: np.asarray(arrays[f"verdict_{k}"]) for k in _VERDICT_ARRAYS}
    data = ArenaVerdicts(models=models, prompts=prompts, judges=judges, model_a=v["model_a"].astype(np.int64),
                         model_b=v["model_b"].astype(np.int64), winner=v["winner"].astype(np.int8),
                         prompt=v["prompt"].astype(np.int64), judge=v["judge"].astype(np.int64),
                         has_prompt=bool(meta["has_prompt"]), has_judge=bool(meta["has_judge"]))
    for k in ("model_a", "model_b"):
        if len(v[k]) and (v[k].min() < 0 or v[k].max() >= len(models)):
            raise ValueError(f"a {k} code outside the {len(models)} models")
    c = {k: np.asarray(arrays[f"cell_{k}"]).astype(np.int64) for k in _CELL_ARRAYS}
    lo_first = np.asarray(arrays["cell_lo_first"]).astype(np.int64) if meta["by_order"] else None
    n_judges = len(judges) if meta["by_judge"] else 1
    for k, top in (("judge", n_judges), ("lo", len(models)), ("hi", len(models)), ("outcome", 3)):
        if len(c[k]) and (c[k].min() < 0 or c[k].max() >= top):
            raise ValueError(f"a cell's {k} code outside 0..{top - 1}")
    cells, row = cells_from_codes(c["lo"], c["hi"], c["outcome"], c["judge"], len(models), n_judges, models,
                                  lo_first)
    counts = np.bincount(row, weights=np.asarray(arrays["counts"], dtype=float), minlength=cells.n_cells)
    extra = np.asarray(arrays["extra"], dtype=float) if meta["has_extra"] else None
    model_verdicts = np.asarray(arrays["model_verdicts"]).astype(np.int64)
    if len(model_verdicts) != len(models):
        raise ValueError(f"{len(model_verdicts)} verdict counts for {len(models)} models")
    return LeaderboardState(method=str(meta["method"]), params=dict(meta["params"]), bothbad=str(meta["bothbad"]),
                            data=data, cells=cells, counts=counts,
                            fit=RatingFit(np.asarray(arrays["scores"], dtype=float), extra),
                            model_verdicts=model_verdicts, units=bool(meta["units"]))


def _union(old: np.ndarray, new: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the names of ``old`` and ``new`` together in natural order, and each one's codes into them."""
    names = np.asarray(natural_sort(set(map(str, old)) | set(map(str, new))), dtype=object)
    lookup = {name: i for i, name in enumerate(names)}
    return (names, np.array([lookup[str(x)] for x in old], dtype=np.int64),
            np.array([lookup[str(x)] for x in new], dtype=np.int64))


@dataclass(frozen=True)
class Renaming:
    """The codes of a saved state's and of new verdicts' models, prompts and judges into their union."""

    models: np.ndarray
    prompts: np.ndarray
    judges: np.ndarray
    old: tuple[np.ndarray, np.ndarray, np.ndarray]
    new: tuple[np.ndarray, np.ndarray, np.ndarray]


def _renaming(old: ArenaVerdicts, new: ArenaVerdicts) -> Renaming:
    """Return the union of the names of ``old`` and ``new`` in natural order and the codes of each into it."""
    if (old.has_prompt, old.has_judge) != (new.has_prompt, new.has_judge):
        said = {True: "a", False: "no"}
        raise ValueError(f"the state's verdicts have {said[old.has_prompt]} prompt column and {said[old.has_judge]} "
                         f"judge column, the new ones {said[new.has_prompt]} prompt column and {said[new.has_judge]} "
                         "judge column: give the new verdicts the same columns")
    (models, m_old, m_new), (prompts, p_old, p_new), (judges, j_old, j_new) = (
        _union(getattr(old, k), getattr(new, k)) for k in ("models", "prompts", "judges"))
    return Renaming(models, prompts, judges, (m_old, p_old, j_old), (m_new, p_new, j_new))


def _names_only(models: np.ndarray, prompts: np.ndarray, judges: np.ndarray, has_prompt: bool, has_judge: bool
               ) -> ArenaVerdicts:
    """Return :class:`ArenaVerdicts` of the names without verdicts (a state kept without its verdicts)."""
    empty = np.zeros(0, dtype=np.int64)
    return ArenaVerdicts(models=models, prompts=prompts, judges=judges, model_a=empty, model_b=empty,
                         winner=np.zeros(0, dtype=np.int8), prompt=empty, judge=empty, has_prompt=has_prompt,
                         has_judge=has_judge)


def _renamed_verdicts(names: Renaming, old: ArenaVerdicts, new: ArenaVerdicts) -> ArenaVerdicts:
    """Return the verdicts of ``old`` and ``new`` together, coded on ``names``, in canonical order."""
    (m_old, p_old, j_old), (m_new, p_new, j_new) = names.old, names.new
    a = np.concatenate([m_old[old.model_a], m_new[new.model_a]])
    b = np.concatenate([m_old[old.model_b], m_new[new.model_b]])
    winner = np.concatenate([old.winner, new.winner]).astype(np.int64)
    prompt = np.concatenate([p_old[old.prompt], p_new[new.prompt]])
    judge = np.concatenate([j_old[old.judge], j_new[new.judge]])
    return arena_verdicts(names.models, a, b, winner, (names.prompts, prompt), (names.judges, judge), "tie",
                          has_prompt=old.has_prompt, has_judge=old.has_judge)


def _renamed_cells(cells: Cells, model_code: np.ndarray, judge_code: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Return ``(judge, lo, hi, outcome, lo_first)`` of cells renamed by ``model_code`` (and ``judge_code``).

    A pair whose models change order swaps its lower and higher model, its outcome and its presentation order.
    """
    lo, hi = model_code[cells.lo], model_code[cells.hi]
    swap = lo > hi
    outcome = np.where(swap & (cells.outcome != TIE), 1 - cells.outcome, cells.outcome)
    lo_first = None if cells.lo_first is None else np.where(swap, 1 - cells.lo_first, cells.lo_first)
    judge = cells.judge if judge_code is None else judge_code[cells.judge]
    return judge, np.minimum(lo, hi), np.maximum(lo, hi), outcome, lo_first


def _merge_state(state: LeaderboardState, new: ArenaVerdicts, new_cells: Cells, new_counts: np.ndarray,
                by_judge: bool) -> tuple[ArenaVerdicts, Cells, np.ndarray, Renaming, np.ndarray]:
    """Return the verdicts, cells, counts, renaming and each model's verdicts of ``state`` and ``new`` together.

    The verdicts are those of both when the state holds its verdicts (``units``), else only the names.
    ``new_cells`` and ``new_counts`` are the new verdicts' own cells (coded on ``new``'s names); both sides are
    renamed onto the union of the names (natural order) and their counts added cell by cell; ``by_judge``: the
    cells are by judge (the method's ``by_judge``).
    """
    names = _renaming(state.data, new)
    data = (_renamed_verdicts(names, state.data, new) if state.units else
            _names_only(names.models, names.prompts, names.judges, new.has_prompt, new.has_judge))
    n = len(names.models)
    model_verdicts = (np.bincount(names.old[0], weights=state.model_verdicts, minlength=n)
                      + np.bincount(names.new[0][new.model_a], minlength=n)
                      + np.bincount(names.new[0][new.model_b], minlength=n)).astype(np.int64)
    rows = [_renamed_cells(state.cells, names.old[0], names.old[2] if by_judge else None),
            _renamed_cells(new_cells, names.new[0], names.new[2] if by_judge else None)]
    lo_first = None if rows[0][4] is None else np.concatenate([r[4] for r in rows])  # type: ignore[misc]
    judge, lo, hi, outcome = (np.concatenate([r[k] for r in rows]) for k in range(4))
    n_judges = len(names.judges) if by_judge else 1
    cells, row = cells_from_codes(lo, hi, outcome, judge, len(names.models), n_judges, names.models, lo_first)
    counts = np.bincount(row, weights=np.concatenate([state.counts, new_counts]), minlength=cells.n_cells)
    return data, cells, counts, names, model_verdicts


def _warm_start(fit: RatingFit, names: Renaming) -> RatingFit:
    """Return the saved fit on the union's codes, a new model at score 0 (``extra`` kept: Davidson's tie parameter)."""
    scores = np.zeros(len(names.models))
    scores[names.old[0]] = fit.scores
    return RatingFit(scores, fit.extra)


def _state_of_fit(rating: ArenaRating, bothbad: str, data: ArenaVerdicts, counted: tuple[Cells, np.ndarray],
                 fit: RatingFit, kept: tuple[np.ndarray, bool]) -> LeaderboardState | None:
    """Return a leaderboard's ``state_`` (None when the rating's parameters cannot be written as JSON).

    ``kept``: each model's verdicts, and whether the state keeps the verdicts (else only their names).
    """
    try:
        params = _jsonable_params(rating)
    except ValueError:
        return None
    if not kept[1]:
        data = _names_only(data.models, data.prompts, data.judges, data.has_prompt, data.has_judge)
    return LeaderboardState(rating.name, params, bothbad, data, *counted, fit, np.asarray(kept[0], dtype=np.int64),
                            kept[1])


def _check_without_units(rating: ArenaRating, new: ArenaVerdicts, n_bootstrap: int) -> None:
    """Refuse to resume a state kept without its verdicts for a bootstrap, or for a rating that weighs verdicts."""
    if n_bootstrap:
        raise ValueError("the state was kept without its verdicts (fitted without a bootstrap), and a bootstrap "
                         "resamples every verdict: resume without a bootstrap, or save the first state from a "
                         "fit with a bootstrap (it keeps the verdicts)")
    if rating.verdict_weights(new) is not None:
        raise ValueError(f"{rating.name} weighs each verdict by all the verdicts, and the state was kept without "
                         "them: save the first state from a fit with a bootstrap (it keeps the verdicts)")
