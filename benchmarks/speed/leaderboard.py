"""Time the leaderboard's Bradley-Terry with ties against evalica's on the same simulated verdicts, and
its bootstrap.

    python -m benchmarks.speed.leaderboard [--sizes 1000000 ...] [--models 100] [--bootstrap 1000 ...]
                                           [--mirror DIR] [--methods M ...] [--method-bootstrap N]
                                           [--before COMMIT] [--before-bootstrap N] [--out benchmarks/runs]

Writes ``<out>/leaderboard_speed.tsv`` and ``.md`` and prints the table.

Protocol. For each size n: n verdicts among ``--models`` models (log-strengths N(0, 1), nu = 0.6,
500 prompts, ``default_rng(0)``): an ordered pair of distinct models drawn uniformly, the outcome
from the Davidson model (``benchmarks/accuracy/leaderboard_coverage.py``). In one process, with BLAS
limited to one thread (threadpoolctl), each call timed once, or best of 3 when under 1 s:

* ``manyjudges fit``: ``Leaderboard("bradley_terry", {"reg": 0}).fit(verdicts)`` from the
  DataFrame (coding the strings, summing the cells, L-BFGS-B to max |gradient| <= 1e-10);
* ``evalica``: ``evalica.bradley_terry(model_a, model_b, winners, win_weight=1.0,
  tie_weight=0.5)`` with its defaults (the Rust solver, tolerance 1e-6, at most 100 iterations)
  on the same columns; building its list of ``Winner`` values is not timed. The same with
  ``tolerance=1e-10, limit=10000`` as ``evalica (tight)``. ``max_abs_vs_ours`` compares
  log(evalica score), whose geometric mean is 1, to our centred log-strengths;
* ``manyjudges bootstrap``: ``Leaderboard("bradley_terry", n_bootstrap=B, resample=unit)`` for
  unit = verdicts and prompts, the full fit and B replicates, each started from the full fit
  (default reg 0.01: Newton);
* end to end, each in a new process with ``OPENBLAS_NUM_THREADS=1``, on the verdicts written
  once to a TSV (``prompt, model_a, model_b, winner``; the writing not timed), timed once from
  the start of the process to its end: ``manyjudges command`` is ``manyjudges crowd leaderboard
  FILE --method bradley_terry --params '{"reg": 0}' --bootstrap 0 -o OUT``; ``evalica script`` is
  a Python process that reads the file with ``pandas.read_csv(sep="\t")``, maps the winners to
  evalica's, calls ``evalica.bradley_terry`` as above (its defaults) and writes the scores with
  ``to_csv``;
* reading, on the same TSV, each in a new process, the call timed inside the process: ``pandas
  read_csv`` is ``pandas.read_csv(FILE, sep="\t")``; ``manyjudges read_verdicts`` is
  ``manyjudges.io.tables.verdicts.read_verdicts(FILE)`` (the checked table, every column str);
  ``manyjudges read_arena_verdicts`` is ``manyjudges.arena.reader.read_arena_verdicts(FILE)``
  (checked and coded: what the command reads and the leaderboard fits).

With ``--mirror DIR`` (default ``$MANYJUDGES_MIRROR``; ``--sizes`` may then be empty), also the
llmfao crowd's verdicts (``crowd-comparisons.csv`` of the pinned llmfao source, 8,931 verdicts, read
with ``verdicts_of_source``) written once to a TSV (``prompt, judge, model_a, model_b, winner``),
and on it, each command three times in a new process with ``OPENBLAS_NUM_THREADS=1`` (every run
reported): ``manyjudges crowd leaderboard FILE -o OUT`` (its defaults: Bradley-Terry, ties half,
reg 0.01, 1,000 replicates resampling verdicts, seed 0), the same with ``--resample prompts``, and
the evalica script above (no intervals).

With ``--mirror DIR`` and ``--methods M ...``, every method M on the same llmfao TSV, each in a new
process with the environment as it is (BLAS threads not limited from outside), timed from the start
of the process to its end: ``python -m manyjudges arena leaderboard FILE --method M --bootstrap N -o
OUT`` (N = ``--method-bootstrap``, default 1,000, replicates resampling verdicts, seed 0) with this
checkout's ``src`` first on ``PYTHONPATH`` (``after``), and with ``--before COMMIT`` the same
command with the ``src`` of that commit (extracted by ``git archive`` into a temporary folder) first
on ``PYTHONPATH`` (``before``), with ``--before-bootstrap`` replicates (default 1000). In one loop
over the methods, for each: after with N replicates, after with ``--before-bootstrap`` replicates
when that is not N, then before. ``cpu_seconds`` is the user plus system time of the process and its
children (the worker processes of the bootstrap): above ``seconds``, more than one core was used.
``max_abs_vs_ours`` compares the before table with the after one of the same replicates: the largest
absolute difference in ``score``, and in ``ci_low`` and ``ci_high``.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from benchmarks.harness.timing import best_of, write_tables
from manyjudges.arena import Leaderboard

COLUMNS = ("n_verdicts", "n_models", "implementation", "seconds", "per_replicate_ms", "max_abs_vs_ours", "notes")
METHOD_COLUMNS = ("method", "code", "replicates", "seconds", "cpu_seconds", "per_replicate_ms", "max_abs_vs_ours")


def simulate(n: int, n_models: int, seed: int = 0, nu: float = 0.6, n_prompts: int = 500) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = rng.normal(0.0, 1.0, n_models)
    a = rng.integers(0, n_models, n)
    b = (a + rng.integers(1, n_models, n)) % n_models
    pa, pb = np.exp(s[a]), np.exp(s[b])
    pt = nu * np.sqrt(pa * pb)
    u = rng.random(n) * (pa + pb + pt)
    code = np.where(u < pa, 0, np.where(u < pa + pb, 1, 2))
    names = np.array([f"model{i:03d}" for i in range(n_models)], dtype=object)
    prompts = np.array([f"p{i}" for i in range(n_prompts)], dtype=object)
    winners = np.array(["model_a", "model_b", "tie"], dtype=object)
    return pd.DataFrame({"prompt": prompts[rng.integers(0, n_prompts, n)], "model_a": names[a],
                         "model_b": names[b], "winner": winners[code]})


EVALICA_SCRIPT = """
import sys
import evalica
import pandas as pd
table = pd.read_csv(sys.argv[1], sep="\\t")
code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw}
result = evalica.bradley_terry(table["model_a"], table["model_b"], [code[w] for w in table["winner"]],
                               win_weight=1.0, tie_weight=0.5)
