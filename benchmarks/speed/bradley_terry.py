"""Time Bradley-Terry fits: ours (manyjudges) against choix and crowd-kit, on the same preferences.

    python -m benchmarks.speed.bradley_terry [--data FILE] [--out benchmarks/runs] [--repeats 3] [--reg 0.01]

Writes ``<out>/bradley_terry.tsv`` and ``<out>/bradley_terry.md`` and prints the table.

Data sets (each one topic's strict preferences; ties and pairs of an item with itself dropped):

* ``simulated``: 200 items with Bradley-Terry scores N(0, 1.5^2), 40 judges x 500 random
  pairs = 20,000 comparisons, outcomes drawn from the model (``default_rng(0)``);
* ``trec_rf10:<topic>``: the TREC 2010 Relevance Feedback crowd topic with the most labels
  (trec-rf10-data.txt from the data mirror, labels 0/1/2, broken-link answers -2 dropped),
  ratings -> preferences by eq (5) of Niu et al. (``judgments.topics_from_ratings``); skipped
  when the file is missing.

Implementations (the preparation of each library's input from the topic is not timed,
except ours, whose ``fit`` includes it):

* ``manyjudges``   ``BradleyTerry(reg).fit(topic)``: ridge reg ||s||^2 / 2, solver "auto"
                   (damped Newton here); ``manyjudges_lbfgs`` the same with ``solver="lbfgs"``;
* ``choix_opt``    ``choix.opt_pairwise(n, data, alpha=reg / 2)`` (Newton-CG, its defaults;
                   choix's penalty is alpha ||s||^2, so this is the same objective);
* ``choix_ilsr``   ``choix.ilsr_pairwise(n, data, alpha=reg / 2)`` (the same alpha, but here it
                   is a pseudo-count rate of the Markov chain: a different regulariser);
* ``crowdkit``     ``crowdkit.aggregation.BradleyTerry(n_iter, tol).fit(df)`` on a DataFrame
                   ``judge, left, right, label`` (label = the winner): Hunter's MM, no
                   regulariser; its scores are probabilities (rank-compared only). crowd-kit
                   1.4.2 stops after its second MM iteration whatever n_iter and tol (its
                   ``p_old = p_new`` aliases the array it then updates in place, so the change
                   it tests is 0); the notes say whether the result equals ``n_iter=2``.

Each call is timed ``--repeats`` times and the best is reported, with BLAS limited to
``--blas-threads`` (default 1) by threadpoolctl: on a shared 2-CPU machine OpenBLAS's
spinning threads made a 15 ms Newton fit take up to 3 s, whichever library ran. Agreement: Spearman and
Kendall (tau-b) between each implementation's score vector and ours, over the items it scores;
on ``simulated`` also Kendall against the true scores.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, spearmanr

from benchmarks.harness.timing import best_of_n, trec_rf10_file, write_tables

BROKEN_LINK = -2
COLUMNS = ("dataset", "implementation", "n_items", "n_comparisons", "n_pairs", "settings", "seconds",
           "spearman_vs_ours", "kendall_vs_ours", "kendall_vs_truth", "status", "notes")


def simulated_topic(n_items: int = 200, n_judges: int = 40, per_judge: int = 500, seed: int = 0):
    """(topic, true scores): random pairs per judge, outcomes from the Bradley-Terry model."""
    from manyjudges.crowd.judgments import TopicJudgments

    rng = np.random.default_rng(seed)
    truth = rng.normal(0.0, 1.5, n_items)
    judge = np.repeat(np.arange(n_judges), per_judge)
    left = rng.integers(0, n_items, len(judge))
    right = (left + rng.integers(1, n_items, len(judge))) % n_items
    outcome = np.where(rng.random(len(judge)) < 1.0 / (1.0 + np.exp(truth[right] - truth[left])), 1, -1)
    topic = TopicJudgments("simulated", np.array([f"d{i}" for i in range(n_items)], dtype=object),
                           np.array([f"w{k}" for k in range(n_judges)], dtype=object),
                           judge, left, right, outcome.astype(np.int8))
    return topic, truth


def trec_rf10_topic(path: Path):
    """The topic of trec-rf10-data.txt with the most labels (header ``topicID workerID docID gold label``)."""
    from manyjudges.crowd.judgments import topics_from_ratings

    df = pd.read_csv(path, sep="\t", dtype={"topicID": str, "workerID": str, "docID": str})
    df = df[df["label"] != BROKEN_LINK]
    topic_id = df["topicID"].value_counts().sort_index().idxmax()  # most labels; ties: smallest id
    rows = df[df["topicID"] == topic_id]
    # a judge's repeated rating of a doc: keep the first, as the library's parse_trec_rf10 does
    rows = rows.drop_duplicates(["topicID", "workerID", "docID"], keep="first")
    table = pd.DataFrame({"topic": rows["topicID"], "judge": rows["workerID"], "item": rows["docID"],
                          "grade": rows["label"].astype(int)})
    return topics_from_ratings(table)[topic_id], len(rows)


def agreement(scores: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(Spearman, Kendall tau-b) over the items where both are finite."""
    ok = np.isfinite(scores) & np.isfinite(reference)
    return float(spearmanr(scores[ok], reference[ok])[0]), float(kendalltau(scores[ok], reference[ok])[0])


