"""Simulated panels of LLM judges with known truth: position effects, reliabilities and copied judges.

Each prompt has every unordered pair of the models (model_1 < model_2); the unit's true winner is
model_1 with probability sigma(s_1 - s_2) (Bradley and Terry 1952). Every judge judges every unit
in both orders; shown first f and second g, it names f with

    logit P = +-logit(eta_j) + gamma_j      (+ when f is the true winner),

the judge model of :mod:`manyjudges.arena.judge_aware_verdicts`. A judge that is a copy of another
(``copy_of``) gives, with probability ``copy_rate``, the other's verdict on the same unit and order
(a shared error), else its own draw. A verdict is turned into a tie with probability ``tie_rate``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from manyjudges.io.verdicts import verdicts_frame

__all__ = ["SimulatedJudge", "simulate_judge_panel"]


@dataclass(frozen=True)
class SimulatedJudge:
    """One simulated judge: reliability ``eta`` in (0, 1) and position effect ``gamma``.

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
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    s = np.array([strengths[m] for m in names], dtype=float)
    pairs = np.array(list(combinations(range(len(names)), 2)), dtype=np.int64)
    prompt = np.repeat(np.arange(n_prompts), len(pairs))
    m1, m2 = np.tile(pairs[:, 0], n_prompts), np.tile(pairs[:, 1], n_prompts)
    one_wins = rng.random(len(prompt)) < expit(s[m1] - s[m2])
    # both orders: model_1 first (order 0), then model_2 first (order 1)
    first = np.concatenate([m1, m2])
    second = np.concatenate([m2, m1])
    truth_first = np.concatenate([one_wins, ~one_wins])
    drawn: dict[str, np.ndarray] = {}
    rows = []
    for judge in judges:
        if not 0 < judge.eta < 1:
            raise ValueError(f"judge {judge.name!r}: eta must be in (0, 1), got {judge.eta}")
        logits = np.where(truth_first, logit(judge.eta), -logit(judge.eta)) + judge.gamma
        names_first = rng.random(len(first)) < expit(logits)
        if judge.copy_of is not None:
            if judge.copy_of not in drawn:
                raise ValueError(f"judge {judge.name!r} copies {judge.copy_of!r}, which is not an earlier judge")
            copied = rng.random(len(first)) < judge.copy_rate
            names_first = np.where(copied, drawn[judge.copy_of], names_first)
        drawn[judge.name] = names_first
        tie = rng.random(len(first)) < tie_rate
        winner = np.where(tie, "tie", np.where(names_first, "model_a", "model_b"))
        rows.append(verdicts_frame(np.tile(prompt, 2).astype(str), judge.name,
                                   np.asarray(names, dtype=object)[first], np.asarray(names, dtype=object)[second],
                                   winner))
    verdicts = pd.concat(rows, ignore_index=True)
    label = np.asarray(names, dtype=object)
    truth = pd.DataFrame({"prompt": prompt.astype(str), "model_1": label[m1], "model_2": label[m2],
                          "winner": np.where(one_wins, label[m1], label[m2])})
    return verdicts, truth
