#!/usr/bin/env python3
"""Time graded-label aggregation: our Dawid-Skene EM (manyjudges) against crowd-kit's, on trec_rf10.

    python -m benchmarks.speed.graded [--data FILE] [--out benchmarks/runs] [--quick] [--skip-pipeline]

Writes ``<out>/graded_benchmark.tsv`` and ``<out>/graded_benchmark.md`` and prints the table
(see benchmarks/README.md).

Section 1 (EM): the TREC 2010 Relevance Feedback crowd labels (trec-rf10-data.txt, read
straight from the data mirror; labels 0, 1, 2, broken-link answers -2 dropped; item =
topic:doc, judge = worker) aggregated by

* manyjudges     ``manyjudges.graded.dawid_skene.dawid_skene`` (numpy, smoothing 0.01)
* manyjudges_s0  the same with smoothing 0 (plain maximum likelihood, as crowd-kit)
* crowdkit       ``crowdkit.aggregation.DawidSkene(n_iter, tol).fit(df)`` on the same
                 labels as a DataFrame (task, worker, label)

in two settings: ``converge`` (max_iter 100, tol 1e-6 for both: each library's own stopping
rule) and ``fixed50`` (exactly 50 EM iterations each: the time per iteration is comparable).
Each call runs in a spawned child killed after ``--timeout`` s; best of ``--repeats``.

Section 2 (pipeline): ``snakemake --cores 2`` from scratch, in a fresh directory, on the
default config's ``graded`` section (sim_medline: simulation and calibration, then every
configured method under both protocols, the tables and the figure); target < 5 minutes.
``--skip-pipeline`` skips it.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness.timing import best_of_n, error_result, limit_memory, run_in_child, trec_rf10_file, write_tables

REPO = Path(__file__).resolve().parents[2]

N_LABELS = 3  # 0 non-relevant, 1 relevant, 2 highly relevant
BROKEN_LINK = -2  # the fourth answer ("could not be judged"), dropped
#: (benchmark, max_iter, our tol, crowd-kit tol). fixed50: our tol 0 never stops early; crowd-kit
#: stops when its ELBO change is < tol, and its ELBO can dip by rounding, so only -inf fixes 50.
SETTINGS = (("converge", 100, 1e-6, 1e-6), ("fixed50", 50, 0.0, -math.inf))
IMPLEMENTATIONS = (("manyjudges", 0.01), ("manyjudges_s0", 0.0), ("crowdkit", None))  # (name, smoothing)
COLUMNS = (
    "benchmark", "implementation", "n_items", "n_judges", "n_labels", "n_entries", "max_iter", "tol",
    "smoothing", "n_iter", "seconds", "ms_per_iter", "speedup_vs_crowdkit", "agreement", "gold_accuracy",
    "status", "notes",
)


# ---------------------------------------------------------------------------
# Data


def default_data_path() -> Path:
    """trec-rf10-data.txt: see :func:`harness.timing.trec_rf10_file`."""
    return trec_rf10_file()


def load_trec_rf10(path: Path) -> dict:
    """Long-format panel from the TSV (header ``topicID workerID docID gold label``).

    Rows with label -2 (broken link) are dropped; item = ``topic:doc`` and judge = worker
    in order of first appearance. A judge who judged the same document twice keeps both
    labels (Dawid-Skene allows repeated responses). ``gold`` per item: the NIST label
    0/1/2, or -1 (none, or the gold is itself -2).
    """
    import pandas as pd

    df = pd.read_csv(path, sep="\t", dtype={"topicID": str, "workerID": str, "docID": str})
    expected = ["topicID", "workerID", "docID", "gold", "label"]
    if list(df.columns) != expected:
        raise ValueError(f"{path}: header {list(df.columns)}, expected {expected}")
    df = df[df["label"] != BROKEN_LINK]
    label = df["label"].to_numpy(dtype=np.int64)
    if label.min() < 0 or label.max() >= N_LABELS:
        raise ValueError(f"{path}: labels outside 0..{N_LABELS - 1} after dropping {BROKEN_LINK}")
    item, item_ids = pd.factorize(df["topicID"] + ":" + df["docID"])
    judge, judge_ids = pd.factorize(df["workerID"])
    gold = np.full(len(item_ids), -1, dtype=np.int64)
    g = df["gold"].to_numpy(dtype=np.int64)
    has = (g >= 0) & (g < N_LABELS)
    gold[item[has]] = g[has]
    return {"item": item.astype(np.int64), "judge": judge.astype(np.int64), "label": label,
            "item_ids": list(item_ids), "judge_ids": list(judge_ids), "gold": gold, "n_rows": len(df)}


# ---------------------------------------------------------------------------
# Child process: one implementation, one setting


def _run(impl, smoothing, data, max_iter, tol, repeats, queue):
    n_items, n_judges = len(data["item_ids"]), len(data["judge_ids"])
    if impl == "crowdkit":
        import pandas as pd
        from crowdkit.aggregation import DawidSkene

        ids = np.asarray(data["item_ids"], dtype=object)
        df = pd.DataFrame({"task": ids[data["item"]],
                           "worker": np.asarray(data["judge_ids"], dtype=object)[data["judge"]],
                           "label": data["label"]})
        queue.put({"ready": True})
        model, seconds = best_of_n(lambda: DawidSkene(n_iter=max_iter, tol=tol).fit(df), repeats)
        labels = model.labels_.reindex(ids).to_numpy()
        if pd.isna(labels).any():
            raise RuntimeError("crowd-kit returned no label for some tasks")
        return {"seconds": seconds, "n_iter": len(model.loss_history_), "labels": labels.astype(np.int64)}
    from manyjudges.core.dawid_skene_em import dawid_skene

    queue.put({"ready": True})
    res, seconds = best_of_n(lambda: dawid_skene(
        data["item"], data["judge"], data["label"], n_items=n_items, n_judges=n_judges, n_classes=N_LABELS,
        max_iter=max_iter, tol=tol, smoothing=smoothing), repeats)
    return {"seconds": seconds, "n_iter": res.n_iter, "labels": res.labels,
            "notes": f"converged={res.converged}, log-likelihood {res.log_likelihood:.2f}"}


def _child(impl, smoothing, data, max_iter, tol, repeats, mem_gb, queue):
    try:
        limit_memory(mem_gb)
        out = _run(impl, smoothing, data, max_iter, tol, repeats, queue)
        out["status"] = "ok"
    except BaseException as exc:  # noqa: BLE001 - report anything, incl. ImportError / MemoryError
        out = error_result(exc)
    queue.put(out)


def timed_in_child(ctx, args, timeout, mem_gb):
    """Run ``_child(*args)`` in a spawned child; kill it ``timeout`` s after it is ready."""
    return run_in_child(ctx, _child, (*args, mem_gb), timeout)


# ---------------------------------------------------------------------------
# Section 1: Dawid-Skene EM, ours vs crowd-kit


def em_section(args, ctx, data, repeats, timeout):
    n_items, n_judges, n_entries = len(data["item_ids"]), len(data["judge_ids"]), len(data["item"])
    has_gold = data["gold"] >= 0
    rows = []
    for bench, max_iter, our_tol, ck_tol in SETTINGS:
        results = {}
        for impl, smoothing in IMPLEMENTATIONS:
            tol = ck_tol if impl == "crowdkit" else our_tol
            res = timed_in_child(ctx, (impl, smoothing, data, max_iter, tol, repeats), timeout, args.mem_gb)
            results[impl] = (res, tol, smoothing)
            secs = f"{res['seconds']:.4g}" if res["status"] == "ok" else "-"
            print(f"{bench:<9} {impl:<14} {res['status']:<7} {secs:>9} s  n_iter={res.get('n_iter', '-')}  "
                  f"{res.get('notes', '')}", flush=True)
            if res["status"] == "error" and "traceback" in res:
                print(res["traceback"], file=sys.stderr, flush=True)
        ck = results["crowdkit"][0]
        ours = results["manyjudges"][0]
        for impl, (res, tol, smoothing) in results.items():
            ok = res["status"] == "ok"
            ref = ours if impl == "crowdkit" else ck  # agreement: ours vs crowd-kit, crowd-kit vs manyjudges
            agree = (f"{np.mean(res['labels'] == ref['labels']):.4f}"
                     if ok and ref["status"] == "ok" else "NA")
            speedup = (f"{ck['seconds'] / res['seconds']:.1f}"
                       if ok and ck["status"] == "ok" and impl != "crowdkit" else "")
            rows.append({
                "benchmark": bench, "implementation": impl, "n_items": n_items, "n_judges": n_judges,
                "n_labels": N_LABELS, "n_entries": n_entries, "max_iter": max_iter, "tol": f"{tol:g}",
                "smoothing": "clip 1e-10" if smoothing is None else f"{smoothing:g}",
                "n_iter": res.get("n_iter", "") if ok else "",
                "seconds": f"{res['seconds']:.4g}" if ok else "",
                "ms_per_iter": f"{1e3 * res['seconds'] / max(res['n_iter'], 1):.3g}" if ok else "",
                "speedup_vs_crowdkit": speedup,
                "agreement": agree,
                "gold_accuracy": f"{np.mean(res['labels'][has_gold] == data['gold'][has_gold]):.4f}" if ok else "",
                "status": res["status"],
                "notes": res.get("notes", ""),
            })
    return rows


# ---------------------------------------------------------------------------
# Section 2: the full sim_medline run (every method, both protocols) through Snakemake




def pipeline_section(args):
    """Time ``snakemake --cores N`` from scratch on the default config's ``graded`` section only
    (simulation and calibration included), in a fresh working directory; one row, plus one
    row per job from Snakemake's own ``benchmark:`` files."""
    import subprocess
    import tempfile

    import pandas as pd
    import yaml

    config = yaml.safe_load(Path(args.configfile).read_text())
    config["graded"]["datasets"] = {"sim_medline": config["graded"]["datasets"]["sim_medline"]}
    rows = []
    with tempfile.TemporaryDirectory(prefix="graded_bench_") as tmp:
        tmp = Path(tmp)
        (tmp / "config.yaml").write_text(yaml.safe_dump({"seed": config["seed"], "graded": config["graded"]}))
        cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(tmp),
               "--configfile", str(tmp / "config.yaml"), "--cores", str(args.cores), "--quiet", "all"]
        print("pipeline:", " ".join(cmd), flush=True)
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        status = "ok" if proc.returncode == 0 else f"failed ({proc.returncode})"
        if proc.returncode != 0:
            print(proc.stderr[-3000:], file=sys.stderr)
        n_methods = len(config["graded"]["methods"])
        rows.append({"benchmark": "sim_medline_pipeline", "implementation": f"snakemake --cores {args.cores}",
                     "seconds": round(seconds, 2), "status": status,
                     "notes": f"{n_methods} methods x both protocols, simulation included, from scratch, "
                              f"graded section of {Path(args.configfile).name}"})
        for path in sorted((tmp / "logs" / "benchmarks" / "graded_part").rglob("*.tsv")):
            job = "/".join(path.relative_to(tmp / "logs" / "benchmarks" / "graded_part").with_suffix("").parts[1:])
            rows.append({"benchmark": "sim_medline_job", "implementation": job,
                         "seconds": round(float(pd.read_csv(path, sep="\t")["s"].iloc[0]), 2), "status": "ok"})
    return [{c: row.get(c, "") for c in COLUMNS} for row in rows]


