"""Time a leaderboard resumed with a few new verdicts against a one-pass fit of all of them, on llmfao.

    python -m benchmarks.speed.leaderboard_resume --mirror DIR [--fractions 0.01 0.1] [--methods M ...] [--repeats 5]
                                                  [--simulated N ...] [--out benchmarks/runs]

Writes ``<out>/resume_speed.tsv`` and ``.md`` and prints the table.

Protocol. The llmfao crowd's verdicts (``crowd-comparisons.csv`` of the pinned llmfao source under the
mirror, 8,931 verdicts: prompt, judge = worker, model_a = left, model_b = right, winner) in one DataFrame.
For each fraction f, the new verdicts are round(f x n) rows drawn without replacement by
``numpy.random.default_rng(0).permutation``, the old ones the others (file order kept in both). For each
method, with ``--bootstrap 0`` (no intervals) and the method's default parameters, in one process with
BLAS on one thread (threadpoolctl), each measured ``--repeats`` times and the median reported, the
DataFrames already in memory:

* ``one_pass``: ``Leaderboard(method).fit(all)``, all = the old and new verdicts concatenated;
* ``resume``: ``LeaderboardState.load(old_state)`` + ``Leaderboard(method).partial_fit(new, state=state)``
  + ``board.state_.save(new_state)``, where old_state was written once, untimed, by
  ``Leaderboard(method).fit(old).state_.save``;
* ``state_kb``: the size of the state file after resuming, in kB.

``max_abs_score`` is the largest absolute difference between the resumed scores and the one-pass scores.

With ``--simulated N ...``, the same on N verdicts simulated as ``benchmarks/speed/leaderboard.py``
simulates them (``simulate(N, 100)``: 100 models, 500 prompts, no judge column, ``default_rng(0)``), for
the methods of ``--methods`` that need no judge column; ``data`` names the verdicts.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchmarks.speed.leaderboard import simulate
from manyjudges.arena import Leaderboard
from manyjudges.arena.leaderboard.state import LeaderboardState

METHODS = ["bradley_terry", "davidson", "elo", "crowd_bt", "judge_aware"]


def llmfao(mirror: Path) -> pd.DataFrame:
    """The llmfao crowd's verdicts as a verdicts table."""
    path, = (mirror / "dustalov" / "llmfao").glob("*/crowd-comparisons.csv")
    table = pd.read_csv(path)
    return pd.DataFrame({"prompt": table["prompt"].astype(str), "judge": table["worker"].astype(str),
                         "model_a": table["left"], "model_b": table["right"],
                         "winner": table["winner"].map({"left": "model_a", "right": "model_b", "tie": "tie"})})


def median_seconds(call: Callable[[], object], repeats: int) -> float:
    """The median wall time of ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def one_row(method: str, old: pd.DataFrame, new: pd.DataFrame, folder: Path, repeats: int) -> dict[str, object]:
    """Time one method at one split (module docstring)."""
    both = pd.concat([old, new], ignore_index=True)
    Leaderboard(method).fit(old).state_.save(folder / "old.npz")

    def resume() -> Leaderboard:
        board = Leaderboard(method).partial_fit(new, state=LeaderboardState.load(folder / "old.npz"))
        board.state_.save(folder / "new.npz")
        return board

    one_seconds = median_seconds(lambda: Leaderboard(method).fit(both), repeats)
    resume_seconds = median_seconds(resume, repeats)
    diff = np.abs(resume().scores_ - Leaderboard(method).fit(both).scores_).max()
    return {"method": method, "new_verdicts": len(new), "old_verdicts": len(old), "one_pass_s": one_seconds,
            "resume_s": resume_seconds, "ratio": resume_seconds / one_seconds,
            "state_kb": os.path.getsize(folder / "new.npz") / 1000, "max_abs_score": float(diff)}


def main() -> None:
    """Run the protocol of the module docstring and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.01, 0.1])
    parser.add_argument("--methods", nargs="+", default=METHODS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--simulated", type=int, nargs="*", default=[])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/runs"))
    args = parser.parse_args()
    if args.mirror is None:
        parser.error("--mirror DIR (or MANYJUDGES_MIRROR) is needed: the llmfao file is read from it")
    sources = [("llmfao", llmfao(args.mirror), args.methods)]
    without_judges = [m for m in args.methods if m not in ("crowd_bt", "judge_aware")]
    sources += [(f"simulated {n:,}", simulate(n, 100), without_judges) for n in args.simulated]
    rows = []
    with threadpool_limits(1), tempfile.TemporaryDirectory() as tmp:
        for name, verdicts, methods in sources:
            for fraction in args.fractions:
                chosen = np.random.default_rng(0).permutation(len(verdicts))[:round(fraction * len(verdicts))]
                is_new = np.zeros(len(verdicts), dtype=bool)
                is_new[chosen] = True
                for method in methods:
                    row = one_row(method, verdicts[~is_new], verdicts[is_new], Path(tmp), args.repeats)
                    rows.append({"data": name, **row})
                    print(f"done: {rows[-1]}", file=sys.stderr, flush=True)  # progress
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "resume_speed.tsv", sep="\t", index=False)
    (args.out / "resume_speed.md").write_text(table.to_markdown(index=False, floatfmt=".4g") + "\n")
    print(table.to_markdown(index=False, floatfmt=".4g"))


if __name__ == "__main__":
    main()