def bench_dataset(name: str, topic, truth: np.ndarray | None, reg: float, repeats: int,
                  crowdkit_iter: int, crowdkit_tol: float) -> list[dict]:
    import choix
    from crowdkit.aggregation import BradleyTerry as CrowdKitBT

    from manyjudges.crowd.bradley_terry import BradleyTerry, pair_counts, strict_pairs

    n = topic.n_items
    judge, win, lose = strict_pairs(topic)
    data = list(zip(win.tolist(), lose.tolist()))
    frame = pd.DataFrame({"judge": judge, "left": win, "right": lose, "label": win})
    n_pairs = len(pair_counts(win, lose, n)[0])
    base = {"dataset": name, "n_items": n, "n_comparisons": len(win), "n_pairs": n_pairs}

    def run_crowdkit(n_iter: int = crowdkit_iter) -> np.ndarray:
        fit = CrowdKitBT(n_iter=n_iter, tol=crowdkit_tol).fit(frame)
        out = np.full(n, np.nan)
        out[fit.scores_.index.to_numpy(dtype=np.int64)] = fit.scores_.to_numpy()
        return out

    runs = (
        ("manyjudges", f"reg={reg:g}, solver auto (Newton), tol 1e-8",
         lambda: BradleyTerry(reg=reg).fit(topic).scores_),
        ("manyjudges_lbfgs", f"reg={reg:g}, solver lbfgs (L-BFGS-B), gtol 1e-8",
         lambda: BradleyTerry(reg=reg, solver="lbfgs").fit(topic).scores_),
        ("choix_opt", f"alpha={reg / 2:g}, Newton-CG, tol 1e-5 (default)",
         lambda: choix.opt_pairwise(n, data, alpha=reg / 2)),
        ("choix_ilsr", f"alpha={reg / 2:g}, tol 1e-8, max_iter 100 (defaults)",
         lambda: choix.ilsr_pairwise(n, data, alpha=reg / 2)),
        ("crowdkit", f"n_iter={crowdkit_iter}, tol={crowdkit_tol:g}, no regulariser", run_crowdkit),
    )
    rows, ours = [], None
    for impl, settings, fn in runs:
        print(f"{name}: {impl} ...", flush=True)
        row = {**base, "implementation": impl, "settings": settings, "status": "ok", "notes": "",
               "spearman_vs_ours": "", "kendall_vs_ours": "", "kendall_vs_truth": ""}
        try:
            result, seconds = best_of_n(fn, repeats)
        except (RuntimeError, ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:  # e.g. ilsr not converging
            rows.append({**row, "seconds": "", "status": "error", "notes": f"{type(exc).__name__}: {exc}"[:200]})
            continue
        if impl == "crowdkit":
            # crowd-kit 1.4.2 keeps no iteration count (loss_history_ stays empty); check whether
            # its result is that of 2 MM iterations (it stops there: p_old aliases p_new)
            same = np.array_equal(result, run_crowdkit(2), equal_nan=True)
            row["notes"] = (f"{int(np.isnan(result).sum())} items never in a strict preference; result "
                            f"{'identical' if same else 'not identical'} to n_iter=2")
        scores = np.asarray(result, dtype=float)
        if ours is None:
            ours = scores
        else:
            rho, tau = agreement(scores, ours)
            row["spearman_vs_ours"], row["kendall_vs_ours"] = f"{rho:.6f}", f"{tau:.6f}"
        if truth is not None:
            row["kendall_vs_truth"] = f"{agreement(scores, truth)[1]:.4f}"
        if impl in ("choix_opt", "manyjudges_lbfgs"):
            row["notes"] = f"max |s - ours| = {np.abs(scores - ours).max():.2e}"
        rows.append({**row, "seconds": f"{seconds:.4f}"})
    return rows


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("manyjudges", "choix", "crowd-kit", "numpy", "scipy"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} not installed")
    return ", ".join(out)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None,
                    help="trec-rf10-data.txt (default: from the mirror $MANYJUDGES_MIRROR, else data/raw/trec_rf10/)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "runs")
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per call, best reported (default 3)")
    ap.add_argument("--reg", type=float, default=0.01, help="our ridge reg (choix alpha = reg / 2); default 0.01")
    ap.add_argument("--crowdkit-iter", type=int, default=1000, help="crowd-kit n_iter (default 1000)")
    ap.add_argument("--crowdkit-tol", type=float, default=1e-8, help="crowd-kit tol (default 1e-8)")
    ap.add_argument("--blas-threads", type=int, default=1,
                    help="BLAS threads for every implementation, via threadpoolctl (default 1; 0 = leave as is)")
    args = ap.parse_args(argv)
    if args.blas_threads:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=args.blas_threads):
            run(args)
    else:
        run(args)