result.scores.to_csv(sys.argv[2], sep="\\t")
"""


#: the reading calls timed, each in a new process (module docstring)
READS = {
    "pandas read_csv": "import pandas as pd\nread = lambda path: pd.read_csv(path, sep='\\t')",
    "manyjudges read_verdicts": "from manyjudges.io.tables.verdicts import read_verdicts as read",
    "manyjudges read_arena_verdicts": "from manyjudges.arena.reader import read_arena_verdicts as read",
}
_READ_SCRIPT = """
import sys, time
{setup}
start = time.perf_counter(); read(sys.argv[1]); print(time.perf_counter() - start)
"""


def reads(path: Path, n: int, n_models: int, env: dict) -> list[dict]:
    """Each reading call of :data:`READS` on ``path``, in a new process, timed inside it."""
    rows = []
    for label, setup in READS.items():
        done = subprocess.run([sys.executable, "-c", _READ_SCRIPT.format(setup=setup), str(path)], check=True,
                              env=env, capture_output=True, text=True)
        rows.append({"n_verdicts": n, "n_models": n_models, "implementation": label,
                     "seconds": round(float(done.stdout.split()[-1]), 2), "per_replicate_ms": "",
                     "max_abs_vs_ours": "", "notes": "new process: the reading call alone"})
        print(rows[-1], flush=True)
    return rows


def end_to_end(verdicts: pd.DataFrame, n: int, n_models: int) -> list[dict]:
    """The command and an evalica script, each a new process on the same TSV, and the reads (module docstring)."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "verdicts.tsv", Path(tmp) / "out.tsv"
        verdicts.to_csv(path, sep="\t", index=False)
        commands = {"manyjudges command": ["manyjudges", "crowd", "leaderboard", str(path), "--method",
                                           "bradley_terry", "--params", '{"reg": 0}', "--bootstrap", "0", "-o",
                                           str(out)],
                    "evalica script": [sys.executable, "-c", EVALICA_SCRIPT, str(path), str(out)]}
        for label, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, env=env, capture_output=True)
            rows.append({"n_verdicts": n, "n_models": n_models, "implementation": label,
                         "seconds": round(time.perf_counter() - start, 2), "per_replicate_ms": "",
                         "max_abs_vs_ours": "", "notes": "new process: start, read, fit, write"})
            print(rows[-1], flush=True)
        rows += reads(path, n, n_models, env)
    return rows


