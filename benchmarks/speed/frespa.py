#!/usr/bin/env python3
"""Time exact FreSPA scoring: ours (manyjudges) against the ``prefixspan`` PyPI package.

    python -m benchmarks.speed.frespa [--out benchmarks/results] [--timeout 60] [--quick]

Writes ``<out>/frespa_timing.tsv`` and ``<out>/frespa_timing.md`` (see benchmarks/README.md).

For every grid cell (k items x agreement level, n = 10 judges, minSup = 0.75) it times,
each call in its own spawned child process killed after ``--timeout`` seconds:

* ours_auto      ``frespa_score(gold, candidates, FreSPAParams(min_sup=0.75), engine=None)`` (the
                 default engine, ``classes``: pattern classes by last item and containment set)
* ours_counting  the same with engine='counting' (DAG path counting + inclusion-exclusion)
* ours_mining    the same with engine='mining'   (level-wise pattern growth)
* prefixspan     ``PrefixSpan(db).frequent(ceil(0.75 n))`` with minlen = 2, then the FreSPA
                 score computed from the mined (support, pattern) list in pure Python

Candidates are gold[0] and its reverse. Target: k = 50, n = 10, minSup = 0.75, high
agreement, exact score in under 1 s.
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

from benchmarks.harness.timing import (
    BEST_OF,
    REPEAT_BELOW,
    STARTUP_GRACE,
    best_of,
    error_result,
    limit_memory,
    stop_child,
    write_tables,
)

N_JUDGES = 10
MIN_SUP = 0.75
SEED = 0
AGREEMENT_PHI = {"high": 0.3, "low": 0.9}
K_FULL = (10, 20, 30, 50)
K_QUICK = (10, 20)
METHODS = ("ours_auto", "ours_counting", "ours_mining", "prefixspan")
COLUMNS = (
    "k", "n", "agreement", "mean_tau", "method", "engine", "seconds", "status",
    "n_frequent_patterns", "score", "agree", "notes",
)
AGREE_TOL = 1e-9


# ---------------------------------------------------------------------------
# Work done in the child process


def _run_ours(gold, candidates, engine, queue):
    from manyjudges.orderings.frespa import FreSPAParams, _frespa_tables, frespa_score

    params = FreSPAParams(min_sup=MIN_SUP)
    n, k = gold.shape
    threshold = params.support_threshold(n)
    chosen = engine or "classes"
    scores, seconds = best_of(lambda: frespa_score(gold, candidates, params, engine=engine))
    out = {"engine": chosen, "seconds": seconds, "score": [float(s) for s in scores], "notes": "", "status": "ok"}
    queue.put(dict(out, final=False))  # the timing stands even if the recount below times out
    # Not timed: the number of frequent patterns (length >= 2) from the den table.
    den, _ = _frespa_tables(gold, candidates, threshold, k, engine=engine)
    out["n_frequent_patterns"] = int(round(float(den[:, 2:].sum())))
    return out


def _peer_score(patterns, candidate_ranks, n, k, w_len=1.0, w_sup=1.0):
    """FreSPA scores of the candidates from prefixspan's [(support, pattern), ...]."""
    num = [[] for _ in candidate_ranks]
    den = []
    n_patterns = 0
    for sup, patt in patterns:
        if len(patt) < 2 or len(set(patt)) != len(patt):  # distinct items only
            continue
        n_patterns += 1
        w = (1.0 + w_len * (len(patt) - 1)) * (1.0 + w_sup * (sup - 1))
        den.append(w)
        for j, ranks in enumerate(candidate_ranks):
            r = [ranks[i] for i in patt]
            if all(a < b for a, b in zip(r, r[1:])):
                num[j].append(w)
    d = math.fsum(den)
    return [math.fsum(x) / d if d > 0 else 0.0 for x in num], n_patterns


