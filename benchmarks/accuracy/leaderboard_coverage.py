"""Coverage of the leaderboard's bootstrap intervals on simulated arenas with known strengths.

    python -m benchmarks.accuracy.leaderboard_coverage [--replications 200] [--bootstrap 1000] [--out benchmarks/runs]

Writes ``<out>/leaderboard_coverage.tsv`` and ``.md`` and prints the table.

Protocol. One arena design, fixed: M = 12 models with true log-strengths s ~ N(0, 0.6^2) drawn
once (``default_rng(0)``) and centred to mean 0, tie parameter nu = 0.6, 2,000 verdicts on 40
prompts. Each of R replications draws a new arena (``default_rng([1, r])``): every verdict picks
a prompt uniformly, an ordered pair of distinct models uniformly (model_a shown first), and its
outcome from the Davidson (1970) model: P(a wins) = pi_a / D, P(b wins) = pi_b / D,
P(tie) = nu sqrt(pi_a pi_b) / D, D = pi_a + pi_b + nu sqrt(pi_a pi_b). Verdicts are independent
given the strengths (no prompt effect), so resampling verdicts and resampling prompts are both
valid. For each replication, method (``davidson``, ``bradley_terry``: default parameters,
reg = 0.01) and resampling unit (verdicts, prompts), ``Leaderboard(method, n_bootstrap=B,
resample=unit, ci=0.95, seed=r).fit(verdicts)`` gives 95% percentile intervals.

Targets: for ``davidson`` the true s (it is the model that generated the data); for
``bradley_terry`` with half ties, which is not the generating model, its pseudo-true value: the
Bradley-Terry (reg = 0) fit to the expected cell counts of the design (every pair equally often,
outcomes at their Davidson probabilities), i.e. what the estimator converges to. The true rank is
the rank of the target. Reported: score coverage (share of (replication, model) intervals
containing the target, with its binomial standard error), the models' lowest and highest
coverage, the mean interval width, rank coverage (the target's rank in [rank_low, rank_high])
and the mean rank-interval width.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness.timing import write_tables
from manyjudges.arena import Leaderboard
from manyjudges.arena.leaderboard.cells import HI_WINS, LO_WINS, TIE, cells_from_codes
from manyjudges.arena.leaderboard.rank_intervals import _competition_ranks
from manyjudges.arena.leaderboard.ratings import ArenaBradleyTerry

N_MODELS, SD, NU, N_VERDICTS, N_PROMPTS = 12, 0.6, 0.6, 2000, 40


def true_strengths() -> np.ndarray:
    s = np.random.default_rng(0).normal(0.0, SD, N_MODELS)
    return s - s.mean()


def simulate_arena(s: np.ndarray, nu: float, n: int, n_prompts: int, rng: np.random.Generator) -> pd.DataFrame:
    """Verdicts from the Davidson model (module docstring)."""
    m = len(s)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    pa, pb = np.exp(s[a]), np.exp(s[b])
    pt = nu * np.sqrt(pa * pb)
    u = rng.random(n) * (pa + pb + pt)
    winner = np.where(u < pa, "model_a", np.where(u < pa + pb, "model_b", "tie")).astype(object)
    names = np.array([f"m{i:02d}" for i in range(m)], dtype=object)
    return pd.DataFrame({"prompt": [f"p{i}" for i in rng.integers(0, n_prompts, n)], "model_a": names[a],
                         "model_b": names[b], "winner": winner})


def bt_pseudo_truth(s: np.ndarray, nu: float) -> np.ndarray:
    """Bradley-Terry (half ties, reg 0) on the expected outcome shares of every pair, centred."""
    m = len(s)
    lo, hi = np.triu_indices(m, k=1)
    pl, ph = np.exp(s[lo]), np.exp(s[hi])
    pt = nu * np.sqrt(pl * ph)
    d = pl + ph + pt
    codes = [np.tile(x, 3) for x in (lo, hi)]
    outcome = np.repeat([LO_WINS, HI_WINS, TIE], len(lo))
    cells, row = cells_from_codes(codes[0], codes[1], outcome, np.zeros(len(outcome), dtype=np.int64), m, 1)
    counts = np.zeros(cells.n_cells)
    counts[row] = np.concatenate([pl / d, ph / d, pt / d])
    fit = ArenaBradleyTerry(reg=0.0).fit_cells(cells, counts).scores
    return fit - fit.mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--out", default="benchmarks/runs")
    args = parser.parse_args()
    s = true_strengths()
    targets = {"davidson": s, "bradley_terry": bt_pseudo_truth(s, NU)}
    names = [f"m{i:02d}" for i in range(N_MODELS)]
    hits: dict[tuple[str, str], list[np.ndarray]] = {}
    start = time.perf_counter()
    for r in range(args.replications):
        verdicts = simulate_arena(s, NU, N_VERDICTS, N_PROMPTS, np.random.default_rng([1, r]))
        for method, target in targets.items():
            true_rank = _competition_ranks(target)
            for unit in ("verdicts", "prompts"):
                table = Leaderboard(method, n_bootstrap=args.bootstrap, resample=unit, ci=0.95,
                                    seed=r).fit(verdicts).table_.set_index("model").loc[names]
                inside = (table["ci_low"].to_numpy() <= target) & (target <= table["ci_high"].to_numpy())
                rank_in = ((table["rank_low"].to_numpy(dtype=float) <= true_rank)
                           & (true_rank <= table["rank_high"].to_numpy(dtype=float)))
                hits.setdefault((method, unit), []).append(np.stack([
                    inside, table["ci_high"].to_numpy() - table["ci_low"].to_numpy(), rank_in,
                    table["rank_high"].to_numpy(dtype=float) - table["rank_low"].to_numpy(dtype=float)]))
        if (r + 1) % 20 == 0:
            print(f"{r + 1}/{args.replications} replications, {time.perf_counter() - start:.0f} s", flush=True)
    rows = []
    for (method, unit), parts in hits.items():
        x = np.array(parts)  # (R, 4, models)
        cover = x[:, 0].mean()
        per_model = x[:, 0].mean(axis=0)
        rows.append({"method": method, "resample": unit, "replications": len(parts), "bootstrap": args.bootstrap,
                     "score_coverage": round(cover, 4),
                     "se": round(float(np.sqrt(cover * (1 - cover) / x[:, 0].size)), 4),
                     "model_min": round(per_model.min(), 3), "model_max": round(per_model.max(), 3),
                     "mean_width": round(x[:, 1].mean(), 4), "rank_coverage": round(x[:, 2].mean(), 4),
                     "mean_rank_width": round(x[:, 3].mean(), 3)})
    seconds = time.perf_counter() - start
    write_tables(rows, list(rows[0]), Path(args.out), "leaderboard_coverage", "Leaderboard interval coverage",
                 [f"{N_MODELS} models, s ~ N(0, {SD}^2), nu = {NU}, {N_VERDICTS} verdicts on {N_PROMPTS} prompts",
                  f"{args.replications} replications x {args.bootstrap} bootstrap replicates, 95% percentile intervals",
                  f"total {seconds:.0f} s"])
    print(f"total {seconds:.0f} s")
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