def llmfao_rows(mirror: Path) -> list[dict]:
    """The llmfao crowd's leaderboard commands and the evalica script, three new processes each (module docstring)."""
    from manyjudges.io.sources.verdict_sources import verdicts_of_source
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = [p for p in _pinned_files("llmfao")["repo_path"] if p.endswith("/crowd-comparisons.csv")]
    verdicts = verdicts_of_source("llmfao", [_mirror_path(p, mirror) for p in files])
    n, n_models = len(verdicts), len(set(verdicts["model_a"]) | set(verdicts["model_b"]))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "llmfao.tsv", Path(tmp) / "out.tsv"
        verdicts.to_csv(path, sep="\t", index=False)
        command = ["manyjudges", "crowd", "leaderboard", str(path), "-o", str(out)]
        commands = {"manyjudges command (llmfao)": command,
                    "manyjudges command --resample prompts (llmfao)": [*command, "--resample", "prompts"],
                    "evalica script (llmfao)": [sys.executable, "-c", EVALICA_SCRIPT, str(path), str(out)]}
        for label, argv in commands.items():
            runs = []
            for _ in range(3):
                start = time.perf_counter()
                subprocess.run(argv, check=True, env=env, capture_output=True)
                runs.append(time.perf_counter() - start)
            rows.append({"n_verdicts": n, "n_models": n_models, "implementation": label,
                         "seconds": round(max(runs), 2), "per_replicate_ms": "", "max_abs_vs_ours": "",
                         "notes": "new process, 3 runs (the slowest shown): " + ", ".join(f"{r:.2f}" for r in runs)})
            print(rows[-1], flush=True)
    return rows


def llmfao_tsv(mirror: Path, folder: Path) -> tuple[Path, int, int]:
    """The llmfao crowd's verdicts written to ``folder/llmfao.tsv``; its path, verdicts and models."""
    from manyjudges.io.sources.verdict_sources import verdicts_of_source
    from manyjudges.pipeline.download import _mirror_path, _pinned_files

    files = [p for p in _pinned_files("llmfao")["repo_path"] if p.endswith("/crowd-comparisons.csv")]
    verdicts = verdicts_of_source("llmfao", [_mirror_path(p, mirror) for p in files])
    path = folder / "llmfao.tsv"
    verdicts.to_csv(path, sep="\t", index=False)
    return path, len(verdicts), len(set(verdicts["model_a"]) | set(verdicts["model_b"]))


def timed_command(src: Path, path: Path, method: str, replicates: int, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, with the children) of one leaderboard command with ``src`` first."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "manyjudges", "arena", "leaderboard", str(path), "--method", method,
                    "--bootstrap", str(replicates), "-o", str(out)], check=True, env=env, capture_output=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def table_difference(first: Path, second: Path) -> str:
    """Largest absolute difference of ``score`` and of ``ci_low, ci_high`` between two leaderboard tables."""
    a = pd.read_csv(first, sep="\t").set_index("model").sort_index()
    b = pd.read_csv(second, sep="\t").set_index("model").sort_index()
    score = np.abs(a["score"] - b["score"]).max()
    ci = np.abs(a[["ci_low", "ci_high"]] - b[["ci_low", "ci_high"]]).to_numpy().max()
    return f"score {score:.1e}, ci {ci:.1e}"


