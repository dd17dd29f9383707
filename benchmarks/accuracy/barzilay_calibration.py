#!/usr/bin/env python3
"""What the simulated Barzilay panel (``sim_barzilay``) can be calibrated to: Kim, Zhai, Han 2010, Table 1 at noise 0.

    python -m benchmarks.accuracy.barzilay_calibration [--replicates 20] [--out benchmarks/results]

The panel is one Mallows dispersion phi per dataset (``manyjudges.orderings.simulate``),
calibrated so the judges' mean pairwise Kendall tau is ``target_mean_tau`` (0.45), which is
the paper's AC-tau ED at noise 0 (0.454; docs/methods.md, section 3.7). This script asks
which other noise-0 values of the paper's Table 1 the same single parameter reaches:

1. ``default``: the pipeline's own panel (``config/config.yaml``'s seed and shape, phi
   calibrated as the pipeline does): each paper method's ED at noise 0, and the mean pairwise
   Kendall tau and Spearman rho of the judges;
2. ``grid``: for each phi of a grid, ``--replicates`` panels of the same shape (other random streams),
   each method's mean ED at noise 0 over them;
3. ``implied``: per method, the phi at which its mean ED equals the paper's (linear
   interpolation on the grid), and the mean pairwise tau (AC-tau's ED) there. One phi can
   match two methods only if their implied taus agree;
4. ``mixture``: a candidate second parameter, not used by the pipeline: two schools of judges,
   the first half of each set's judges Mallows(phi) around the reference A, the others around
   B = one Mallows(phi_b) draw around A (phi_b = 1: B unrelated to A). For each phi_b, phi is
   interpolated on a grid so the mean pairwise tau is the paper's AC-tau ED, and every method's
   mean ED is read there.

Writes ``<out>/barzilay_calibration_{default,grid,implied,mixture}.tsv`` and a ``.md`` summary. The
methods and their parameters are those of ``config/config.yaml`` (FreSPA: minSup 0.75,
minLen 2, wLen = wSup = 1). Every draw is seeded; two runs give the same tables.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from manyjudges.core.correlation import kendall_tau_matrix, spearman_rho_matrix
from manyjudges.core.random_streams import rng_for
from manyjudges.core.ranks import ranks_from_orders
from manyjudges.orderings.evaluation import leave_one_out_differences
from manyjudges.orderings.experiment import panels_from_table
from manyjudges.orderings.registry import make_ordering_scorer
from manyjudges.orderings.simulate import calibrate_dispersion, mallows_orders, simulate_ordering_panel
from manyjudges.reporting.paper_values import paper_values

REPO = Path(__file__).resolve().parents[2]
PAPER_METHODS = ["ac_tau", "ac_sp", "wca_tau", "wca_sp", "rba_tau", "rba_sp", "frespa"]
#: Mallows dispersions of the grid (mean pairwise tau about 0.80 down to 0.09 at these set sizes)
PHI_GRID = [0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8]
#: the two-school panels: the second reference's distance (phi_b) and the grid phi is interpolated on
MIXTURE_PHI_B = [0.5, 0.6, 0.7, 0.8, 0.9]
MIXTURE_PHI = [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]


def mean_offdiagonal(matrix: np.ndarray) -> float:
    n = len(matrix)
    return float((matrix.sum() - np.trace(matrix)) / (n * (n - 1)))


def panel_measures(panels: dict[str, np.ndarray], scorers: dict[str, object]) -> dict[str, float]:
    """Noise-0 ED of every scorer (macro average over sets) and the mean pairwise tau / rho."""
    out = {m: float(np.mean([leave_one_out_differences(s, ranks).mean() for ranks in panels.values()]))
           for m, s in scorers.items()}
    out["mean_tau"] = float(np.mean([mean_offdiagonal(kendall_tau_matrix(r)) for r in panels.values()]))
    out["mean_rho"] = float(np.mean([mean_offdiagonal(spearman_rho_matrix(r)) for r in panels.values()]))
    return out


def mallows_panels(seed: int, replicate: int, phi: float, items: list[int], judges: int) -> dict[str, np.ndarray]:
    panels = {}
    for s, k in enumerate(items):
        rng = rng_for(seed, "barzilay_calibration", f"{phi:g}", replicate, s)
        panels[f"s{s + 1:02d}"] = ranks_from_orders(mallows_orders(rng, rng.permutation(k), phi, judges))
    return panels


def mixture_panels(seed: int, replicate: int, phi: float, phi_b: float, items: list[int],
                   judges: int) -> dict[str, np.ndarray]:
    """Two schools: judges // 2 judges Mallows(phi) around A, the rest around B ~ Mallows(A, phi_b)."""
    panels = {}
    for s, k in enumerate(items):
        rng = rng_for(seed, "barzilay_mixture", f"{phi:g}", f"{phi_b:g}", replicate, s)
        a = rng.permutation(k)
        b = mallows_orders(rng, a, phi_b, 1)[0]
        half = judges // 2
        orders = np.vstack([mallows_orders(rng, a, phi, half), mallows_orders(rng, b, phi, judges - half)])
        panels[f"s{s + 1:02d}"] = ranks_from_orders(orders)
    return panels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=20, help="panels per phi of the grid (default 20)")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    spec = config["orderings"]["datasets"]["sim_barzilay"]
    items, judges = [int(k) for k in spec["items_per_set"]], int(spec["judges_per_set"])
    methods = config["orderings"]["methods"]
    scorers = {m: make_ordering_scorer(m, (methods.get(m) or {}).get("params")) for m in PAPER_METHODS}
    paper = paper_values("kim2010")
    paper = paper[(paper["table"] == "1") & (paper["noise_ratio"] == 0)].set_index("method")["paper_value"]
    paper = paper.astype(float)
    start = time.perf_counter()

    # 1. the pipeline's own panel
    table = simulate_ordering_panel(config["seed"], items, judges, spec["target_mean_tau"])
    phi0 = calibrate_dispersion(spec["target_mean_tau"], sorted(set(items)), seed=config["seed"])
    own = panel_measures(panels_from_table(table), scorers)
    default = pd.DataFrame([{"measure": m, "ours": own[m], "paper": paper.get(m, np.nan),
                             "ours_minus_paper": own[m] - paper.get(m, np.nan)}
                            for m in PAPER_METHODS + ["mean_tau", "mean_rho"]])
    default.to_csv(args.out / "barzilay_calibration_default.tsv", sep="\t", index=False, float_format="%.4f")

    # 2. expected values over a grid of phi
    rows = []
    for phi in PHI_GRID + [phi0]:
        draws = [panel_measures(mallows_panels(config["seed"], r, phi, items, judges), scorers)
                 for r in range(args.replicates)]
        frame = pd.DataFrame(draws)
        rows.append({"phi": phi, **frame.mean().to_dict(), **{f"{c}_sd": v for c, v in frame.std(ddof=1).items()}})
    grid = pd.DataFrame(rows).sort_values("phi").drop_duplicates("phi").reset_index(drop=True)
    grid.to_csv(args.out / "barzilay_calibration_grid.tsv", sep="\t", index=False, float_format="%.4f")

    # 3. per method, the phi (and mean pairwise tau) its paper value implies
    implied = []
    for m in PAPER_METHODS:
        ed = grid[m].to_numpy()  # falls as phi rises
        target = float(paper[m])
        if not ed.min() <= target <= ed.max():
            implied.append({"method": m, "paper": target, "phi": np.nan, "mean_tau": np.nan})
            continue
        phi = float(np.interp(target, ed[::-1], grid["phi"].to_numpy()[::-1]))
        tau = float(np.interp(phi, grid["phi"], grid["mean_tau"]))
        implied.append({"method": m, "paper": target, "phi": phi, "mean_tau": tau})
    implied = pd.DataFrame(implied)
    implied.to_csv(args.out / "barzilay_calibration_implied.tsv", sep="\t", index=False, float_format="%.4f")

    # 4. a second parameter: two schools of judges
    target_tau = float(paper["ac_tau"])
    mixture = []
    for phi_b in MIXTURE_PHI_B:
        frame = pd.DataFrame([{"phi": phi, **pd.DataFrame(
            [panel_measures(mixture_panels(config["seed"], r, phi, phi_b, items, judges), scorers)
             for r in range(args.replicates)]).mean().to_dict()} for phi in MIXTURE_PHI])
        taus = frame["mean_tau"].to_numpy()[::-1]  # rising
        if not taus.min() <= target_tau <= taus.max():
            continue
        phi = float(np.interp(target_tau, taus, frame["phi"].to_numpy()[::-1]))
        row = {"phi_b": phi_b, "phi": phi}
        row.update({c: float(np.interp(phi, frame["phi"], frame[c])) for c in PAPER_METHODS + ["mean_tau", "mean_rho"]})
        mixture.append(row)
    mixture = pd.DataFrame(mixture)
    mixture.to_csv(args.out / "barzilay_calibration_mixture.tsv", sep="\t", index=False, float_format="%.4f")

    at0 = grid[np.isclose(grid["phi"], phi0)].iloc[0]
    lines = [
        "# sim_barzilay: what one Mallows dispersion can match (Kim, Zhai, Han 2010, Table 1, noise 0)", "",
        f"Set sizes {items}, {judges} judges per set; methods and parameters of config/config.yaml; "
        f"{args.replicates} panels per phi; {time.perf_counter() - start:.0f} s.", "",
        f"## The pipeline's panel (seed {config['seed']}, phi {phi0:.4f}) and the mean over "
        f"{args.replicates} panels at that phi", "",
        "| measure | paper | this panel | mean over panels (sd) |", "|---|---|---|---|",
    ]
    for _, r in default.iterrows():
        p = "" if np.isnan(r["paper"]) else f"{r['paper']:.3f}"
        lines.append(f"| {r['measure']} | {p} | {r['ours']:.3f} | {at0[r['measure']]:.3f} "
                     f"({at0[r['measure'] + '_sd']:.3f}) |")
    lines += ["", "## Per method: the dispersion its paper value implies", "",
              "| method | paper ED | phi | judges' mean pairwise tau there |", "|---|---|---|---|"]
    for _, r in implied.iterrows():
        lines.append(f"| {r['method']} | {r['paper']:.3f} | "
                     + ("outside the grid | |" if np.isnan(r["phi"]) else f"{r['phi']:.3f} | {r['mean_tau']:.3f} |"))
    lines += ["", "## Mean ED by phi", "", "| phi | mean tau | mean rho | " + " | ".join(PAPER_METHODS) + " |",
              "|---|---|---|" + "---|" * len(PAPER_METHODS)]
    for _, r in grid.iterrows():
        lines.append(f"| {r['phi']:.4f} | {r['mean_tau']:.3f} | {r['mean_rho']:.3f} | "
                     + " | ".join(f"{r[m]:.3f}" for m in PAPER_METHODS) + " |")
    lines += ["", f"## Two schools of judges (phi_b), phi set so the mean pairwise tau is {target_tau:g}", "",
              "| phi_b | phi | mean rho / mean tau | " + " | ".join(PAPER_METHODS) + " |",
              "|---|---|---|" + "---|" * len(PAPER_METHODS),
              "| paper | | " + f"{float(paper['ac_sp']) / target_tau:.2f} | "
              + " | ".join(f"{float(paper[m]):.3f}" for m in PAPER_METHODS) + " |"]
    for _, r in mixture.iterrows():
        lines.append(f"| {r['phi_b']:g} | {r['phi']:.3f} | {r['mean_rho'] / r['mean_tau']:.2f} | "
                     + " | ".join(f"{r[m]:.3f}" for m in PAPER_METHODS) + " |")
    (args.out / "barzilay_calibration.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