# ---------------------------------------------------------------------------


def _versions():
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for pkg in ("manyjudges", "crowd-kit", "numpy", "pandas"):
        try:
            out.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            out.append(f"{pkg} not installed")
    return ", ".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=None,
                    help="trec-rf10-data.txt (default: from the mirror $MANYJUDGES_MIRROR, else data/raw/trec_rf10/)")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "runs")
    ap.add_argument("--quick", action="store_true", help="1 repeat instead of 3, 120 s timeout")
    ap.add_argument("--repeats", type=int, default=None,
                    help="timed runs per call, best reported (default 3; 1 with --quick)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per call, all repeats (default 300; 120 with --quick)")
    ap.add_argument("--mem-gb", type=float, default=8.0, help="address-space limit per child (0 = none)")
    ap.add_argument("--skip-em", action="store_true", help="skip section 1 (Dawid-Skene EM vs crowd-kit)")
    ap.add_argument("--skip-pipeline", action="store_true", help="skip section 2 (pipeline run timing)")
    ap.add_argument("--cores", type=int, default=2, help="--cores for the pipeline run (default 2)")
    ap.add_argument("--configfile", default=str(REPO / "config" / "config.yaml"),
                    help="config whose graded section (sim_medline only) the pipeline run uses "
                         "(default config/config.yaml; config/paper.yaml has M5's one-judge-at-a-time inner loop)")
    args = ap.parse_args(argv)
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    timeout = args.timeout if args.timeout is not None else (120.0 if args.quick else 300.0)
    data_path = args.data or default_data_path()
    if not args.skip_em and not data_path.is_file():
        ap.error(f"trec_rf10 data not found: {data_path} "
                 "(give --data FILE or set MANYJUDGES_MIRROR to the mirror root)")

    t_start = time.perf_counter()
    ctx = mp.get_context("spawn")
    rows, meta = [], []
    if not args.skip_em:
        data = load_trec_rf10(data_path)
        rows += em_section(args, ctx, data, repeats, timeout)
        meta += [
            f"data: {data_path} ({data['n_rows']} labels after dropping label {BROKEN_LINK}; item = topic:doc, "
            f"judge = worker; {int((data['gold'] >= 0).sum())} items with a NIST gold label 0/1/2)",
            "converge: max_iter 100, tol 1e-6 for both (ours: max posterior change; crowd-kit: ELBO change per label); "
            "fixed50: 50 iterations each (ours tol 0, crowd-kit tol -inf)",
            "agreement: share of items whose argmax label equals crowd-kit's (crowdkit row: equals manyjudges') "
            "in the same benchmark; gold_accuracy: argmax vs the NIST gold label",
        ]
    if not args.skip_pipeline:
        rows += pipeline_section(args)
    total = time.perf_counter() - t_start
    meta += [
        f"best of {repeats} per call, spawned child per call (clock starts after imports and data setup), "
        f"timeout {timeout:g} s, address space {args.mem_gb:g} GB",
        f"{_versions()}, python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}",
        f"total benchmark wall time {total:.1f} s",
    ]
    tsv, md = write_tables(rows, COLUMNS, args.out, "graded_benchmark",
                           "Graded aggregation timing: manyjudges Dawid-Skene vs crowd-kit", meta)
    print()
    print(tsv.read_text(), end="")
    print(f"wrote {tsv} and {md}; total {total:.1f} s")


if __name__ == "__main__":
    main()
