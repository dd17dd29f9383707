#!/usr/bin/env python3
"""CPU time of the graded predictors (Wilbur and Kim's M1-M5, Dawid-Skene, M4-learned): a
previous implementation beside the current one, in the same run, with the largest difference
of the per-judge log-likelihoods S(k).

    python -m benchmarks.speed.graded_predictors [--old-ref REV] [--mirror DIR] [--cases NAME ...]
                                                 [--grades TSV --meta YAML] [--out benchmarks/results]

The previous implementation is ``src/manyjudges`` at git revision ``--old-ref`` (default: the
commit before the speed work), extracted with ``git archive`` into a temporary folder. Each
(case, implementation) runs in its own Python process (the old and the new one at the same time,
with one BLAS thread each, as the pipeline's jobs), whose CPU time (``time.process_time``:
the machine may be shared, so wall time is not the measure) covers the protocol only, not
reading the data. Cases (``--cases``, default all but the slow ``paper`` ones):

* ``sim_medline``: the default config's simulated panel (13 judges, 5,000 items), regenerated
  by ``manyjudges.graded.simulate`` as the pipeline does (``config/config.yaml``) unless ``--grades``/``--meta`` name
  a processed table; every method under cross induction (the default config's parameters:
  M5 with ``inner_folds: 4``) and M1, M4, M5 under the single-parameter protocol;
* ``sim_medline_paper``: M5 cross induction with the paper config's one-judge inner loop;
* ``adultcontent3``: the real AdultContent3 panel (338 judges) from the data mirror
  (``--mirror``, default ``$MANYJUDGES_MIRROR``), the paper config's ``min_labels_per_judge``
  20, ``outer_folds`` 10, ``inner_folds`` 5: M2, M3, M23 (and M5 with ``adultcontent3_m5``).

Writes ``<out>/graded_speed.tsv`` and ``<out>/graded_speed.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: the last commit before the graded speed work
DEFAULT_OLD_REF = "4bc9b83"
ADULT_PATH = "ipeirotis/Get-Another-Label/9fe6c56a7a157dba1a12018f696bad56806125b7/data/AdultContent3-HCOMP2010"
COLUMNS = ("case", "dataset", "method", "protocol", "params", "judges", "cpu_old", "cpu_new", "speedup",
           "loglik_old", "loglik_new", "max_abs_diff_loglik", "max_abs_diff_param", "status")

SIM_METHODS = [("m1", {}), ("m2", {}), ("m3", {}), ("m23", {}), ("m4", {}), ("m5", {"inner_folds": 4}),
               ("dawid_skene", {}), ("m4_learned", {})]
CASES: dict[str, list[tuple[str, str, dict, str]]] = {
    "sim_medline": [("sim_medline", m, p, "cross_induction") for m, p in SIM_METHODS]
    + [("sim_medline", m, p, "single_parameter") for m, p in SIM_METHODS if m in ("m1", "m4", "m5")],
    "sim_medline_paper": [("sim_medline", "m5", {}, "cross_induction")],
    "adultcontent3": [("adultcontent3", m, {}, "cross_induction") for m in ("m2", "m3", "m23")],
    "adultcontent3_m5": [("adultcontent3", "m5", {}, "cross_induction")],
}
DEFAULT_CASES = ("sim_medline", "adultcontent3")
DATASET_SETTINGS = {"sim_medline": {"min_labels": 1, "outer_folds": None, "inner_folds": None},
                    "adultcontent3": {"min_labels": 20, "outer_folds": 10, "inner_folds": 5}}


# ---------------------------------------------------------------------------
# Child: one method, one protocol, one implementation (whichever manyjudges is on sys.path)


def _panel(spec: dict):
    from manyjudges.graded.panel import GradedPanel

    if spec["dataset"] == "adultcontent3":
        from manyjudges.io.sources import parse_adultcontent3

        folder = Path(spec["mirror"]) / ADULT_PATH
        data = parse_adultcontent3(folder / "labels.txt", folder / "categories.txt")
    elif spec.get("grades"):
        from manyjudges.io.tables.grades import read_grades

        data = read_grades(spec["grades"], spec["meta"])
    else:
        import yaml

        from manyjudges.graded.simulate import panel_options, simulate_medline_panel

        config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
        spec = config["graded"]["datasets"]["sim_medline"]
        grades, _ = simulate_medline_panel(seed=config["seed"], **panel_options(spec))
        return GradedPanel.from_table(grades, int(spec["n_classes"]))
    return GradedPanel.from_table(data.grades, data.n_classes)


def child(spec: dict) -> dict:
    from manyjudges.graded.experiment import method_for, predict_part
    from manyjudges.graded.protocols import loglik_by_judge

    panel = _panel(spec)
    settings = DATASET_SETTINGS[spec["dataset"]]
    method = method_for({"method": spec["method"], "params": spec["params"]}, spec["method"],
                        {"inner_folds": settings["inner_folds"]})
    start = time.process_time()
    n_chunks = spec.get("chunks") or 1
    preds, params = predict_part(panel, method, spec["protocol"], 0, n_chunks, settings["min_labels"],
                                 settings["outer_folds"])
    cpu = time.process_time() - start
    ll = loglik_by_judge(preds)
    return {"cpu": cpu, "loglik": dict(zip(ll["judge"].astype(str), ll["loglik"].astype(float))),
            "params": {f"{j}:{p}": float(v) for j, p, v in zip(params["judge"].astype(str), params["parameter"],
                                                               params["value"])}}


# ---------------------------------------------------------------------------
# Parent


def old_source(ref: str, into: Path) -> Path:
    """``src/`` of the repository at ``ref``, extracted into ``into``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src/manyjudges"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def start_child(spec: dict, src: Path) -> subprocess.Popen:
    """The child process for ``spec`` on the code in ``src``; one BLAS thread, as the pipeline's jobs
    (the Snakefile sets it: BLAS threads spinning on a shared 2-core machine double the CPU time)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return subprocess.Popen([sys.executable, __file__, "--child", json.dumps(spec)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def child_result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        return {"error": err.strip().splitlines()[-1] if err.strip() else f"exit {proc.returncode}"}
    return json.loads(out.strip().splitlines()[-1])


def _max_diff(a: dict, b: dict) -> float:
    return max((abs(a[k] - b[k]) for k in a.keys() & b.keys()), default=float("nan"))


def compare(case: str, dataset: str, method: str, params: dict, protocol: str, old: dict, new: dict) -> dict:
    row = {"case": case, "dataset": dataset, "method": method, "protocol": protocol,
           "params": json.dumps(params) if params else ""}
    if "error" in old or "error" in new:
        return {**row, **{c: "" for c in COLUMNS if c not in row}, "status": old.get("error") or new.get("error")}
    return {**row, "judges": len(new["loglik"]), "cpu_old": f"{old['cpu']:.2f}", "cpu_new": f"{new['cpu']:.2f}",
            "speedup": f"{old['cpu'] / max(new['cpu'], 1e-9):.1f}",
            "loglik_old": f"{sum(old['loglik'].values()):.4f}", "loglik_new": f"{sum(new['loglik'].values()):.4f}",
            "max_abs_diff_loglik": f"{_max_diff(old['loglik'], new['loglik']):.3g}",
            "max_abs_diff_param": f"{_max_diff(old['params'], new['params']):.3g}", "status": "ok"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--old-ref", default=DEFAULT_OLD_REF, help=f"git revision of the previous code ({DEFAULT_OLD_REF})")
    ap.add_argument("--mirror", default=os.environ.get("MANYJUDGES_MIRROR"),
                    help="data mirror root holding AdultContent3 (default $MANYJUDGES_MIRROR)")
    ap.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES), choices=sorted(CASES))
    ap.add_argument("--methods", nargs="+", default=None, help="only these methods")
    ap.add_argument("--grades", help="sim_medline grades.tsv (default: simulate it)")
    ap.add_argument("--meta", help="sim_medline grades.yaml")
    ap.add_argument("--chunks", type=int, default=1,
                    help="cross induction on the first of this many chunks of the held-out judges only (every "
                         "chunks-th fold from the first, as a pipeline job with this many jobs): a quicker run")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "results")
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    if any(c.startswith("adultcontent3") for c in args.cases) and not args.mirror:
        ap.error("adultcontent3 needs the data mirror: --mirror DIR or MANYJUDGES_MIRROR")
    from benchmarks.harness.timing import write_tables

    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="graded_speed_") as tmp:
        old_src, new_src = old_source(args.old_ref, Path(tmp)), REPO / "src"
        for case in args.cases:
            for dataset, method, params, protocol in CASES[case]:
                if args.methods and method not in args.methods:
                    continue
                spec = {"dataset": dataset, "method": method, "params": params, "protocol": protocol,
                        "mirror": args.mirror, "grades": args.grades, "meta": args.meta,
                        "chunks": args.chunks if protocol == "cross_induction" else 1}
                # old and new side by side (CPU time is per process)
                old_proc, new_proc = start_child(spec, old_src), start_child(spec, new_src)
                old, new = child_result(old_proc), child_result(new_proc)
                rows.append(compare(case, dataset, method, params, protocol, old, new))
                print("\t".join(str(rows[-1][c]) for c in COLUMNS), flush=True)
    meta = [f"old: src/manyjudges at {args.old_ref}; new: {new_src}",
            f"cross induction on chunk 0 of {args.chunks} of the held-out judges' folds" if args.chunks > 1
            else "cross induction on every held-out judge",
            "cpu_*: time.process_time of the protocol (predict_part, every held-out judge in one process), seconds",
            "max_abs_diff_loglik: largest |S_old(k) - S_new(k)| over held-out judges k; max_abs_diff_param: "
            "largest difference of a scalar chosen parameter (tau, sigma, lambda) over judges",
            f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.platform()}",
            f"total wall time {time.perf_counter() - t0:.0f} s"]
    tsv, md = write_tables(rows, COLUMNS, args.out, "graded_speed", "Graded predictors: previous vs current CPU time",
                           meta)
    print(f"wrote {tsv} and {md}")


if __name__ == "__main__":
    main()
