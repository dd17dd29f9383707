"""Time the win rates against a baseline, raw and length-controlled, with and without the bootstrap.

    python -m benchmarks.speed.win_rates [--prompts 805] [--models 30] [--bootstrap 1000] [--seed 0]

Prints a Markdown table.

Protocol. A simulated AlpacaEval-sized table: every one of --models models against the baseline on
every one of --prompts prompts (one verdict each, the baseline shown second), p_b uniform on [0, 1],
length_a and length_b normal with mean 1000 and sd 300, all from numpy's default_rng(--seed). In one
process, with BLAS limited to one thread (threadpoolctl), each call of baseline_win_rates timed once
from the DataFrame: raw without bootstrap, raw with --bootstrap replicates, length-controlled
(control="length") without bootstrap, and length-controlled with --bootstrap replicates.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from manyjudges.arena.winrate.baseline import baseline_win_rates


def simulated(n_prompts: int, n_models: int, seed: int) -> pd.DataFrame:
    """Return the protocol's table: every model against the baseline on every prompt."""
    rng = np.random.default_rng(seed)
    prompt = np.repeat(np.arange(n_prompts), n_models)
    model = np.tile(np.arange(n_models), n_prompts)
    n = len(prompt)
    return pd.DataFrame({"prompt": [f"q{i}" for i in prompt], "judge": "j", "model_a": [f"m{i}" for i in model],
                         "model_b": "baseline", "winner": "tie", "p_b": rng.random(n),
                         "length_a": rng.normal(1000, 300, n), "length_b": rng.normal(1000, 300, n)})


def main() -> None:
    """Run the protocol and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=805)
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    frame = simulated(args.prompts, args.models, args.seed)
    runs = [("raw", {}), (f"raw, {args.bootstrap} replicates", {"n_bootstrap": args.bootstrap}),
            ("length-controlled", {"control": "length"}),
            (f"length-controlled, {args.bootstrap} replicates", {"control": "length", "n_bootstrap": args.bootstrap})]
    print(f"{len(frame):,} verdicts ({args.prompts} prompts x {args.models} models against the baseline)\n")
    print("| win rate | seconds |\n|---|---|")
    with threadpool_limits(1):
        for name, kwargs in runs:
            start = time.perf_counter()
            baseline_win_rates(frame, "baseline", seed=args.seed, **kwargs)
            print(f"| {name} | {time.perf_counter() - start:.2f} |")


if __name__ == "__main__":
    main()
