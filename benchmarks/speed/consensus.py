#!/usr/bin/env python3
"""Time the consensus measure of rankings: ours (manyjudges) against matrix powers and brute force.

    python -m benchmarks.speed.consensus [--out benchmarks/results] [--timeout 30] [--quick]

Writes ``<out>/consensus_timing.tsv`` and ``<out>/consensus_timing.md`` (see benchmarks/README.md).

For every grid cell (k items x m lists x (lambda, gamma)) it counts the (weighted) common
subsequences of m near-identical lists four ways, each call in its own spawned child
process killed after ``--timeout`` seconds:

* ours_total      ``consensus_measure(lists, lam, gamma, by_length=False)`` (kappa + LCS length)
* ours_by_length  the same with ``by_length=True`` (per-length kappa_l as well)
* matrix_powers   the authors' approach (zhiweiuk/secs, consensus_measure.py), written
                  independently here: dense weighted adjacency G, kappa_1 = sum of item
                  weights, kappa_l = sum(G^(l-1)) by repeated ``np.dot`` until the sum is 0
* brute_force     a DFS over the common-precedence DAG visiting every common subsequence
                  one by one and summing its weight (exponential reference)

Targets: k = 1000, m = 20 total + LCS (ours_total) and k = 200, m = 20 per-length
(ours_by_length), each in under 1 s.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness.timing import (
    BEST_OF,
    REPEAT_BELOW,
    best_of,
    error_result,
    limit_memory,
    run_in_child,
    write_tables,
)

SEED = 0
K_FULL = (25, 100, 200, 1000)
K_QUICK = (25, 100, 200)
M_VALUES = (2, 6, 20)
LAM_GAMMA = ((1.0, 1.0), (0.9, 0.9))
METHODS = ("ours_total", "ours_by_length", "matrix_powers", "brute_force")
TARGETS = {("ours_total", 1000, 20): 1.0, ("ours_by_length", 200, 20): 1.0}  # seconds
COLUMNS = (
    "k", "m", "lam", "gamma", "method", "seconds", "status", "kappa", "log2_kappa",
    "lcs_length", "agree", "notes",
)
AGREE_RTOL = 1e-9
FLOAT_EXACT = 2**53


# ---------------------------------------------------------------------------
# Inputs


def make_lists(rng, k, m):
    """m lists: one random reference permutation of k items, each perturbed by k//10 random adjacent swaps."""
    reference = rng.permutation(k)
    lists = []
    for _ in range(m):
        order = reference.copy()
        for i in rng.integers(0, k - 1, size=k // 10):
            order[i], order[i + 1] = order[i + 1], order[i]
        lists.append([int(x) for x in order])
    return lists


def make_panels(k_values):
    """{(k, m): lists}; always drawn for the full grid in order, so --quick gives the same panels."""
    rng = np.random.default_rng(SEED)
    panels = {}
    for k in K_FULL:
        for m in M_VALUES:
            lists = make_lists(rng, k, m)
            if k in k_values:
                panels[(k, m)] = lists
    return panels


# ---------------------------------------------------------------------------
# Independent reference implementations (no manyjudges code)


def reference_graph(lists, lam, gamma):
    """Common items (first-list order), item weights f, edge mask and edge weights g.

    Edge i -> j iff i is strictly before j in every list; f(i) = gamma ** population std of
    the positions of i; g(i, j) = lam ** (mean over lists of p(j) - p(i)).
    """
    pos_maps = []
    for lst in lists:
        pos = {}
        for index, item in enumerate(lst):
            pos.setdefault(item, index)
        pos_maps.append(pos)
    items = [x for x in dict.fromkeys(lists[0]) if all(x in p for p in pos_maps)]
    p = np.array([[pm[x] for x in items] for pm in pos_maps], dtype=float)  # (m, v)
    f = np.power(gamma, p.std(axis=0))
    edge = np.ones((len(items), len(items)), dtype=bool)
    for row in p:  # one list at a time: at most a (v, v) temporary
        edge &= row[:, None] < row[None, :]
    mean = p.mean(axis=0)
    gap = mean[None, :] - mean[:, None]
    g = np.where(edge, np.power(lam, np.where(edge, gap, 0.0)), 0.0)
    return items, f, edge, g


def matrix_powers(lists, lam, gamma):
    """The authors' loop: kappa_1 = sum f; then L_t = G, G^2, ...; kappa_l = sum(L_t) while > 0."""
    _, f, _, g = reference_graph(lists, lam, gamma)
    total = float(np.sum(f))
    kappa_l = [total]
    l_t = g
    while True:
        s = float(np.sum(l_t))
        if s > 0:
            kappa_l.append(s)
            total = total + s
            l_t = np.dot(l_t, g)
        else:  # 0 (nilpotent: past the LCS), or nan after an overflow to inf
            break
    return total, kappa_l


def brute_force(lists, lam, gamma):
    """Visit every common subsequence (a path of the DAG) one by one; sum their weights literally.

    A sequence of distinct items is common to all lists iff each consecutive pair is an edge
    (positions are transitive), so a DFS extending only along edges enumerates exactly the
    common subsequences. Weight: f(i) for a single item, the product of edge weights otherwise.
    With lam = gamma = 1 every weight is the integer 1 (exact Python-int sums).
    """
    items, f, edge, g = reference_graph(lists, lam, gamma)
    exact = lam == 1 and gamma == 1
    v = len(items)
    succ = [[(int(j), 1 if exact else float(g[i, j])) for j in np.flatnonzero(edge[i])] for i in range(v)]
    per_length = [0] * (v + 1) if exact else [0.0] * (v + 1)
    for s in range(v):
        per_length[1] += 1 if exact else float(f[s])
        stack = [(s, 1 if exact else 1.0, 1)]
        while stack:
            node, w, length = stack.pop()
            for nxt, ew in succ[node]:
                w2 = w * ew
                per_length[length + 1] += w2
                stack.append((nxt, w2, length + 1))
    lcs = max((size for size in range(1, v + 1) if per_length[size] > 0), default=0)
    per_length = per_length[1:lcs + 1]
    total = sum(per_length) if exact else math.fsum(per_length)
    return total, per_length


# ---------------------------------------------------------------------------
# Work done in the child process


def _log2(x):
    """log2 of a positive Python int (any size) or float; -inf for 0, inf for inf."""
    if x == 0:
        return -math.inf
    return math.log2(x)  # math.log2 accepts arbitrarily large ints


def _run(method, lists, lam, gamma):
    if method in ("ours_total", "ours_by_length"):
        from manyjudges.consensus.measure import consensus_measure

        by_length = method == "ours_by_length"
        c, seconds = best_of(lambda: consensus_measure(lists, lam, gamma, by_length=by_length))
        if c.exact_kappa is not None:
            kappa, log2_kappa = int(c.exact_kappa), _log2(int(c.exact_kappa))
            per_length = [int(x) for x in c.kappa_by_length] if by_length else None
        else:
            kappa, log2_kappa = float(c.kappa), float(c.log_kappa) / math.log(2)
            per_length = [float(x) for x in c.kappa_by_length] if by_length else None
        return {"seconds": seconds, "kappa": kappa, "log2_kappa": log2_kappa,
                "lcs_length": int(c.lcs_length), "per_length": per_length}
    fn = {"matrix_powers": matrix_powers, "brute_force": brute_force}[method]
    (kappa, per_length), seconds = best_of(lambda: fn(lists, lam, gamma))
    kappa = kappa if isinstance(kappa, int) else float(kappa)
    return {"seconds": seconds, "kappa": kappa, "log2_kappa": _log2(kappa) if not math.isnan(kappa) else math.nan,
            "lcs_length": len(per_length), "per_length": per_length}


def _child(method, lists, lam, gamma, mem_gb, queue):
    try:
        limit_memory(mem_gb)
        # Imports before the clock starts: the timeout covers the timed work only.
        import manyjudges.consensus.measure  # noqa: F401

        queue.put({"ready": True})
        out = _run(method, lists, lam, gamma)
        out["status"] = "ok"
        out["notes"] = ""
    except BaseException as exc:  # noqa: BLE001 - report anything, incl. MemoryError
        out = error_result(exc)
    queue.put(out)


# ---------------------------------------------------------------------------
# Parent: timeouts, cross-checks, table


def timed_in_child(ctx, method, lists, lam, gamma, timeout, mem_gb):
    """Run one method in a spawned child; kill it after ``timeout`` seconds (wall clock)."""
    return run_in_child(ctx, _child, (method, lists, lam, gamma, mem_gb), timeout)


def _is_exact(res):
    return isinstance(res.get("kappa"), int)


def _rel_diff(a, b):
    a, b = float(a), float(b)
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def _compare(res, ref, ref_name, exact_case, inexact_ref_is_na=False):
    """(agree, note) of one finished result against a finished reference: 'True', 'False' or 'NA'.

    lam = gamma = 1: kappa, LCS and kappa_l must be equal as integers (a float side counts only
    if integral and finite). With ``inexact_ref_is_na`` (ours checked against float64 matrix
    powers) a reference value past 2^53 cannot decide exactness: 'NA' plus the relative gap.
    Weighted: relative 1e-9.
    """
    ka, kb = res["kappa"], ref["kappa"]
    pa, pb = res.get("per_length"), ref.get("per_length")
    both = pa is not None and pb is not None and len(pa) == len(pb)
    worst = max([_rel_diff(ka, kb)] + ([_rel_diff(x, y) for x, y in zip(pa, pb)] if both else []))
    finite = all(math.isfinite(float(x)) for x in [ka, kb] + (list(pa) + list(pb) if both else []))
    problems = []
    if res["lcs_length"] != ref["lcs_length"]:
        problems.append(f"LCS {res['lcs_length']} != {ref_name} {ref['lcs_length']}")
    if pa is not None and pb is not None and len(pa) != len(pb):
        problems.append(f"{len(pa)} vs {len(pb)} kappa_l values ({ref_name})")
    if exact_case:
        def same_int(x, y):
            xs = [v if isinstance(v, int) else (int(v) if math.isfinite(v) and float(v).is_integer() else None)
                  for v in (x, y)]
            return None not in xs and xs[0] == xs[1]

        bad_k = not same_int(ka, kb)
        bad_l = sum(not same_int(x, y) for x, y in zip(pa, pb)) if both else 0
        if bad_k or bad_l:
            values = [kb] + (list(pb) if both else [])
            if not finite:
                why = "float overflow"
            elif any(not isinstance(v, int) and abs(v) >= FLOAT_EXACT for v in values + [ka]):
                why = "float64 inexact beyond 2^53"
            else:
                why = "MISMATCH"
            what = ("kappa" if bad_k else "") + (
                f"{' and ' if bad_k else ''}{bad_l}/{len(pa)} kappa_l" if bad_l else ""
            )
            note = f"{what} != {ref_name} as integers ({why}; max rel. diff {worst:.2g})"
            if inexact_ref_is_na and why != "MISMATCH" and not problems:
                return "NA", f"no exact reference: {note}"
            problems.append(note)
    elif not worst <= AGREE_RTOL:
        problems.append(f"vs {ref_name}: max rel. diff {worst:.2g} ({'float overflow' if not finite else 'MISMATCH'})")
    return str(not problems), "; ".join(problems)


def _fmt_kappa(x):
    if x is None:
        return ""
    if isinstance(x, int):
        try:
            return str(x) if x < 10**15 else f"{float(x):.15g}"
        except OverflowError:
            return "inf"
    if math.isinf(x):
        return "inf"
    return f"{x:.15g}"


def _fmt_log2(x):
    return "" if x is None else (f"{x:.6f}" if math.isfinite(x) else str(x))


def cross_check(results, exact_case):
    """agree / notes for each method of one cell.

    ours_* rows are checked against brute_force when it finished, else matrix_powers (exact
    integers only where the float64 values are; past 2^53 'NA' with the relative gap); the
    matrix_powers and brute_force rows against ours (ours_by_length when finished, which also
    carries per-length values, else ours_total).
    """
    ok = {m: r for m, r in results.items() if r["status"] == "ok"}
    ours_ref = next(((m, ok[m]) for m in ("ours_by_length", "ours_total") if m in ok), None)
    peer_ref = next(((m, ok[m]) for m in ("brute_force", "matrix_powers") if m in ok), None)
    checks = {}
    for method, res in results.items():
        if res["status"] != "ok":
            checks[method] = ("NA", "")
            continue
        ours_row = method.startswith("ours")
        ref = peer_ref if ours_row else ours_ref
        if ref is None:
            checks[method] = ("NA", "")
            continue
        agree, note = _compare(res, ref[1], ref[0], exact_case, inexact_ref_is_na=ours_row)
        if ours_row and agree == "True" and ref[0] == "brute_force" and "matrix_powers" in ok:
            agree2, note2 = _compare(res, ok["matrix_powers"], "matrix_powers", exact_case)
            if agree2 != "True":
                note = f"(matrix_powers: {note2})"
        checks[method] = (agree, note)
    return checks


def _git_state(repo):
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--", "src"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return f"{head}{' (src/ has uncommitted changes)' if dirty else ''}" if head else "?"
    except Exception:
        return "?"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per timed call (default 30; 10 with --quick)")
    ap.add_argument("--quick", action="store_true", help="k <= 200 only and a 10 s timeout")
    ap.add_argument("--mem-gb", type=float, default=8.0, help="address-space limit per child (0 = none)")
    args = ap.parse_args(argv)
    timeout = args.timeout if args.timeout is not None else (10.0 if args.quick else 30.0)
    k_values = K_QUICK if args.quick else K_FULL

    t_start = time.perf_counter()
    ctx = mp.get_context("spawn")
    panels = make_panels(k_values)
    rows = []
    n_sequences = {}  # (k, m): log2 number of common subsequences (from ours, lam = gamma = 1)
    for (k, m), lists in panels.items():
        for lam, gamma in LAM_GAMMA:
            exact_case = lam == 1 and gamma == 1
            results = {}
            for method in METHODS:
                res = timed_in_child(ctx, method, lists, lam, gamma, timeout, args.mem_gb)
                results[method] = res
                secs = f"{res['seconds']:.4g}" if res["status"] == "ok" else "-"
                print(f"k={k:>4} m={m:>2} lam=gamma={lam:g} {method:<15} {res['status']:<7} {secs:>9} s  "
                      f"{res.get('notes', '')}", flush=True)
                if res["status"] == "error" and "traceback" in res:
                    print(res["traceback"], file=sys.stderr, flush=True)
            checks = cross_check(results, exact_case)
            ours = next((results[x] for x in ("ours_total", "ours_by_length") if results[x]["status"] == "ok"), None)
            for method in METHODS:
                res = results[method]
                ok = res["status"] == "ok"
                notes = [res.get("notes", "")]
                agree, check_note = checks[method]
                notes.append(check_note)
                if ok and method == "ours_by_length" and res["per_length"] is not None:
                    pl = res["per_length"]
                    s = sum(pl) if exact_case else math.fsum(pl)
                    if (s != res["kappa"]) if exact_case else not _rel_diff(s, res["kappa"]) <= AGREE_RTOL:
                        notes.append("sum of kappa_l != kappa")
                if ok and method == "matrix_powers":
                    pl = res["per_length"]
                    if any(not math.isfinite(x) for x in pl) or not math.isfinite(res["kappa"]):
                        notes.append("float overflow in the matrix powers")
                if exact_case and ours is not None:
                    n_sequences[(k, m)] = ours["log2_kappa"]
                if res["status"] == "timeout" and method == "brute_force" and (k, m) in n_sequences:
                    notes.append(f"would visit 2^{n_sequences[(k, m)]:.1f} sequences one by one")
                target = TARGETS.get((method, k, m))
                if target is not None:
                    met = ok and res["seconds"] < target
                    notes.append(f"TARGET < {target:g} s: {'met' if met else 'MISSED'}")
                rows.append({
                    "k": k, "m": m, "lam": f"{lam:g}", "gamma": f"{gamma:g}", "method": method,
                    "seconds": f"{res['seconds']:.4g}" if ok else "",
                    "status": res["status"],
                    "kappa": _fmt_kappa(res.get("kappa")) if ok else "",
                    "log2_kappa": _fmt_log2(res.get("log2_kappa")) if ok else "",
                    "lcs_length": res.get("lcs_length", "") if ok else "",
                    "agree": agree,
                    "notes": "; ".join(n for n in notes if n),
                })
    total = time.perf_counter() - t_start
    try:
        from importlib.metadata import version

        mj_version = version("manyjudges")
    except Exception:
        mj_version = "?"
    repo = Path(__file__).resolve().parents[2]
    meta = [
        f"grid: k = {', '.join(map(str, k_values))} items x m = {', '.join(map(str, M_VALUES))} lists x "
        f"(lam, gamma) = (1, 1) exact integer counts and (0.9, 0.9) weighted",
        f"lists: one reference permutation per (k, m) from numpy default_rng({SEED}), each list = the reference "
        f"after k//10 random adjacent swaps (near-identical lists)",
        "methods: ours_total = consensus_measure(by_length=False); ours_by_length = by_length=True; "
        "matrix_powers = authors' loop (dense np.dot powers of G until sum 0, float64); "
        "brute_force = DFS visiting every common subsequence",
        f"timeout {timeout:g} s per call (spawned child, clock starts after imports), address space "
        f"{args.mem_gb:g} GB per child, best of {BEST_OF} for runs under {REPEAT_BELOW:g} s",
        f"agree: lam = gamma = 1 exactly as integers; weighted to relative {AGREE_RTOL:g}; LCS length and "
        f"(where both sides have them) per-length kappa_l too",
        "targets: ours_total k = 1000, m = 20 and ours_by_length k = 200, m = 20 under 1 s each",
        f"manyjudges {mj_version} (git {_git_state(repo)}), python {platform.python_version()}, "
        f"numpy {np.__version__}, {os.cpu_count()} CPUs, {platform.platform()}",
        f"total benchmark wall time {total:.1f} s",
    ]
    tsv, md = write_tables(
        rows, COLUMNS, args.out, "consensus_timing",
        "Consensus measure timing: manyjudges vs matrix powers vs brute force", meta,
    )
    print(f"wrote {tsv} and {md}; total {total:.1f} s")


if __name__ == "__main__":
    main()
