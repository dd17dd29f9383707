"""Evaluation protocols for graded predictors (Wilbur and Kim, eqs. 5-7 and Table 3).

Cross induction: for each test judge k, Phi_k* = the method's ``fit`` on the panel without
k (which predicts each remaining judge from the others), then S(k) = sum over k's labels
of log P(z_k | M(Phi_k*), J - {k}). Single parameter: one value of the method's single
parameter for every k, chosen to maximise sum_k S(k) directly (the paper's Table 1/3).

Every held-out judge is scored on the items they labelled; ``n_items`` says how many.
``outer_folds`` groups the test judges (``None``: one fold per judge, as in the paper) for
large crowd panels: the judges of a fold are held out together.

A chosen parameter on an edge of its search range (the method's ``parameters_at_bound``;
in the single-parameter protocol, the single parameter at a bound of its range) is logged as
a warning naming the judges, and ``at_bound`` is True in its parameter rows. A fold in which
an iterative fit (an optimiser or EM run) stopped on its iteration cap instead of its stop
rule (:meth:`~manyjudges.graded.base.GradedMethod.record_fit`) is logged the same way, and
``converged`` is False in its judges' parameter rows.

Minimum panel (:func:`panel_problem`): every method chooses its parameters by predicting
each training judge from the other training judges, so at least 2 judges must remain when
the test judges of a fold are held out: a panel needs the largest fold + 2 judges with
labels (3 without ``outer_folds``), and a test judge (``min_labels`` labels or more).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from manyjudges.graded.base import GradedMethod, bound_reached, log_probability, maximise_scalar
from manyjudges.graded.panel import GradedPanel, judge_groups

log = logging.getLogger(__name__)

PROTOCOLS = ("cross_induction", "single_parameter")
PARAMETER_ROW_COLUMNS = ["judge", "parameter", "value", "at_bound", "converged"]
#: judges named in a warning before the rest are only counted
NAMED_JUDGES = 20
#: judges a method's parameters are chosen on: each is predicted from the others, so 2 at least
MIN_TRAINING_JUDGES = 2


@dataclass(frozen=True)
class ProtocolResult:
    """Per-label predictions (judge, item, label, p_true) and chosen parameters per judge."""

    predictions: pd.DataFrame
    parameters: pd.DataFrame


def held_out_judges(panel: GradedPanel, min_labels: int = 1) -> np.ndarray:
    """Judges with at least ``min_labels`` labels (the ones held out and scored)."""
    if panel.n_entries == 0:
        raise ValueError("empty panel: no labels")
    judges = np.flatnonzero(panel.labels_per_judge() >= min_labels)
    if len(judges) == 0:
        raise ValueError(f"no judge has at least {min_labels} labels")
    return judges


def too_few_judges(n_judges: int, held_out: int = 1) -> str | None:
    """Return why ``n_judges`` judges with labels are too few when ``held_out`` are held out at a time, or None.

    ``held_out`` 0 is a plain fit. Needed: ``held_out + 2`` (:data:`MIN_TRAINING_JUDGES`).
    """
    needed = held_out + MIN_TRAINING_JUDGES
    if n_judges >= needed:
        return None
    held = f"cross induction holds out {held_out} at a time and " if held_out else ""
    return (f"a graded panel needs at least {needed} judges with labels ({held}every method chooses its parameters "
            f"by predicting each remaining judge from the others, so at least {MIN_TRAINING_JUDGES} must remain); "
            f"this one has {n_judges}")


def panel_problem(labels_per_judge, min_labels: int = 1, outer_folds: int | None = None) -> str | None:
    """Why cross induction cannot run on a panel with these label counts per judge, or None.

    The test judges are those with at least ``min_labels`` labels (there must be one),
    held out one at a time or in ``outer_folds`` groups; see :func:`too_few_judges`.
    """
    counts = np.asarray(labels_per_judge)
    counts = counts[counts > 0]
    test = np.flatnonzero(counts >= min_labels)
    if len(test) == 0:
        return (f"no judge has at least {min_labels} labels (min_labels_per_judge), so none can be held out and "
                f"scored; the most any of its {len(counts)} judges has is {int(counts.max(initial=0))}")
    return too_few_judges(len(counts), max(len(g) for g in judge_groups(test, outer_folds)))


def _check_groups(panel: GradedPanel, groups: list[np.ndarray]) -> None:
    problem = too_few_judges(len(panel.judges_present()), max(len(g) for g in groups))
    if problem:
        raise ValueError(problem)


def _prediction_rows(panel: GradedPanel, group: np.ndarray, proba: np.ndarray) -> pd.DataFrame:
    held = panel.of(group)
    if not np.allclose(proba.sum(1), 1.0, atol=1e-8):
        raise ValueError("a predictor returned probabilities that do not sum to 1")
    return pd.DataFrame({
        "judge": np.asarray(panel.judge_ids, dtype=object)[held.judge] if panel.judge_ids else held.judge,
        "item": np.asarray(panel.item_ids, dtype=object)[held.item] if panel.item_ids else held.item,
        "label": held.label,
        "p_true": proba[held.item, held.label],
    })


def _scalar_parameters(params: dict) -> dict[str, float]:
    return {k: float(v) for k, v in params.items() if np.ndim(v) == 0}


def _judge_id(panel: GradedPanel, j: int):
    return panel.judge_ids[j] if panel.judge_ids else j


def _warn_at_bound(method: GradedMethod, at_bound: dict[tuple[str, str, float], list], n_judges: int) -> None:
    """One warning per (parameter, bound) reached, naming the judges it was chosen for."""
    for (name, side, bound), judges in at_bound.items():
        named = ", ".join(str(j) for j in judges[:NAMED_JUDGES])
        more = f" and {len(judges) - NAMED_JUDGES} more" if len(judges) > NAMED_JUDGES else ""
        log.warning("%s: %s chosen at the %s bound %g of its search range for %d of %d held-out judges (%s%s); "
                    "the best value may lie beyond it", method.name, name, side, bound, len(judges), n_judges,
                    named, more)


def _warn_capped(method: GradedMethod, capped: list, fits: int, capped_fits: int, n_judges: int) -> None:
    """One warning naming the held-out judges whose fold had a fit stop on its iteration cap."""
    if not capped:
        return
    named = ", ".join(str(j) for j in capped[:NAMED_JUDGES])
    more = f" and {len(capped) - NAMED_JUDGES} more" if len(capped) > NAMED_JUDGES else ""
    log.warning("%s: %d of %d iterative fits stopped on their iteration cap before their stop rule, in the folds of "
                "%d of %d held-out judges (%s%s); their parameters are marked converged = False", method.name,
                capped_fits, fits, len(capped), n_judges, named, more)


def cross_induction(method: GradedMethod, panel: GradedPanel, judges: np.ndarray | None = None,
                    outer_folds: int | None = None, groups: list[np.ndarray] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> ProtocolResult:
    """Rigorous cross induction: parameters fitted without the test judge(s), then predict them.

    ``judges``: the test judges (default: every judge with a label). ``groups`` (judges held
    out together) overrides ``judges`` and ``outer_folds``. ``progress(done, total)`` is called
    after each fold.
    """
    rows, params_rows = [], []
    judges = held_out_judges(panel) if judges is None and groups is None else judges
    groups = judge_groups(np.asarray(judges), outer_folds) if groups is None else groups
    if not groups:
        return ProtocolResult(pd.DataFrame(columns=["judge", "item", "label", "p_true"]),
                              pd.DataFrame(columns=PARAMETER_ROW_COLUMNS))
    _check_groups(panel, groups)
    at_bound: dict[tuple[str, str, float], list] = {}
    capped: list = []
    fits = capped_fits = 0
    start = time.perf_counter()
    for n, group in enumerate(groups, 1):
        train = panel.without(group)
        method.fit(train)
        params, proba = method.parameters_, method.predict_proba()
        edges = method.parameters_at_bound(params) if hasattr(method, "parameters_at_bound") else {}
        converged = bool(getattr(method, "converged_", True))
        fits += getattr(method, "fits_", 0)
        capped_fits += getattr(method, "capped_fits_", 0)
        rows.append(_prediction_rows(panel, group, proba))
        for name, edge in edges.items():
            at_bound.setdefault((name, *edge), []).extend(_judge_id(panel, j) for j in group)
        if not converged:
            capped.extend(_judge_id(panel, j) for j in group)
        for j in group:
            for name, value in _scalar_parameters(params).items():
                params_rows.append({"judge": _judge_id(panel, j), "parameter": name, "value": value,
                                    "at_bound": name in edges, "converged": converged})
        log.info("%s cross induction: fold %d/%d done (%.1f s)", method.name, n, len(groups),
                 time.perf_counter() - start)
        if progress is not None:
            progress(n, len(groups))
    _warn_at_bound(method, at_bound, sum(len(g) for g in groups))
    _warn_capped(method, capped, fits, capped_fits, sum(len(g) for g in groups))
    return ProtocolResult(pd.concat(rows, ignore_index=True), pd.DataFrame(params_rows, columns=PARAMETER_ROW_COLUMNS))


def single_parameter(method: GradedMethod, panel: GradedPanel, judges: np.ndarray | None = None,
                     outer_folds: int | None = None) -> ProtocolResult:
    """Run the single-parameter protocol: one value of the parameter for every test judge, maximising sum_k S(k).

    The test judges are by default every judge with a label.
    """
    name = method.single_parameter
    judges = held_out_judges(panel) if judges is None else judges
    if name is None:
        raise ValueError(f"method {method.name!r} has no single parameter")
    groups = judge_groups(np.asarray(judges), outer_folds)
    _check_groups(panel, groups)
    if hasattr(method, "reset_fit_record"):
        method.reset_fit_record()
    states = [(group, panel.of(group), method.prepare(panel.without(group))) for group in groups]

    def total(value: float) -> float:
        out = 0.0
        for _, held, state in states:
            proba = method.predict(state, {name: value})
            out += float(log_probability(proba[held.item, held.label]).sum())
        log.info("%s single parameter: %s = %.6g gives %.3f", method.name, name, value, out)
        return out

    best, _ = maximise_scalar(total, method.single_parameter_grid(), method.single_parameter_scale,
                              method.single_parameter_refinements, method.single_parameter_refine)
    rows = [_prediction_rows(panel, group, method.predict(state, {name: best})) for group, _, state in states]
    edge = bound_reached(best, method.single_parameter_bounds)
    judges_held = [_judge_id(panel, j) for group in groups for j in group]
    if edge:
        _warn_at_bound(method, {(name, *edge): judges_held}, len(judges_held))
    converged = bool(getattr(method, "converged_", True))
    if not converged:
        _warn_capped(method, judges_held, getattr(method, "fits_", 0), getattr(method, "capped_fits_", 0),
                     len(judges_held))
    params_rows = [{"judge": j, "parameter": name, "value": best, "at_bound": edge is not None,
                    "converged": converged} for j in judges_held]
    return ProtocolResult(pd.concat(rows, ignore_index=True), pd.DataFrame(params_rows, columns=PARAMETER_ROW_COLUMNS))


def loglik_by_judge(predictions: pd.DataFrame) -> pd.DataFrame:
    """S(k) = sum of log P(true label) per judge, with the number of labels scored."""
    logp = log_probability(predictions["p_true"].to_numpy(dtype=float))
    out = (predictions.assign(logp=logp).groupby("judge", sort=False)
           .agg(loglik=("logp", "sum"), n_items=("logp", "size")).reset_index())
    return out