def method_rows(mirror: Path, methods: list[str], before: str | None, before_bootstrap: int,
                after_bootstrap: int = 1000) -> list[dict]:
    """Every method's command on the llmfao TSV, after and before (module docstring)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path, _, _ = llmfao_tsv(mirror, folder)
        old_src = None
        if before is not None:
            archive = subprocess.run(["git", "archive", before, "src"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
            old_src = folder / "src"
        here = Path(__file__).resolve().parents[2] / "src"
        for method in methods:
            runs = [("after", here, after_bootstrap)]
            if old_src is not None:
                if before_bootstrap != after_bootstrap:
                    runs.append(("after", here, before_bootstrap))
                runs.append((f"before ({before})", old_src, before_bootstrap))
            for code, src, replicates in runs:
                out = folder / f"{method}-{code.split()[0]}-{replicates}.tsv"
                seconds, cpu = timed_command(src, path, method, replicates, out)
                other = folder / f"{method}-after-{replicates}.tsv"
                diff = table_difference(out, other) if code != "after" and other.exists() else ""
                rows.append({"method": method, "code": code, "replicates": replicates, "seconds": round(seconds, 2),
                             "cpu_seconds": round(cpu, 2), "per_replicate_ms": round(1000 * seconds / replicates, 1),
                             "max_abs_vs_ours": diff})
                print(rows[-1], flush=True)
    return rows


def run_size(n: int, n_models: int, n_bootstrap: int) -> list[dict]:
    """The rows of one size (module docstring)."""
    import evalica

    rows = []
    verdicts = simulate(n, n_models)
    board, seconds = best_of(lambda: Leaderboard("bradley_terry", {"reg": 0.0}).fit(verdicts))
    ours = board.scores_
    rows.append({"n_verdicts": n, "n_models": n_models, "implementation": "manyjudges fit",
                 "seconds": round(seconds, 3), "per_replicate_ms": "", "max_abs_vs_ours": 0.0,
                 "notes": "reg 0, from the DataFrame"})
    print(rows[-1], flush=True)
    code = {"model_a": evalica.Winner.X, "model_b": evalica.Winner.Y, "tie": evalica.Winner.Draw}
    winners = [code[w] for w in verdicts["winner"]]
    for label, extra in (("evalica", {}), ("evalica (tight)", {"tolerance": 1e-10, "limit": 10_000})):
        result, seconds = best_of(lambda extra=extra: evalica.bradley_terry(
            verdicts["model_a"], verdicts["model_b"], winners, win_weight=1.0, tie_weight=0.5, **extra))
        diff = np.abs(np.log(result.scores.reindex(ours.index).to_numpy()) - ours.to_numpy()).max()
        rows.append({"n_verdicts": n, "n_models": n_models, "implementation": label,
                     "seconds": round(seconds, 3), "per_replicate_ms": "",
                     "max_abs_vs_ours": f"{diff:.2e}", "notes": f"{result.iterations} iterations"})
        print(rows[-1], flush=True)
    rows += end_to_end(verdicts, n, n_models)
    for unit in ("verdicts", "prompts"):
        if not n_bootstrap:
            break
        start = time.perf_counter()
        Leaderboard("bradley_terry", n_bootstrap=n_bootstrap, resample=unit).fit(verdicts)
        seconds = time.perf_counter() - start
        rows.append({"n_verdicts": n, "n_models": n_models,
                     "implementation": f"manyjudges bootstrap {n_bootstrap} ({unit})", "seconds": round(seconds, 2),
                     "per_replicate_ms": round(1000 * seconds / n_bootstrap, 2), "max_abs_vs_ours": "",
                     "notes": "reg 0.01 (Newton), full fit included"})
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    import evalica

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000_000])
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--bootstrap", type=int, nargs="+", default=[1000],
                        help="replicates per size (one value for all, or one per size; 0: no bootstrap)")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"),
                        help="the data mirror root: also time the llmfao crowd's leaderboard "
                             "(default: $MANYJUDGES_MIRROR)")
    parser.add_argument("--methods", nargs="*", default=[],
                        help="with --mirror: time these leaderboard methods with 1,000 replicates on llmfao")
    parser.add_argument("--method-bootstrap", type=int, default=1000,
                        help="replicates of the --methods runs (default 1000)")
    parser.add_argument("--before", help="with --methods: also time the src of this commit")
    parser.add_argument("--before-bootstrap", type=int, default=1000,
                        help="replicates of the --before runs (default 1000)")
    parser.add_argument("--out", default="benchmarks/runs")
    args = parser.parse_args()
    if args.methods:
        if args.mirror is None:
            parser.error("--methods needs --mirror")
        rows = method_rows(Path(args.mirror), args.methods, args.before, args.before_bootstrap,
                           args.method_bootstrap)
        write_tables(rows, METHOD_COLUMNS, Path(args.out), "leaderboard_methods_speed",
                     "Leaderboard speed by method (llmfao)",
                     [f"numpy {np.__version__}, python {platform.python_version()}, {os.cpu_count()} CPUs"])
        print(pd.DataFrame(rows).to_string(index=False))
        return
    boots = args.bootstrap * len(args.sizes) if len(args.bootstrap) == 1 else args.bootstrap
    rows = []
    with threadpool_limits(1):
        for n, b in zip(args.sizes, boots):
            rows += run_size(n, args.models, b)
        if args.mirror is not None:
            rows += llmfao_rows(Path(args.mirror))
    write_tables(rows, COLUMNS, Path(args.out), "leaderboard_speed", "Leaderboard speed",
                 [f"evalica {evalica.__version__}, numpy {np.__version__}, python {platform.python_version()}",
                  "BLAS limited to 1 thread"])
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
