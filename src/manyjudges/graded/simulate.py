"""``sim_medline``: a simulated panel shaped like Wilbur and Kim's (unpublished) MEDLINE judgments.

100 queries x 50 documents = 5000 (query, document) pairs, 13 judges (7 "trained",
6 "untrained"), labels 0..4 (docs/methods.md, section 7.2). Each pair has a latent relevance
x = a_q + e (a query effect and a document effect, both normal). Judge j sees
y = x + sigma_j eps and gives the number of its thresholds below y; the thresholds are
a common ladder, shifted by a judge bias and stretched by a judge spacing. Untrained judges
are noisier, and the configured "hard" judges (the paper's 0 and 12, predicted worse than
uniform by most methods) are much noisier and biased.

Two calibrations, both against M1's cross-induction log probability S(j) (Wilbur and Kim, Table 2):

- ``target_m1_ave``: one global noise scale s (sigma_j = s noise_j), found by bisection so that
  the average of S(j) over the judges matches a target (the paper's -7433);
- ``target_m1_by_judge``: one target per judge (the paper's Table 2 M1 row, read from
  ``resources/paper_values.tsv``, or a list). Each judge moves along one path, from least to most
  predictable: at noise :data:`NOISE_CEILING` the weight w of the latent relevance in what it sees
  (y = w x + sigma_j eps) rises from :data:`MIN_WEIGHT` (w < 0: relevance read backwards) to 1;
  then its noise falls to :data:`NOISE_PIVOT` with its own thresholds; then, at that noise, its
  thresholds move to the common ladder (``agreement`` 0 -> 1); then its noise falls on to
  :data:`NOISE_FLOOR`. The hard judges keep their extra bias; the ``hard_noise`` and ``noise_scale``
  only set where the judges start. S(j) depends mostly on judge j's own labels, so the judges are
  calibrated in turn (Gauss-Seidel sweeps): judge j's M1 prediction is fitted on the others as
  they stand, and the place on its path where S(j) crosses the target nearest its current place
  is found (a grid, then bisection); a judge already within the tolerance is left where it is,
  and the sweeps stop when a sweep moves nobody.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.random_streams import rng_for
from manyjudges.graded.panel import GradedPanel

log = logging.getLogger(__name__)

#: The data caveat the graded report prints under a simulated dataset.
REPORT_NOTE = (
    "Stands in for the paper's 13-judge MEDLINE panel, which is not public. The simulation is calibrated to the "
    "paper's M1 values (each judge's, or their average: the line below says which), so those match by "
    "construction; every other number comes out of the simulation: the ordering of methods, the scale and the "
    "per-judge correlations with the paper say how far the panel resembles theirs, and no other value is a "
    "reproduction of one of their judges."
)
#: the spec keys :func:`simulate_medline_panel` takes (besides the seed)
SPEC_KEYS = ("n_queries", "docs_per_query", "n_judges", "n_trained", "n_classes", "hard_judges", "hard_noise",
             "hard_bias", "target_m1_ave", "noise_scale", "target_m1_by_judge", "calibration_tolerance")
#: the targets are per this many labels of a judge (the paper's 5000 pairs), rescaled to the panel's items
LABELS_PER_TARGET = 5000
#: ``target_m1_by_judge`` names: per-judge M1 targets read from resources/paper_values.tsv
#: (paper, table, protocol, method)
PAPER_TARGETS = {"wilbur2011_table2": ("wilbur2011", "2", "cross_induction", "m1")}
#: largest accepted |S(j) - target| / |target| of the per-judge calibration (the config's default)
CALIBRATION_TOLERANCE = 2e-4
#: at most this many Gauss-Seidel sweeps over the judges
CALIBRATION_SWEEPS = 40
#: a judge's S(j) is evaluated at this many points along its path (steps of about 0.25: a factor
#: 1.28 in noise), then the step crossing the target is bisected in :data:`PATH_STEPS` halvings
PATH_GRID = 49
PATH_STEPS = 20
#: the noisiest point of a judge's path (the latent relevance has standard deviation about 1.2).
#: Far noisier judges give almost only labels 0 and K - 1, and a panel of them is predictable again
#: (S(j) is not monotone in the noise there); beyond this a judge is made less predictable by
#: weighting the latent relevance less, down to :data:`MIN_WEIGHT`.
NOISE_CEILING = 4.0
#: the least weight of the latent relevance in what a judge sees. M1's smoothing (tau times the
#: prior) bounds how badly it predicts a judge who merely ignores relevance (w = 0); a target below
#: that bound (far worse than uniform) needs a judge who reads relevance partly backwards (w < 0)
MIN_WEIGHT = -1.0
#: the noise at which a judge's thresholds move to the common ladder
NOISE_PIVOT = 0.5
#: the least noisy end of a judge's path
NOISE_FLOOR = 1e-3


@dataclass(frozen=True)
class JudgeCalibration:
    """Calibration of a simulated panel's judges, per judge, and the sweeps run.

    Per judge: the noise sigma_j, the ``agreement`` (0: its own thresholds, 1: the common
    ladder), the relevance ``weight`` w (y = w x + sigma_j eps), the M1 target and the S(j)
    reached (both for this panel's size).
    """

    noise: np.ndarray
    agreement: np.ndarray
    weight: np.ndarray
    target: np.ndarray
    reached: np.ndarray
    sweeps: int

    @property
    def relative_error(self) -> np.ndarray:
        """Per judge, |reached - target| / |target|."""
        return np.abs(self.reached - self.target) / np.abs(self.target)


def paper_m1_targets(name: str) -> np.ndarray:
    """Return the per-judge M1 log probabilities a ``target_m1_by_judge`` name stands for, judge 0, 1, ...

    They are per 5000 labels, read from resources/paper_values.tsv.
    """
    from manyjudges.reporting.paper_values import paper_values

    if name not in PAPER_TARGETS:
        raise ValueError(f"target_m1_by_judge: unknown name {name!r}; known: {', '.join(PAPER_TARGETS)} "
                         "(or give a list of numbers, one per judge)")
    paper, table, protocol, method = PAPER_TARGETS[name]
    rows = paper_values(paper)
    rows = rows[(rows["table"] == table) & (rows["protocol"] == protocol) & (rows["method"] == method)
                & (rows["statistic"] == "loglik")]
    by_judge = {int(j): float(v) for j, v in zip(rows["judge"], rows["paper_value"])
                if isinstance(j, float) and not np.isnan(j)}
    if sorted(by_judge) != list(range(len(by_judge))) or not by_judge:
        raise ValueError(f"paper_values.tsv: {paper} table {table} {method} has judges {sorted(by_judge)}, not 0..n-1")
    return np.array([by_judge[j] for j in range(len(by_judge))])


def m1_targets(target_m1_by_judge: str | Sequence[float], n_judges: int) -> np.ndarray:
    """Return the per-judge M1 targets (per 5000 labels) of a ``target_m1_by_judge`` value.

    They are checked against the panel's number of judges.
    """
    if isinstance(target_m1_by_judge, str):
        targets = paper_m1_targets(target_m1_by_judge)
        where = f"{target_m1_by_judge!r} has {len(targets)} judges"
    else:
        targets = np.asarray(target_m1_by_judge, dtype=float)
        where = f"the list has {len(targets)} values"
        if targets.ndim != 1 or not np.all(np.isfinite(targets)) or np.any(targets >= 0):
            raise ValueError("target_m1_by_judge: the values must be negative numbers (log probabilities), "
                             f"got {list(target_m1_by_judge)}")
    if len(targets) != n_judges:
        raise ValueError(f"target_m1_by_judge: {where}, the panel n_judges = {n_judges}; give one target per judge")
    return targets


def spec_problem(spec: Mapping[str, Any]) -> str | None:
    """Return what is wrong with a ``source: simulate`` graded dataset spec (checked before any job), or None."""
    n_judges = int(spec.get("n_judges", 13))
    bad = [j for j in spec.get("hard_judges", (0, 12)) if not 0 <= j < n_judges]
    if bad:
        return f"hard_judges {bad} outside 0..{n_judges - 1} (n_judges = {n_judges})"
    if spec.get("target_m1_by_judge") is None:
        return None
    if spec.get("target_m1_ave") is not None:
        return ("target_m1_ave and target_m1_by_judge are both set; the per-judge calibration replaces the "
                "average one: drop target_m1_ave (or set it to null)")
    try:
        m1_targets(spec["target_m1_by_judge"], n_judges)
    except ValueError as err:
        return str(err)
    return None


def panel_options(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Return the keyword arguments of :func:`simulate_medline_panel` in a dataset spec.

    The spec's key ``n_labels`` is the argument ``n_classes``.
    """
    return {k: spec[k] for k in SPEC_KEYS if k in spec}


def _latent_and_noise(seed: int, n_queries: int, docs_per_query: int, n_judges: int, n_trained: int,
                      n_classes: int, hard_judges: Sequence[int], hard_noise: float, hard_bias: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = rng_for(seed, "sim_medline")
    n_items = n_queries * docs_per_query
    latent = np.repeat(rng.normal(0, 0.6, n_queries), docs_per_query) + rng.normal(0, 1.0, n_items)
    eps = rng.normal(size=(n_items, n_judges))
    bias = rng.normal(0, 0.3, n_judges)
    spacing = rng.uniform(0.8, 1.25, n_judges)
    noise = np.where(np.arange(n_judges) < n_trained, 1.0, 1.4)
    for j, sign in zip(hard_judges, np.resize([1.0, -1.0], len(hard_judges))):
        noise[j] *= hard_noise
        bias[j] += sign * hard_bias
    thresholds = bias[:, None] + spacing[:, None] * _ladder(n_classes)[None, :]
    return latent, eps, noise, thresholds


def _ladder(n_classes: int) -> np.ndarray:
    """Return the common thresholds: K - 1 points from -1.5 to 1.5."""
    return np.linspace(-1.5, 1.5, n_classes - 1)


def _labels(latent: np.ndarray, eps: np.ndarray, noise: np.ndarray, thresholds: np.ndarray, scale: float) -> np.ndarray:
    y = latent[:, None] + scale * noise[None, :] * eps
    return (y[:, :, None] > thresholds[None, :, :]).sum(2)


class _Path:
    """One judge's path, position 0 (least predictable) to :attr:`end` (most), as in the module docstring.

    Relevance weight MIN_WEIGHT -> 1 at the noise ceiling, noise ceiling -> pivot, agreement 0 -> 1
    at the pivot, noise pivot -> floor.
    """

    upper = np.log(NOISE_CEILING / NOISE_PIVOT)
    lower = np.log(NOISE_PIVOT / NOISE_FLOOR)
    end = 1.0 + upper + 1.0 + lower

    @classmethod
    def point(cls, p: float) -> tuple[float, float, float]:
        """(noise, agreement, relevance weight) at position p."""
        if p <= 1.0:
            return NOISE_CEILING, 0.0, MIN_WEIGHT + (1.0 - MIN_WEIGHT) * p
        p -= 1.0
        if p <= cls.upper:
            return NOISE_CEILING * float(np.exp(-p)), 0.0, 1.0
        p -= cls.upper
        if p <= 1.0:
            return NOISE_PIVOT, p, 1.0
        return NOISE_PIVOT * float(np.exp(-(p - 1.0))), 1.0, 1.0

    @classmethod
    def start(cls, noise: float) -> float:
        """Return the position of a noise with the judge's own thresholds (clipped to that part of the path)."""
        return 1.0 + float(np.clip(np.log(NOISE_CEILING / noise), 0.0, cls.upper))


def _nearest_crossing(s_j, start: float, target: float) -> tuple[float, float]:
    """(position, S there): where a judge's S(j) crosses its target nearest ``start`` on its path.

    S is evaluated on a grid of :data:`PATH_GRID` points along the path; of the grid steps across
    which S crosses the target, the one nearest ``start`` is bisected (:data:`PATH_STEPS` halvings).
    S need not be monotone along the whole path (when every judge is very noisy, labels pile up on
    0 and K - 1 and become predictable again; on small panels S is jagged), hence the nearest
    crossing rather than a bisection of the whole path. Without a crossing: the grid point
    nearest the target.
    """
    grid = np.linspace(0.0, _Path.end, PATH_GRID)
    values = np.array([s_j(p) for p in grid]) - target
    across = np.flatnonzero(values[:-1] * values[1:] <= 0)
    if len(across) == 0:
        k = int(np.argmin(np.abs(values)))
        return float(grid[k]), float(values[k] + target)
    distance = np.maximum(0.0, np.maximum(grid[across] - start, start - grid[across + 1]))
    k = int(across[np.argmin(distance)])
    (a, fa), (b, fb) = (grid[k], values[k]), (grid[k + 1], values[k + 1])
    for _ in range(PATH_STEPS):
        mid = 0.5 * (a + b)
        f_mid = s_j(mid) - target
        if f_mid * fa > 0:
            a, fa = mid, f_mid
        else:
            b, fb = mid, f_mid
    return (float(a), float(fa + target)) if abs(fa) < abs(fb) else (float(b), float(fb + target))


def calibrate_judges(latent: np.ndarray, eps: np.ndarray, thresholds: np.ndarray, start_noise: np.ndarray,
                     targets: np.ndarray, n_classes: int, tolerance: float = CALIBRATION_TOLERANCE,
                     sweeps: int = CALIBRATION_SWEEPS) -> tuple[np.ndarray, JudgeCalibration]:
    """Return (items x judges labels, :class:`JudgeCalibration`) of judges calibrated to their M1 targets.

    Each judge's M1 cross-induction S(j) is within ``tolerance`` x |target| of its target (``targets``: for
    this panel's size). Raises ValueError naming every judge left outside the tolerance (its target, the
    value reached, its noise and agreement).
    """
    from manyjudges.graded.protocols import cross_induction, loglik_by_judge
    from manyjudges.graded.votes import M1

    n_items, n_judges = eps.shape
    ladder = _ladder(n_classes)
    rows = np.arange(n_items)
    pos = np.array([_Path.start(v) for v in start_noise])

    def judge_labels(j: int, p: float) -> np.ndarray:
        noise, agreement, weight = _Path.point(p)
        own = (1.0 - agreement) * thresholds[j] + agreement * ladder
        return ((weight * latent + noise * eps[:, j])[:, None] > own[None, :]).sum(1)

    labels = np.stack([judge_labels(j, pos[j]) for j in range(n_judges)], axis=1)
    closest = np.full(n_judges, np.inf)  # per judge, the S(j) nearest its target seen in any sweep
    item_all, judge_all = np.nonzero(np.ones((n_items, n_judges), dtype=bool))  # from_matrix's entry order
    done = 0
    for done in range(1, sweeps + 1):
        moved = []
        for j in range(n_judges):
            keep = judge_all != j  # the panel without j, as cross induction fits it
            train = GradedPanel(item_all[keep], judge_all[keep], labels[item_all[keep], judge_all[keep]],
                                n_items, n_judges, n_classes)
            logp = np.log(np.maximum(M1().fit(train).predict_proba(), 1e-300))

            def s_j(p: float, j: int = j, logp: np.ndarray = logp) -> float:
                return float(logp[rows, judge_labels(j, p)].sum())

            target = targets[j]
            now = s_j(pos[j])
            closest[j] = now if abs(now - target) < abs(closest[j] - target) else closest[j]
            if abs(now - target) <= tolerance * abs(target):
                continue
            best, value = _nearest_crossing(s_j, pos[j], target)
            closest[j] = value if abs(value - target) < abs(closest[j] - target) else closest[j]
            if best != pos[j]:
                log.debug("sweep %d, judge %d: S %.2f -> %.2f (target %.2f), noise %.4g, agreement %.3g, "
                          "relevance weight %.3g", done, j, now, value, target, *_Path.point(best))
                pos[j] = best
                labels[:, j] = judge_labels(j, best)
                moved.append(j)
        log.info("per-judge calibration: sweep %d moved %d judge(s)", done, len(moved))
        if not moved:
            break
    panel = GradedPanel.from_matrix(labels, n_classes)
    reached = (loglik_by_judge(cross_induction(M1(), panel, np.arange(n_judges)).predictions)
               .set_index("judge")["loglik"].reindex([str(j) for j in range(n_judges)]).to_numpy())
    points = np.array([_Path.point(p) for p in pos])
    result = JudgeCalibration(points[:, 0], points[:, 1], points[:, 2], np.asarray(targets, dtype=float),
                              reached, done)
    for j in range(n_judges):
        log.info("judge %d: noise %.4g, agreement %.3g, relevance weight %.3g, M1 S = %.2f (target %.2f)", j,
                 result.noise[j], result.agreement[j], result.weight[j], reached[j], targets[j])
    missed = np.flatnonzero(result.relative_error > tolerance)
    if len(missed):
        detail = "; ".join(
            f"judge {j}: target {targets[j]:.6g}, best reached {closest[j]:.6g} (at the end {reached[j]:.6g}, "
            f"noise {result.noise[j]:.3g}, agreement {result.agreement[j]:.2f}, relevance weight "
            f"{result.weight[j]:.2f})" for j in missed)
        raise ValueError(
            f"per-judge calibration failed: M1's log probability is more than {tolerance:g} x |target| from the "
            f"target for {len(missed)} judge(s) after {done} sweep(s) (targets for {n_items} labels a judge): "
            f"{detail}. A target above the best reached "
            "asks for a judge more predictable than the others allow (noise down to "
            f"{NOISE_FLOOR:g} with the common thresholds); one below, for one less predictable than noise "
            f"{NOISE_CEILING:g} reading relevance with weight {MIN_WEIGHT:g}; on a small panel the judges may also "
            "keep moving each other. Choose other targets, a larger calibration_tolerance, or calibrate the average "
            "(target_m1_ave).")
    return labels, result


def simulate_medline_panel(seed: int, n_queries: int = 100, docs_per_query: int = 50, n_judges: int = 13,
                           n_trained: int = 7, n_classes: int = 5, hard_judges: Sequence[int] = (0, 12),
                           hard_noise: float = 2.5, hard_bias: float = 0.8, target_m1_ave: float | None = -7433.0,
                           noise_scale: float = 1.0, iterations: int = 24,
                           target_m1_by_judge: str | Sequence[float] | None = None,
                           calibration_tolerance: float = CALIBRATION_TOLERANCE) -> tuple[pd.DataFrame, float]:
    """(grades table, global noise scale used).

    With ``target_m1_by_judge`` (a :data:`PAPER_TARGETS` name or one number per judge, per 5000
    labels) each judge is calibrated on its own (:func:`calibrate_judges`, ``target_m1_ave`` is
    then not used and the scale returned is 1). Otherwise, with ``target_m1_ave`` the global scale
    is calibrated so M1's cross-induction average log-probability per judge equals it (rescaled to
    the item count if the panel is not 5000 items), and a ValueError says so if the bisection
    cannot get within 1%; without either, ``noise_scale`` is used as given.
    """
    from manyjudges.graded.protocols import cross_induction, loglik_by_judge
    from manyjudges.graded.votes import M1

    problem = spec_problem({"n_judges": n_judges, "hard_judges": hard_judges})
    if problem:
        raise ValueError(problem)
    parts = _latent_and_noise(seed, n_queries, docs_per_query, n_judges, n_trained, n_classes,
                              hard_judges, hard_noise, hard_bias)
    n_items = n_queries * docs_per_query

    def m1_ave(scale: float) -> float:
        panel = GradedPanel.from_matrix(_labels(*parts, scale), n_classes)
        res = cross_induction(M1(), panel, np.arange(n_judges))
        return float(loglik_by_judge(res.predictions)["loglik"].mean())

    scale = noise_scale
    if target_m1_by_judge is not None:
        latent, eps, noise, thresholds = parts
        targets = m1_targets(target_m1_by_judge, n_judges) * n_items / LABELS_PER_TARGET
        labels, _ = calibrate_judges(latent, eps, thresholds, noise_scale * noise, targets, n_classes,
                                     calibration_tolerance)
        scale = 1.0
    else:
        if target_m1_ave is not None:
            target = target_m1_ave * n_items / float(LABELS_PER_TARGET)
            lo, hi = 0.01, 5.0
            for _ in range(iterations):
                mid = np.sqrt(lo * hi)
                if m1_ave(mid) > target:  # too predictable: more noise
                    lo = mid
                else:
                    hi = mid
            scale = float(np.sqrt(lo * hi))
            achieved = m1_ave(scale)
            if abs(achieved - target) > 0.01 * abs(target):
                raise ValueError(
                    f"calibration failed: M1's average log probability is {achieved:.1f} at noise scale "
                    f"{scale:.3g}, target {target:.1f} (more than 1% off; on small panels it need not fall "
                    "monotonically with the noise). Choose another target_m1_ave, or set target_m1_ave: null "
                    "and give noise_scale.")
        labels = _labels(*parts, scale)
    q = np.repeat(np.arange(n_queries), docs_per_query)
    d = np.tile(np.arange(docs_per_query), n_queries)
    items = np.char.add(np.char.add(np.char.add("q", q.astype(str)), "_d"), d.astype(str))
    grades = pd.DataFrame({
        "item": np.repeat(items, n_judges),
        "judge": np.tile([f"judge{j:02d}" for j in range(n_judges)], n_items),
        "label": labels.ravel(),
    })
    return grades, scale
