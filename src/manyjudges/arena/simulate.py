"""``simulate`` arena source: verdicts of a panel of judges on models with known strengths.

A door onto the one panel simulator, :func:`manyjudges.arena.panel_simulation.simulate_panel` (its
``"davidson"`` judge model), with the pipeline's options: the strengths drawn here, first.

K models ``m01 .. mK`` get true log-strengths s ~ N(0, ``strength_sd``^2), i.i.d., centred to mean 0.
Each of ``n_prompts`` prompts gets ``pairs_per_prompt`` distinct unordered model pairs, uniformly at
random among the K (K - 1) / 2 (default: every pair), and every judge of the panel judges every one of
them: in both presentation orders (``both_orders``, as PRD's judges do) or in one order drawn at random
per verdict. A judge j with position bias b_j and skill eta_j, shown model a first and model b
second, first draws an outcome from Davidson's (1970) model with the first shown answer's strength
raised by b_j (log-odds):

    pi_a = exp(s_a + b_j),  pi_b = exp(s_b),  D = pi_a + pi_b + nu sqrt(pi_a pi_b),
    P(a wins) = pi_a / D,  P(b wins) = pi_b / D,  P(tie) = nu sqrt(pi_a pi_b) / D,

then keeps it with probability eta_j and otherwise reports it reversed (a win for the other answer; a tie
stays a tie): the judge model of Crowd-BT (Chen, Bennett, Collins-Thompson and Horvitz, WSDM 2013), so
eta_j = 1 is a faithful judge and eta_j = 0.5 a coin. ``nu = 0`` draws no ties; b_j = 0 is no position
bias. The draws come from the generator given (the pipeline's: ``random_streams.rng_for(seed, "arena",
dataset)``), in this order: the strengths, the pairs of each prompt, the presentation orders (one order
only), the outcomes, the reversals.

Answer length (``verbosity``, given: otherwise nothing of it is drawn and the verdicts are as above): model
m's answers have mean log length log(300) + ``verbosity`` s_m (a negative ``verbosity``: the weak models
write longer answers), each (prompt, model) answer's log length drawn N(that, ``verbosity_sd``^2) after the
strengths, written as the lengths e^x in the columns ``length_a, length_b``; a judge with option ``length``
w adds w (x_a - x_b) to the log-odds of the answer shown first (w > 0: it rewards the longer answer).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.arena.panel_simulation import PanelJudge, numbered_names, simulate_panel

__all__ = ["SIMULATION_OPTIONS", "SimulatedArena", "arena_problem", "simulate_arena"]

#: the keys of a ``simulate`` dataset entry passed to :func:`simulate_arena` (besides ``panel``)
SIMULATION_OPTIONS = ("n_models", "n_prompts", "pairs_per_prompt", "both_orders", "strength_sd", "nu", "verbosity",
                      "verbosity_sd")
#: a panel judge's options and their defaults (``length``: log-odds per unit of log length difference)
_JUDGE_OPTIONS = {"position_bias": 0.0, "skill": 1.0, "length": 0.0}
#: the mean log length of the answers of a model of log-strength 0 (300 characters; it cancels out of
#: the normalised length differences)
LENGTH_CENTRE = float(np.log(300.0))


@dataclass(frozen=True)
class SimulatedArena:
    """A simulated arena: the verdicts table and the true log-strengths.

    The verdicts table has ``prompt, judge, model_a, model_b, winner``; the log-strengths are a
    Series by model, mean 0.
    """

    verdicts: pd.DataFrame
    strengths: pd.Series


def arena_problem(n_models: int, n_prompts: int, panel: Mapping[str, Mapping[str, Any] | None],
                  pairs_per_prompt: int | None = None, strength_sd: float = 1.0, nu: float = 0.5,
                  verbosity: float | None = None, verbosity_sd: float = 0.5) -> str | None:
    """Say what makes these options unusable, in words (None when they are fine).

    Too few models or prompts, more pairs per prompt than there are pairs, an empty panel, a judge
    option unknown or out of range.
    """
    if n_models < 2:
        return f"n_models must be at least 2, got {n_models}"
    if n_prompts < 1:
        return f"n_prompts must be at least 1, got {n_prompts}"
    n_pairs = n_models * (n_models - 1) // 2
    if pairs_per_prompt is not None and not 1 <= pairs_per_prompt <= n_pairs:
        return f"pairs_per_prompt must be in 1..{n_pairs} (the pairs of {n_models} models), got {pairs_per_prompt}"
    if not strength_sd >= 0:
        return f"strength_sd must be >= 0, got {strength_sd}"
    if not nu >= 0:
        return f"nu must be >= 0, got {nu}"
    if verbosity is not None and not (np.isfinite(verbosity) and verbosity_sd >= 0):
        return f"verbosity must be a finite number and verbosity_sd >= 0, got {verbosity} and {verbosity_sd}"
    if not panel:
        return "panel must name at least one judge"
    for name, options in panel.items():
        options = options or {}
        unknown = sorted(set(options) - set(_JUDGE_OPTIONS))
        if unknown:
            return f"panel.{name}: unknown options {unknown}; known: {', '.join(_JUDGE_OPTIONS)}"
        skill = float(options.get("skill", _JUDGE_OPTIONS["skill"]))
        if not 0 <= skill <= 1:
            return f"panel.{name}.skill must be in [0, 1], got {skill}"
        for knob in ("position_bias", "length"):
            if not np.isfinite(float(options.get(knob, 0.0))):
                return f"panel.{name}.{knob} must be a finite number"
        if float(options.get("length", 0.0)) and verbosity is None:
            return f"panel.{name}.length weighs answer lengths, which only a verbosity draws: give verbosity"
    return None


def _judge(name: str, options: Mapping[str, Any]) -> PanelJudge:
    """Return a panel judge of the options (:data:`_JUDGE_OPTIONS`)."""
    weight = float(options.get("length", _JUDGE_OPTIONS["length"]))
    return PanelJudge(name, skill=float(options.get("skill", _JUDGE_OPTIONS["skill"])),
                      position_bias=float(options.get("position_bias", _JUDGE_OPTIONS["position_bias"])),
                      style={"length": weight} if weight else {})


def simulate_arena(rng: np.random.Generator | int, n_models: int, n_prompts: int,
                   panel: Mapping[str, Mapping[str, Any] | None], pairs_per_prompt: int | None = None,
                   both_orders: bool = True, strength_sd: float = 1.0, nu: float = 0.5, verbosity: float | None = None,
                   verbosity_sd: float = 0.5) -> SimulatedArena:
    """Draw an arena (module docstring).

    Parameters
    ----------
    rng : numpy Generator or int
        The generator, or a seed of ``numpy.random.default_rng``.
    n_models, n_prompts : int
    panel : mapping
        Judge name -> ``{"position_bias": b, "skill": eta, "length": w}`` (defaults 0, 1 and 0; None: all).
    pairs_per_prompt : int, optional
        Distinct model pairs per prompt (default: all K (K - 1) / 2).
    both_orders : bool
        Every judge judges every pair in both presentation orders (default), else in one random order.
    strength_sd : float
        Standard deviation of the true log-strengths.
    nu : float
        Davidson's tie parameter (0: no ties).
    verbosity : float, optional
        Answer lengths with mean log length log(300) + verbosity x strength (module docstring); none without.
    verbosity_sd : float
        The standard deviation of an answer's log length around its model's mean.

    Returns
    -------
    SimulatedArena
        Verdicts in (prompt, pair, order, judge) order; judges in the panel's order.
    """
    problem = arena_problem(n_models, n_prompts, panel, pairs_per_prompt, strength_sd, nu, verbosity, verbosity_sd)
    if problem:
        raise ValueError(problem)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    strengths = rng.normal(0.0, strength_sd, n_models)
    strengths -= strengths.mean()
    models = numbered_names("m", n_models)
    judges = [_judge(name, options or {}) for name, options in panel.items()]
    lengths = None if verbosity is None else dict(zip(models, LENGTH_CENTRE + float(verbosity) * strengths))
    drawn = simulate_panel(rng, pd.Series(strengths, index=models), judges, n_prompts, judging="davidson",
                           pairs_per_prompt=pairs_per_prompt, both_orders=both_orders, nu=nu, verbosity=lengths,
                           verbosity_sd=verbosity_sd)
    return SimulatedArena(drawn.verdicts, pd.Series(strengths, index=pd.Index(models.astype(str), name="model"),
                                                    name="strength"))