def run(args: argparse.Namespace) -> None:
    """Both data sets, all implementations; write and print the table."""
    data_path = args.data or trec_rf10_file()

    t_start = time.perf_counter()
    topic, truth = simulated_topic()
    rows = bench_dataset("simulated", topic, truth, args.reg, args.repeats, args.crowdkit_iter, args.crowdkit_tol)
    meta = ["simulated: 200 items, scores N(0, 1.5^2), 40 judges x 500 random pairs, outcomes from the model, seed 0"]
    if data_path.is_file():
        topic, n_labels = trec_rf10_topic(data_path)
        rows += bench_dataset(f"trec_rf10:{topic.topic}", topic, None, args.reg, args.repeats,
                              args.crowdkit_iter, args.crowdkit_tol)
        meta.append(f"trec_rf10: {data_path}, topic {topic.topic} (the most labels: {n_labels} after dropping "
                    f"{BROKEN_LINK}; {topic.n_judges} judges), eq (5) preferences, ties and self-pairs dropped")
    else:
        print(f"trec_rf10 data not found ({data_path}): simulated only", file=sys.stderr)
    meta += [
        (f"BLAS threads: {args.blas_threads or 'library default'}; "
         f"best of {args.repeats} runs per call; input preparation for choix (list of (winner, loser)) and "
         "crowd-kit (DataFrame) not timed; ours includes it"),
        "agreement: Spearman / Kendall tau-b of each score vector against ours (crowd-kit: items it saw)",
        (f"total wall time {time.perf_counter() - t_start:.1f} s; {_versions()}; "
         f"Python {platform.python_version()}; {platform.machine()}, {os.cpu_count()} CPUs"),
    ]
    tsv, md = write_tables(rows, COLUMNS, args.out, "bradley_terry", "Bradley-Terry timing", meta)
    print(tsv.read_text())
    print("\n".join(meta))
    print(f"wrote {tsv} and {md}")


if __name__ == "__main__":
    main()
