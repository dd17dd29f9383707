"""Simulated panels of LLM judges with known truth: position effects, reliabilities and copied judges.

Each prompt has every unordered pair of the models (model_1 < model_2); the unit's true winner is
model_1 with probability sigma(s_1 - s_2) (Bradley and Terry 1952). Every judge judges every unit
in both orders; shown first f and second g, it names f with

    logit P = +-logit(eta_j) + gamma_j      (+ when f is the true winner),

the judge model of :mod:`manyjudges.arena.judges.judge_aware_verdicts`. A judge that is a copy of another
(``copy_of``) gives, with probability ``copy_rate``, the other's verdict on the same unit and order
(a shared error), else its own draw. A verdict is turned into a tie with probability ``tie_rate``.

A door onto the one panel simulator, :func:`manyjudges.arena.panel_simulation.simulate_panel` (its
``"true_winner"`` judge model: ``eta`` is a judge's ``skill``, ``gamma`` its ``position_bias``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from manyjudges.arena.panel_simulation import PanelJudge, simulate_panel

__all__ = ["SimulatedJudge", "simulate_judge_panel"]


@dataclass(frozen=True)
class SimulatedJudge:
    """One simulated judge: skill ``eta`` in (0, 1) and position effect ``gamma``.

    ``gamma`` is the log-odds towards the first answer; optionally the judge copies another
    (``copy_of``) with probability ``copy_rate``.
    """

    name: str
    eta: float
    gamma: float = 0.0
    copy_of: str | None = None
    copy_rate: float = 0.0


def simulate_judge_panel(strengths: Mapping[str, float], judges: Sequence[SimulatedJudge], n_prompts: int,
                         seed: int, tie_rate: float = 0.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Return ``(verdicts, truth)``: the verdicts table of the panel (module docstring) and the truth per unit.

    The truth has ``prompt, model_1, model_2, winner`` (the true winner's name).

    Draws from ``numpy.random.default_rng(seed)``: the true winners (units in order), then per judge
    in the given order its verdicts (units x orders), its copy choices and its ties. A copy must
    come after the judge it copies.
    """
    names = sorted(strengths)
    panel = [PanelJudge(j.name, skill=j.eta, position_bias=j.gamma, copy_of=j.copy_of, copy_rate=j.copy_rate)
             for j in judges]
    drawn = simulate_panel(np.random.default_rng(seed), pd.Series([strengths[m] for m in names], index=names,
                                                                  dtype=float),
                           panel, n_prompts, judging="true_winner", tie_rate=tie_rate,
                           prompts=[str(p) for p in range(n_prompts)])
    assert drawn.truth is not None
    return drawn.verdicts, drawn.truth
