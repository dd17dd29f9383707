"""Style control on simulated arenas where the verbose models are the weak ones.

    python -m benchmarks.accuracy.style_control [--arenas 10] [--bootstrap 200]

Prints one row per (scenario, arena) and the means per scenario, as a Markdown table.

Protocol. M = 10 models with true log-strengths s = 10 evenly spaced values from -1 to 1. Each model m
has a verbosity mu_m = log(300) - 0.8 s_m (the mean log length of its answers: the weakest model's
answers are about 5 times as long as the strongest's), and each (prompt, model) answer's log length is
drawn N(mu_m, 0.5^2) (``simulate_panel(verbosity=..., verbosity_sd=0.5)``). 60 prompts, 15 distinct
model pairs drawn per prompt, each shown to every one of 4 judges in one order drawn per verdict;
outcomes by Davidson's model with nu = 0.3, the answer shown first's log-strength raised by the judge's
length sway c_j (log L_first - log L_second). Scenario "length rewarded": c_j = 1.0, 1.5, 2.0, 2.5 for
the four judges; "mildly rewarded": c_j = 0.2, 0.3, 0.4, 0.5; "no length bias": c_j = 0 for all. Arena r
(r = 0, 1, ...) is drawn by ``simulate_panel(r, ...)``. Per arena: ``Leaderboard()`` (raw Bradley-Terry,
ties half, reg 0.01) and ``Leaderboard(control=("length",))`` (the same with the standardised normalised
length difference as a covariate), no bootstrap; Spearman's rho of each one's scores with s, and the
length coefficient; ``length_preference(verdicts)``: Spearman's rho of the judges' length preferences
with their c_j (not when the c_j are equal), and how many of the 4 judges' 95% Wald intervals lie wholly
above 0 (c_j > 0) or hold 0 (c_j = 0); per scenario their means and the arenas where the controlled rho
is above, below, and at least 0.9. Seconds: the controlled fit with ``n_bootstrap`` replicates
resampling prompts, on arena 0 of each scenario, timed once; and on arena 0 of "length rewarded" drawn
with 600 prompts (36,000 verdicts), without and with control, timed once. Target: the controlled rho >=
0.9 and above the raw rho in "length rewarded".
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from manyjudges.arena import Leaderboard
from manyjudges.arena.length_preference import length_preference
from manyjudges.arena.panel_simulation import PanelJudge, simulate_panel

STRENGTHS = pd.Series(np.linspace(-1.0, 1.0, 10), index=[f"m{i:02d}" for i in range(10)])
VERBOSITY = dict(zip(STRENGTHS.index, np.log(300.0) - 0.8 * STRENGTHS.to_numpy()))
SCENARIOS = {"length rewarded": (1.0, 1.5, 2.0, 2.5), "mildly rewarded": (0.2, 0.3, 0.4, 0.5),
             "no length bias": (0.0, 0.0, 0.0, 0.0)}


def arena(seed: int, weights: tuple[float, ...], n_prompts: int = 60) -> pd.DataFrame:
    """Return one simulated arena's verdicts (module docstring)."""
    judges = [PanelJudge(f"j{k}", style={"length": c} if c else {}) for k, c in enumerate(weights)]
    return simulate_panel(seed, STRENGTHS, judges, n_prompts, pairs_per_prompt=15, both_orders=False, nu=0.3,
                          verbosity=VERBOSITY, verbosity_sd=0.5).verdicts


def one_arena(seed: int, weights: tuple[float, ...]) -> dict[str, float]:
    """Spearman's rho of the raw and the controlled scores with the true strengths, the coefficient, and the judges.

    ``rho_judges``: Spearman's rho of the judges' length_preference with their c_j (NaN when the c_j are equal);
    ``covered``: the judges whose Wald interval holds 0 when c_j = 0, or is wholly on c_j's side of 0.
    """
    verdicts = arena(seed, weights)
    raw = Leaderboard().fit(verdicts).scores_.loc[STRENGTHS.index]
    controlled = Leaderboard(control=("length",)).fit(verdicts)
    judges = length_preference(verdicts)
    c = np.asarray(weights)
    low, high = judges["length_low"].to_numpy(), judges["length_high"].to_numpy()
    right_side = np.where(c > 0, low > 0, np.where(c < 0, high < 0, (low < 0) & (high > 0)))
    return {"rho_raw": float(spearmanr(raw, STRENGTHS).statistic),
            "rho_controlled": float(spearmanr(controlled.scores_.loc[STRENGTHS.index], STRENGTHS).statistic),
            "coefficient": float(controlled.coefficients_["coefficient"].iloc[0]),
            "rho_judges": float(spearmanr(judges["length_preference"], c).statistic) if np.ptp(c) > 0 else np.nan,
            "covered": int(right_side.sum()), "verdicts": len(verdicts)}


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arenas", type=int, default=10)
    parser.add_argument("--bootstrap", type=int, default=200)
    args = parser.parse_args()
    rows = []
    for name, weights in SCENARIOS.items():
        for seed in range(args.arenas):
            rows.append({"scenario": name, "arena": seed, **one_arena(seed, weights)})
    table = pd.DataFrame(rows)
    print(table.to_markdown(index=False, floatfmt=".3f"))
    means = table.groupby("scenario", sort=False)[["rho_raw", "rho_controlled", "coefficient", "rho_judges",
                                                   "covered"]].mean()
    for column, seen in (("controlled_above_raw", table["rho_controlled"] > table["rho_raw"]),
                         ("controlled_below_raw", table["rho_controlled"] < table["rho_raw"]),
                         ("controlled_at_least_0.9", table["rho_controlled"] >= 0.9)):
        means[column] = seen.groupby(table["scenario"], sort=False).sum().astype(int).astype(str)
    for name, weights in SCENARIOS.items():
        verdicts = arena(0, weights)
        start = time.perf_counter()
        Leaderboard(control=("length",), n_bootstrap=args.bootstrap, resample="prompts").fit(verdicts)
        means.loc[name, "seconds"] = time.perf_counter() - start
    print()
    print(means.to_markdown(floatfmt=".3f"))
    large = arena(0, SCENARIOS["length rewarded"], 600)
    for control in ((), ("length",)):
        start = time.perf_counter()
        Leaderboard(control=control, n_bootstrap=args.bootstrap, resample="prompts").fit(large)
        print(f"{len(large)} verdicts, control {control or 'none'}: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
