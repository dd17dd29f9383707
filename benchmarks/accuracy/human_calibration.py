"""Coverage and width of human-calibrated (PPI++) intervals on simulated arenas with a biased LLM judge.

    python -m benchmarks.accuracy.human_calibration [--replications 200] [--bootstrap-replications 40]

Prints two markdown tables (leaderboard, win rates) and the seconds each part took.

Protocol. Leaderboard: M = 8 models with true human log-strengths s ~ N(0, 0.6^2) drawn once
(default_rng(0)) and centred to mean 0; models 0, 1 and 2 are verbose. Each replication r
(default_rng([1, r])) draws N = 2,000 units (each its own prompt, an unordered pair of distinct models drawn
uniformly). The human outcome of a unit is model_1 winning with probability sigma(s_1 - s_2). The LLM
judge gives two verdicts per unit (both presentation orders); each verdict repeats the human outcome
with probability 0.8, else is its own draw: model_1 wins with probability sigma(s_1 - s_2 + 1.5 (v_1 - v_2)),
v = 1 for a verbose model (a verbosity bias). Humans give one verdict on n = 200 units drawn without
replacement. Fitted: HumanCalibratedLeaderboard (power-tuned lambda, sandwich intervals, 95%,
200 normal draws for the rank intervals), the humans alone (lambda = 0, sandwich), and the plain
leaderboard of the LLM verdicts alone (bradley_terry, 200 bootstrap replicates resampling verdicts);
with --bootstrap-replications R_b > 0 also the first R_b replications with bootstrap intervals (200
replicates). Target: s (the humans' strengths); the true rank is the rank of s. Reported per estimator:
score coverage (share of (replication, model) intervals containing s) with its binomial standard
error, mean interval width, width relative to the humans alone, rank coverage, and the mean lambda
and worth. The LLM's agreement is the share of its verdicts naming the human outcome's winner.

Win rates: 5 models against a baseline with true human win rates 0.2, 0.35, 0.5, 0.65, 0.8. Each
replication (default_rng([2, r])) draws 1,000 prompts per model; the human preference h is 1 with
the model's win rate, else 0; two LLM verdicts per prompt, each a call c equal to h with probability
0.85, else 1 with probability 0.8 (the LLM favours the model), and p = clip(0.15 + 0.7 c + 0.1 + e,
0, 1) with e ~ N(0, 0.05^2). Humans label 150 prompts per model (the first 150). Fitted:
calibrated_win_rates (power-tuned lambda, 95%) and the humans alone (lambda = 0). Target: the true
win rate. Reported as for the leaderboard.
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from scipy.special import expit

from manyjudges.arena import Leaderboard
from manyjudges.arena.human.leaderboard import HumanCalibratedLeaderboard
from manyjudges.arena.human.win_rates import calibrated_win_rates
from manyjudges.arena.leaderboard.rank_intervals import _competition_ranks

N_MODELS, SD, VERBOSE, SWAY, N_UNITS, N_HUMAN, AGREE = 8, 0.6, (0, 1, 2), 1.5, 2000, 200, 0.8
RATES, N_PROMPTS, N_LABELLED, AGREE_RATE = (0.2, 0.35, 0.5, 0.65, 0.8), 1000, 150, 0.85
COLUMNS = ["prompt", "judge", "model_a", "model_b", "winner"]


def true_strengths() -> np.ndarray:
    s = np.random.default_rng(0).normal(0.0, SD, N_MODELS)
    return s - s.mean()


def simulate_arena(s: np.ndarray, r: int) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """LLM verdicts, human verdicts and the LLM's agreement with the human outcomes, of replication r."""
    rng = np.random.default_rng([1, r])
    first = rng.integers(0, N_MODELS, N_UNITS)
    second = (first + rng.integers(1, N_MODELS, N_UNITS)) % N_MODELS
    i, j = np.minimum(first, second), np.maximum(first, second)
    human_i = rng.random(N_UNITS) < expit(s[i] - s[j])
    verbose = np.isin(np.arange(N_MODELS), VERBOSE).astype(float)
    own = rng.random((2, N_UNITS)) < expit(s[i] - s[j] + SWAY * (verbose[i] - verbose[j]))
    llm_i = np.where(rng.random((2, N_UNITS)) < AGREE, human_i, own)
    names = np.array([f"m{k}" for k in range(N_MODELS)])
    prompts = np.array([f"u{u}" for u in range(N_UNITS)])
    a = np.concatenate([names[i], names[j]])
    b = np.concatenate([names[j], names[i]])
    winner = np.where(np.concatenate([llm_i[0], ~llm_i[1]]), "model_a", "model_b")
    llm = pd.DataFrame({"prompt": np.concatenate([prompts, prompts]), "judge": "llm", "model_a": a, "model_b": b,
                        "winner": winner})
    labelled = rng.choice(N_UNITS, N_HUMAN, replace=False)
    human = pd.DataFrame({"prompt": prompts[labelled], "judge": "human", "model_a": names[i[labelled]],
                          "model_b": names[j[labelled]],
                          "winner": np.where(human_i[labelled], "model_a", "model_b")})
    return llm, human, float((llm_i == human_i).mean())