def _run_prefixspan(gold, candidates):
    from prefixspan import PrefixSpan

    n, k = gold.shape
    minsup = math.ceil(MIN_SUP * n - 1e-9)
    # Gold ranks -> sequences of item ids, best first (orderings are strict: no ties).
    db = [[int(i) for i in np.argsort(row, kind="stable")] for row in gold]
    cand = [[float(v) for v in row] for row in candidates]
    timing = {}

    def once():
        t0 = time.perf_counter()
        ps = PrefixSpan(db)
        ps.minlen = 2
        patterns = ps.frequent(minsup)
        t1 = time.perf_counter()
        out = _peer_score(patterns, cand, n, k)
        t2 = time.perf_counter()
        if "mine" not in timing or (t2 - t0) < timing["mine"] + timing["score"]:
            timing["mine"], timing["score"] = t1 - t0, t2 - t1
        return out

    (scores, n_patterns), seconds = best_of(once)
    return {
        "engine": "prefixspan",
        "seconds": seconds,
        "score": scores,
        "n_frequent_patterns": n_patterns,
        "notes": f"mine {timing['mine']:.4g} s + score {timing['score']:.4g} s",
    }


def _child(method, gold, candidates, mem_gb, queue):
    try:
        limit_memory(mem_gb)
        # Imports before the clock starts: the timeout covers the timed work only.
        import prefixspan  # noqa: F401

        import manyjudges.orderings.frespa  # noqa: F401

        queue.put({"ready": True})
        if method == "prefixspan":
            out = _run_prefixspan(gold, candidates)
        else:
            engine = {"ours_auto": None, "ours_counting": "counting", "ours_mining": "mining"}[method]
            out = _run_ours(gold, candidates, engine, queue)
        out["status"] = "ok"
    except BaseException as exc:  # noqa: BLE001 - report anything, incl. MemoryError
        out = error_result(exc)
    out["final"] = True
    queue.put(out)


# ---------------------------------------------------------------------------
# Parent: panels, timeouts, table


def timed_in_child(ctx, method, gold, candidates, timeout, mem_gb):
    """Run one method in a spawned child; kill it after ``timeout`` seconds (wall clock)."""
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(method, gold, candidates, mem_gb, queue), daemon=True)
    proc.start()
    deadline = time.monotonic() + timeout + STARTUP_GRACE  # reset when the child is ready
    out = None  # latest message; a non-final one is a finished timing awaiting its pattern count
    while out is None or not out.get("final"):
        try:
            msg = queue.get(timeout=0.05)
            if msg.get("ready"):
                deadline = time.monotonic() + timeout
            elif out is not None and msg.get("status") != "ok":
                out["notes"] = f"pattern count failed: {msg.get('notes', '')}"
                out["final"] = True
            else:
                out = msg
        except Exception:  # queue.Empty
            if not proc.is_alive():
                try:
                    out = queue.get(timeout=1.0)
                except Exception:
                    if out is not None:
                        out["final"] = True
                    else:
                        out = {"status": "error", "notes": f"child died (exit code {proc.exitcode})", "final": True}
            elif time.monotonic() > deadline:
                proc.kill()
                if out is not None:
                    out["notes"] = f"pattern count not finished within {timeout:g} s"
                    out["final"] = True
                else:
                    out = {"status": "timeout", "notes": f"killed after {timeout:g} s", "final": True}
    stop_child(proc)
    return out


def make_panels(k_values):
    from manyjudges.core.correlation import kendall_tau_matrix
    from manyjudges.core.ranks import ranks_from_orders, reverse_ranks
    from manyjudges.orderings.simulate import mallows_orders

    rng = np.random.default_rng(SEED)
    panels = []
    for k in k_values:
        for agreement, phi in AGREEMENT_PHI.items():
            reference = rng.permutation(k)
            gold = ranks_from_orders(mallows_orders(rng, reference, phi, N_JUDGES))
            candidates = np.vstack([gold[0], reverse_ranks(gold[:1])[0]])
            tau = kendall_tau_matrix(gold)
            mean_tau = float(tau[np.triu_indices(N_JUDGES, 1)].mean())
            panels.append((k, agreement, mean_tau, gold, candidates))
    return panels


def _fmt_seconds(x):
    return "" if x is None else f"{x:.4g}"


