"""The one simulator of a judge panel's pairwise verdicts on models with known strengths, with every knob.

A **unit** is a prompt and an unordered pair of models; each unit is shown to every judge of the panel in one
or both presentation orders, and each judge returns one verdict per unit and order: the answer shown first
wins (code 0), the one shown second (1), or a tie (2). The knobs, each of a judge (:class:`PanelJudge`) or of
the whole panel (:func:`simulate_panel`):

- **strengths** s_m (log-strengths of the models, given);
- **units**: every unordered pair of every prompt in both orders, or ``pairs_per_prompt`` distinct pairs per
  prompt drawn uniformly (:func:`~manyjudges.core.random_streams.distinct_draws`), in both orders or in one
  order drawn per verdict (``both_orders``);
- **skill** eta_j (the chance of reporting the outcome faithfully) and **position_bias** b_j (log-odds
  toward the answer shown first), read by one of two judge models (``judging``):

  - ``"davidson"``: each verdict is an outcome drawn from Davidson's (1970) model with the first answer's
    log-strength raised by b_j (and by the style sway below), with tie parameter ``nu``,
    P(first) = pi_f / D, P(second) = pi_g / D, P(tie) = nu sqrt(pi_f pi_g) / D, pi_f = exp(s_f + b_j + w_j),
    pi_g = exp(s_g), D = pi_f + pi_g + nu sqrt(pi_f pi_g); kept with probability eta_j, else reversed (a tie
    stays a tie): the judge model of Crowd-BT (Chen, Bennett, Collins-Thompson and Horvitz, WSDM 2013), so
    eta_j = 1 is faithful and 0.5 a coin;
  - ``"true_winner"``: each unit has one true winner, model_1 with probability sigma(s_1 - s_2) (Bradley and
    Terry 1952), shared by every judge; a judge shown f first names f with logit P = +-logit(eta_j) + b_j + w_j
    (+ when f is the true winner), the judge model of :mod:`manyjudges.arena.judges.judge_aware_verdicts`;

- **shared errors** (cliques): a judge with ``copy_of`` gives, with probability ``copy_rate``, the verdict of
  an earlier judge on the same unit and order (a clique is judges copying one judge);
- **ties**: Davidson's ``nu`` (``"davidson"``), and ``tie_rate``, the chance that any verdict is turned into a
  tie (both models);
- **answer style**: per answer features (``style``: feature name -> standard deviation), each (prompt, model)
  answer's value x drawn N(0, sd^2) (Chatbot Arena's style-control features, e.g. ``length``, written as the
  columns ``length_a`` and ``length_b`` of the answers shown first and second); a judge with style weights
  c_j sways toward the first answer by w_j = sum_features c_j[feature] (x_first - x_second) log-odds;
- **answer length** (``verbosity``: model -> mu_m, the mean log length of its answers): each (prompt, model)
  answer's log length x drawn N(mu_m, ``verbosity_sd``^2), written as the positive lengths e^x in the
  columns ``length_a``, ``length_b``; a judge's style weight c_j["length"] sways by c_j["length"] times
  the log lengths' difference, so a verbose model (large mu_m) is favoured whatever its strength.

The draws come from the generator given, in this order: the style features (only when ``style`` is given),
the log lengths (only when ``verbosity`` is given),
the units' pairs (drawn units only), the presentation orders (one order only), then the verdicts: with
``"davidson"`` the outcomes of every verdict, the reversals, the copies (per copying judge in panel order)
and the ties (only when ``tie_rate`` > 0); with ``"true_winner"`` the true winners, then per judge in panel
order its verdicts, its copies (a copying judge) and its ties (always drawn). Rows: with ``"davidson"`` in
(prompt, pair, order, judge) order, both orders of a pair first-listed model first; with ``"true_winner"``
in (judge, order, prompt, pair) order, model_1 first in order 0.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from manyjudges.core.random_streams import distinct_draws
from manyjudges.io.tables.verdicts import verdicts_frame

__all__ = ["PanelJudge", "SimulatedPanel", "Units", "numbered_names", "simulate_panel"]

#: the judge models of :func:`simulate_panel`
_JUDGING = ("davidson", "true_winner")
#: a verdict's class as shown -> its winner
_WINNERS = np.array(["model_a", "model_b", "tie"], dtype=object)


@dataclass(frozen=True)
class PanelJudge:
    """One simulated judge's knobs (module docstring).

    ``skill`` eta ( in [0, 1] with ``"davidson"``, in (0, 1) with ``"true_winner"``),
    ``position_bias`` b (log-odds toward the answer shown first), ``copy_of`` and ``copy_rate`` (shared
    errors: the verdict of that earlier judge, with that probability) and ``style`` (feature -> weight, log-odds
    toward the first answer per unit of the features' difference first - second).
    """

    name: str
    skill: float = 1.0
    position_bias: float = 0.0
    copy_of: str | None = None
    copy_rate: float = 0.0
    style: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Units:
    """The verdicts to draw, one row each.

    Per row: the ``prompt`` code, the ``first`` and ``second`` shown models' codes, the ``judge`` (its position
    in the panel).
    """

    prompt: np.ndarray
    first: np.ndarray
    second: np.ndarray
    judge: np.ndarray


@dataclass(frozen=True)
class SimulatedPanel:
    """The verdicts table (with ``NAME_a``, ``NAME_b`` per style feature) and, with ``"true_winner"``, the truth.

    The truth has ``prompt, model_1, model_2, winner`` (the true winner's name) per unit; None with
    ``"davidson"`` (whose outcomes are drawn per verdict).
    """

    verdicts: pd.DataFrame
    truth: pd.DataFrame | None


def drawn_units(rng: np.random.Generator, n_models: int, n_prompts: int, pairs_per_prompt: int | None,
                both_orders: bool, n_judges: int) -> Units:
    """Draw ``pairs_per_prompt`` distinct pairs per prompt (None: all), then, in one order only, the orders.

    Rows in (prompt, pair, order, judge) order, the pairs of a prompt in ascending index of ``np.triu_indices``.
    Both orders: each pair twice, (lo, hi) then (hi, lo); one order: each verdict's pair swapped with
    probability 1/2 (one uniform a verdict).
    """
    lo, hi = np.triu_indices(n_models, k=1)
    per_prompt = len(lo) if pairs_per_prompt is None else int(pairs_per_prompt)
    chosen = np.sort(distinct_draws(rng, n_prompts, len(lo), per_prompt), axis=1).ravel()
    prompt = np.repeat(np.arange(n_prompts), per_prompt)
    first, second = lo[chosen], hi[chosen]
    if both_orders:
        prompt = np.repeat(prompt, 2)
        first, second = np.column_stack([first, second]).ravel(), np.column_stack([second, first]).ravel()
    prompt, first, second = (np.repeat(x, n_judges) for x in (prompt, first, second))
    judge = np.tile(np.arange(n_judges), len(prompt) // max(n_judges, 1))
    if not both_orders:
        swap = rng.random(len(first)) < 0.5
        first, second = np.where(swap, second, first), np.where(swap, first, second)
    return Units(prompt, first, second, judge)


def every_unit(n_models: int, n_prompts: int, n_judges: int) -> tuple[Units, Units]:
    """Return (the units, model_1 < model_2, in (prompt, pair) order; the verdicts in (judge, order, prompt, pair)).

    Order 0 shows model_1 first, order 1 model_2. The units' ``judge`` is 0.
    """
    lo, hi = np.triu_indices(n_models, k=1)
    prompt = np.repeat(np.arange(n_prompts), len(lo))
    m1, m2 = np.tile(lo, n_prompts), np.tile(hi, n_prompts)
    n = 2 * len(prompt)
    shown = Units(np.tile(prompt, 2 * n_judges), np.tile(np.concatenate([m1, m2]), n_judges),
                  np.tile(np.concatenate([m2, m1]), n_judges), np.repeat(np.arange(n_judges), n))
    return Units(prompt, m1, m2, np.zeros(len(prompt), dtype=np.int64)), shown


def answer_style(rng: np.random.Generator, style: Mapping[str, float], n_prompts: int, n_models: int
                 ) -> dict[str, np.ndarray]:
    """Draw each style feature's (n_prompts, n_models) answer values, N(0, sd^2), features in the given order."""
    values = {}
    for name, sd in style.items():
        if not float(sd) >= 0:
            raise ValueError(f"style.{name}: the standard deviation must be >= 0, got {sd}")
        values[name] = rng.normal(0.0, float(sd), (n_prompts, n_models))
    return values


def _answer_lengths(rng: np.random.Generator, verbosity: Mapping[str, float], sd: float, models: pd.Index,
                   n_prompts: int) -> np.ndarray:
    """Draw the (n_prompts, n_models) log lengths, N(verbosity[model], sd^2).

    A model without a verbosity is a ValueError.
    """
    missing = [str(m) for m in models if m not in verbosity]
    if missing or not float(sd) >= 0:
        raise ValueError(f"verbosity needs every model's mean log length and verbosity_sd >= 0; missing "
                         f"{', '.join(missing) or 'none'}, verbosity_sd {sd}")
    mu = np.array([float(verbosity[m]) for m in models])
    return mu + rng.normal(0.0, float(sd), (n_prompts, len(mu)))


def style_sway(features: Mapping[str, np.ndarray], judges: Sequence[PanelJudge], units: Units) -> np.ndarray:
    """Return each verdict's sway toward the first answer, sum_f c_j[f] (x_f[prompt, first] - x_f[prompt, second]).

    A judge's weight of a feature the answers do not have is a ValueError.
    """
    judge = units.judge
    sway = np.zeros(len(judge))
    for name, x in features.items():
        weight = np.array([float(j.style.get(name, 0.0)) for j in judges])
        sway += weight[judge] * (x[units.prompt, units.first] - x[units.prompt, units.second])
    unknown = sorted({f for j in judges for f in j.style} - set(features))
    if unknown:
        raise ValueError(f"judges weigh style features {unknown} that the answers do not have (style=...)")
    return sway


def _copy_sources(judges: Sequence[PanelJudge]) -> list[int | None]:
    """Each judge's copied judge's position (None: copies nobody); a ValueError if it is not an earlier judge."""
    position: dict[str, int] = {}
    sources: list[int | None] = []
    for k, judge in enumerate(judges):
        if judge.copy_of is not None and judge.copy_of not in position:
            raise ValueError(f"judge {judge.name!r} copies {judge.copy_of!r}, which is not an earlier judge")
        sources.append(None if judge.copy_of is None else position[judge.copy_of])
        position[judge.name] = k
    return sources


def davidson_verdicts(rng: np.random.Generator, strengths: np.ndarray, judges: Sequence[PanelJudge], units: Units,
                      sway: np.ndarray, nu: float, tie_rate: float) -> np.ndarray:
    """Each verdict's class as shown (rows of :func:`drawn_units`) under ``judging="davidson"``.

    Draws the outcomes, the reversals, the copies (per copying judge, one uniform per unit and order) and the
    ties (only when ``tie_rate`` > 0).
    """
    n_judges = len(judges)
    bias = np.array([j.position_bias for j in judges], dtype=float)
    eta = np.array([j.skill for j in judges], dtype=float)
    first, second, judge = units.first, units.second, units.judge
    pi_a = np.exp(strengths[first] + bias[judge] + sway) if sway.any() else np.exp(strengths[first] + bias[judge])
    pi_b = np.exp(strengths[second])
    pi_tie = nu * np.sqrt(pi_a * pi_b)
    u = rng.random(len(first)) * (pi_a + pi_b + pi_tie)
    outcome = np.where(u < pi_a, 0, np.where(u < pi_a + pi_b, 1, 2))  # 0: first wins, 1: second, 2: tie
    reversed_ = (rng.random(len(first)) >= eta[judge]) & (outcome < 2)
    outcome = np.where(reversed_, 1 - outcome, outcome).reshape(-1, n_judges)
    for k, source in enumerate(_copy_sources(judges)):
        if source is not None:
            copied = rng.random(len(outcome)) < judges[k].copy_rate
            outcome[:, k] = np.where(copied, outcome[:, source], outcome[:, k])
    outcome = outcome.ravel()
    if tie_rate > 0:
        outcome = np.where(rng.random(len(outcome)) < tie_rate, 2, outcome)
    return outcome


def true_winner_verdicts(rng: np.random.Generator, strengths: np.ndarray, judges: Sequence[PanelJudge],
                         units: tuple[Units, Units], sway: np.ndarray, tie_rate: float
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Return (model_1 truly won, per unit; each verdict's class as shown) under ``judging="true_winner"``.

    ``units`` is :func:`every_unit`'s pair, ``sway`` per verdict in its row order. Draws the true winners, then
    per judge its verdicts, its copies (a copying judge) and its ties.
    """
    unit, shown = units
    one_wins = rng.random(len(unit.prompt)) < expit(strengths[unit.first] - strengths[unit.second])
    truth_first = np.concatenate([one_wins, ~one_wins])
    n = len(truth_first)
    sources = _copy_sources(judges)
    named: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    for k, judge in enumerate(judges):
        if not 0 < judge.skill < 1:
            raise ValueError(f"judge {judge.name!r}: eta must be in (0, 1), got {judge.skill}")
        logits = np.where(truth_first, logit(judge.skill), -logit(judge.skill)) + judge.position_bias
        if sway.any():
            logits = logits + sway[k * n:(k + 1) * n]
        names_first = rng.random(n) < expit(logits)
        source = sources[k]
        if source is not None:
            copied = rng.random(n) < judge.copy_rate
            names_first = np.where(copied, named[source], names_first)
        named.append(names_first)
        tie = rng.random(n) < tie_rate
        codes.append(np.where(tie, 2, np.where(names_first, 0, 1)))
    return one_wins, np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)


def _check_knobs(judges: Sequence[PanelJudge], judging: str, nu: float, tie_rate: float) -> None:
    """Raise a ValueError naming the first knob out of range.

    ``judging`` one of :data:`_JUDGING`; ``nu`` >= 0; ``tie_rate``, a judge's ``skill`` and ``copy_rate`` in
    [0, 1] (``skill`` in (0, 1) with ``"true_winner"``, checked as its judge's turn comes); a finite
    ``position_bias``.
    """
    if judging not in _JUDGING:
        raise ValueError(f"judging must be one of {', '.join(_JUDGING)}, got {judging!r}")
    if not nu >= 0 or not 0 <= tie_rate <= 1:
        raise ValueError(f"nu must be >= 0 and tie_rate in [0, 1], got {nu} and {tie_rate}")
    for judge in judges:
        faithful = judging == "true_winner" or 0 <= judge.skill <= 1  # true_winner: checked in its turn
        if not (faithful and 0 <= judge.copy_rate <= 1 and np.isfinite(judge.position_bias)):
            raise ValueError(f"judge {judge.name!r}: skill and copy_rate must be in [0, 1] and position_bias "
                             f"finite, got {judge.skill}, {judge.copy_rate}, {judge.position_bias}")


def simulate_panel(rng: np.random.Generator | int, strengths: pd.Series, judges: Sequence[PanelJudge],
                   n_prompts: int, *, judging: str = "davidson", pairs_per_prompt: int | None = None,
                   both_orders: bool = True, nu: float = 0.0, tie_rate: float = 0.0,
                   style: Mapping[str, float] | None = None, prompts: Sequence[str] | None = None,
                   verbosity: Mapping[str, float] | None = None, verbosity_sd: float = 0.5) -> SimulatedPanel:
    """Draw a panel's verdicts (module docstring: the model, the draws and the row order).

    Parameters
    ----------
    rng : numpy Generator or int
        The generator, or a seed of ``numpy.random.default_rng``.
    strengths : pandas.Series
        The models' true log-strengths s_m, indexed by model name (codes in this order).
    judges : sequence of PanelJudge
        The panel, in order (a judge copies only an earlier one).
    n_prompts : int
        Number of prompts.
    judging : {"davidson", "true_winner"}
        The judge model: a Davidson outcome per verdict, reversed with probability 1 - skill; or one true
        winner per unit (Bradley-Terry), named with logit +-logit(skill) + position_bias.
    pairs_per_prompt : int, optional
        ``"davidson"`` only: distinct model pairs drawn per prompt (default: all).
    both_orders : bool
        ``"davidson"`` only: every unit in both orders (default), else one order drawn per verdict
        (``"true_winner"`` always shows both orders).
    nu : float
        ``"davidson"`` only: Davidson's tie parameter (0: no ties).
    tie_rate : float
        The chance that a verdict is turned into a tie.
    style : mapping, optional
        Style feature name -> standard deviation of its answer values; adds the columns ``NAME_a``, ``NAME_b``.
    prompts : sequence of str, optional
        The prompts' names (default ``p01``, ``p02``, ...).
    verbosity : mapping, optional
        Model name -> mean log length of its answers; adds the feature ``length`` (columns ``length_a``,
        ``length_b``, the lengths e^x) drawn after the style features (none drawn without it).
    verbosity_sd : float
        The standard deviation of an answer's log length around its model's mean.

    Returns
    -------
    SimulatedPanel
    """
    _check_knobs(judges, judging, nu, tie_rate)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    s = np.asarray(strengths, dtype=float)
    features = answer_style(rng, style or {}, n_prompts, len(s))
    if verbosity is not None:
        if "length" in features:
            raise ValueError("give the feature length by style or by verbosity, not both")
        features["length"] = _answer_lengths(rng, verbosity, verbosity_sd, strengths.index, n_prompts)
    if judging == "davidson":
        units = drawn_units(rng, len(s), n_prompts, pairs_per_prompt, both_orders, len(judges))
        outcome = davidson_verdicts(rng, s, judges, units, style_sway(features, judges, units), nu, tie_rate)
        truth = None
    else:
        unit, units = every_unit(len(s), n_prompts, len(judges))
        one_wins, outcome = true_winner_verdicts(rng, s, judges, (unit, units), style_sway(features, judges, units),
                                                 tie_rate)
    models = np.asarray([str(m) for m in strengths.index], dtype=object)
    names = np.asarray(prompts if prompts is not None else numbered_names("p", n_prompts), dtype=object)
    verdicts = verdicts_frame(names[units.prompt], np.asarray([j.name for j in judges], dtype=object)[units.judge],
                              models[units.first], models[units.second], _WINNERS[outcome])
    for name, x in features.items():
        if verbosity is not None and name == "length":
            x = np.exp(x)
        verdicts[f"{name}_a"], verdicts[f"{name}_b"] = x[units.prompt, units.first], x[units.prompt, units.second]
    if judging == "true_winner":
        truth = pd.DataFrame({"prompt": names[unit.prompt], "model_1": models[unit.first],
                              "model_2": models[unit.second],
                              "winner": np.where(one_wins, models[unit.first], models[unit.second])})
    return SimulatedPanel(verdicts, truth)


def numbered_names(prefix: str, n: int) -> np.ndarray:
    """``prefix`` + 1..n, zero-padded to the same width (at least 2 digits)."""
    width = max(2, len(str(n)))
    return np.array([f"{prefix}{i + 1:0{width}d}" for i in range(n)], dtype=object)