def interval_rows(name: str, table: pd.DataFrame, s: np.ndarray, extra: dict) -> list[dict]:
    """One row per model: whether its interval covers s and the true rank, its width."""
    table = table.set_index("model").loc[[f"m{k}" for k in range(N_MODELS)]]
    ranks = _competition_ranks(s)
    covered = (table["ci_low"].to_numpy() <= s) & (s <= table["ci_high"].to_numpy())
    rank_covered = (table["rank_low"].to_numpy(float) <= ranks) & (ranks <= table["rank_high"].to_numpy(float))
    width = (table["ci_high"] - table["ci_low"]).to_numpy()
    return [dict(estimator=name, covered=c, rank_covered=rc, width=w, **extra)
            for c, rc, w in zip(covered, rank_covered, width)]


def leaderboard_rows(r: int, s: np.ndarray, bootstrap: bool) -> tuple[list[dict], float]:
    llm, human, agreement = simulate_arena(s, r)
    rows = []
    board = HumanCalibratedLeaderboard(n_bootstrap=200, seed=r).fit(llm, human)
    info = dict(lam=board.fit_.lam, worth=board.fit_.worth)
    rows += interval_rows("PPI++ (sandwich)", board.table_, s, info)
    alone = HumanCalibratedLeaderboard(n_bootstrap=200, seed=r, lam=0.0).fit(llm, human)
    rows += interval_rows("humans alone (sandwich)", alone.table_, s, dict(lam=0.0, worth=float(N_HUMAN)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        naive = Leaderboard(n_bootstrap=200, seed=r).fit(llm).table_
    rows += interval_rows("LLM alone (bootstrap)", naive, s, dict(lam=np.nan, worth=np.nan))
    if bootstrap:
        boot = HumanCalibratedLeaderboard("bootstrap", n_bootstrap=200, seed=r).fit(llm, human)
        rows += interval_rows("PPI++ (bootstrap)", boot.table_, s, dict(lam=boot.fit_.lam, worth=boot.fit_.worth))
    return rows, agreement


def simulate_preferences(r: int) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """LLM and human ``prompt, judge, model, p`` frames of replication r, and the LLM calls' agreement."""
    rng = np.random.default_rng([2, r])
    llm, human, agreed = [], [], []
    prompts = np.array([f"q{k}" for k in range(N_PROMPTS)])
    for k, rate in enumerate(RATES):
        h = (rng.random(N_PROMPTS) < rate).astype(float)
        call = np.where(rng.random((2, N_PROMPTS)) < AGREE_RATE, h, (rng.random((2, N_PROMPTS)) < 0.8))
        p = np.clip(0.15 + 0.7 * call + 0.1 + rng.normal(0.0, 0.05, call.shape), 0.0, 1.0)
        for judge in range(2):
            llm.append(pd.DataFrame({"prompt": prompts, "judge": f"llm{judge}", "model": f"w{k}", "p": p[judge]}))
        human.append(pd.DataFrame({"prompt": prompts[:N_LABELLED], "judge": "human", "model": f"w{k}",
                                   "p": h[:N_LABELLED]}))
        agreed.append((call == h).mean())
    return pd.concat(llm), pd.concat(human), float(np.mean(agreed))


def win_rate_rows(r: int) -> tuple[list[dict], float]:
    llm, human, agreement = simulate_preferences(r)
    rows = []
    truth = np.asarray(RATES)
    for name, lam in (("PPI++", None), ("humans alone", 0.0)):
        table = calibrated_win_rates(llm, human, lam=lam).set_index("model").loc[[f"w{k}" for k in range(len(RATES))]]
        covered = (table["ci_low"].to_numpy() <= truth) & (truth <= table["ci_high"].to_numpy())
        width = (table["ci_high"] - table["ci_low"]).to_numpy()
        rows += [dict(estimator=name, covered=c, width=w, lam=lam_, worth=wo)
                 for c, w, lam_, wo in zip(covered, width, table["lambda"], table["worth"])]
    return rows, agreement


def summary(rows: list[dict], reference: str, ranks: bool) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    out = []
    base = frame.loc[frame["estimator"] == reference, "width"].mean()
    for name, group in frame.groupby("estimator", sort=False):
        share = group["covered"].mean()
        row = {"estimator": name, "cells": len(group), "coverage": round(share, 4),
               "se": round(np.sqrt(share * (1 - share) / len(group)), 4),
               "mean width": round(group["width"].mean(), 4),
               "width / humans alone": round(group["width"].mean() / base, 3)}
        if ranks:
            row["rank coverage"] = round(group["rank_covered"].mean(), 4)
        row["mean lambda"] = round(group["lam"].mean(), 3)
        row["mean worth"] = round(group["worth"].mean(), 1)
        out.append(row)
    return pd.DataFrame(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--bootstrap-replications", type=int, default=40)
    args = parser.parse_args()
    s = true_strengths()
    start = time.perf_counter()
    rows, agreement = [], []
    for r in range(args.replications):
        got, agreed = leaderboard_rows(r, s, r < args.bootstrap_replications)
        rows += got
        agreement.append(agreed)
    board_seconds = time.perf_counter() - start
    print(f"Leaderboard: {args.replications} replications, LLM agreement with the humans "
          f"{np.mean(agreement):.3f}, {board_seconds:.1f} s\n")
    print(summary(rows, "humans alone (sandwich)", True).to_markdown(index=False))
    start = time.perf_counter()
    rows, agreement = [], []
    for r in range(args.replications):
        got, agreed = win_rate_rows(r)
        rows += got
        agreement.append(agreed)
    print(f"\nWin rates: {args.replications} replications, LLM agreement with the humans "
          f"{np.mean(agreement):.3f}, {time.perf_counter() - start:.1f} s\n")
    print(summary(rows, "humans alone", False).to_markdown(index=False))


if __name__ == "__main__":
    main()