def _fmt_scores(scores):
    return "" if scores is None else ";".join(f"{s:.12g}" for s in scores)


def _agree(a, b):
    if a is None or b is None:
        return "NA"
    return str(bool(np.allclose(a, b, rtol=0.0, atol=AGREE_TOL)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per timed call (default 60; 10 with --quick)")
    ap.add_argument("--quick", action="store_true", help="k = 10, 20 only and a 10 s timeout")
    ap.add_argument("--mem-gb", type=float, default=8.0, help="address-space limit per child (0 = none)")
    args = ap.parse_args(argv)
    timeout = args.timeout if args.timeout is not None else (10.0 if args.quick else 60.0)
    k_values = K_QUICK if args.quick else K_FULL

    t_start = time.perf_counter()
    ctx = mp.get_context("spawn")
    panels = make_panels(k_values)
    rows = []
    for k, agreement, mean_tau, gold, candidates in panels:
        results = {}
        for method in METHODS:
            res = timed_in_child(ctx, method, gold, candidates, timeout, args.mem_gb)
            results[method] = res
            print(
                f"k={k:>3} {agreement:<4} {method:<14} {res['status']:<7} "
                f"{_fmt_seconds(res.get('seconds')) or '-':>9} s  {res.get('notes', '')}",
                flush=True,
            )
            if res["status"] == "error" and "traceback" in res:
                print(res["traceback"], file=sys.stderr, flush=True)
        peer = results["prefixspan"].get("score") if results["prefixspan"]["status"] == "ok" else None
        ours = next(
            (results[m]["score"] for m in ("ours_auto", "ours_counting", "ours_mining")
             if results[m]["status"] == "ok"),
            None,
        )
        for method in METHODS:
            res = results[method]
            score = res.get("score") if res["status"] == "ok" else None
            # ours_* rows are checked against prefixspan's score, the prefixspan row against ours.
            agree = _agree(score, ours if method == "prefixspan" else peer)
            engine = res.get("engine") or {
                "ours_counting": "counting", "ours_mining": "mining", "prefixspan": "prefixspan",
            }.get(method, "")
            if method == "ours_auto" and not res.get("engine"):
                engine = "classes"  # the default engine
            rows.append({
                "k": k, "n": N_JUDGES, "agreement": agreement, "mean_tau": f"{mean_tau:.4f}",
                "method": method, "engine": engine,
                "seconds": _fmt_seconds(res.get("seconds") if res["status"] == "ok" else None),
                "status": res["status"],
                "n_frequent_patterns": res.get("n_frequent_patterns", "") if res["status"] == "ok" else "",
                "score": _fmt_scores(score), "agree": agree, "notes": res.get("notes", ""),
            })
    total = time.perf_counter() - t_start
    import prefixspan  # noqa: F401 - version only

    try:
        from importlib.metadata import version

        ps_version = version("prefixspan")
    except Exception:
        ps_version = "?"
    meta = [
        f"n = {N_JUDGES} judges, minSup = {MIN_SUP} (support >= {math.ceil(MIN_SUP * N_JUDGES)}), "
        f"wLen = wSup = 1, lengths 2..k; candidates = gold[0] and its reverse (score = 'a;b')",
        f"panels: Mallows, phi = {AGREEMENT_PHI['high']} (high) / {AGREEMENT_PHI['low']} (low), "
        f"numpy default_rng({SEED})",
        f"timeout {timeout:g} s per call (spawned child), best of {BEST_OF} for runs under {REPEAT_BELOW:g} s",
        f"python {platform.python_version()}, numpy {np.__version__}, prefixspan {ps_version}, "
        f"{os.cpu_count()} CPUs, {platform.platform()}",
        f"total benchmark wall time {total:.1f} s",
    ]
    tsv, md = write_tables(rows, COLUMNS, args.out, "frespa_timing", "FreSPA timing: manyjudges vs prefixspan", meta)
    print(f"wrote {tsv} and {md}; total {total:.1f} s")


if __name__ == "__main__":
    main()
