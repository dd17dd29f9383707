"""Shared pieces of the benchmark scripts: best-of timing, the child's limits and errors, tables."""
from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

BEST_OF = 3  # repeats for runs under REPEAT_BELOW seconds (best is reported)
REPEAT_BELOW = 1.0
STARTUP_GRACE = 120.0  # seconds allowed for a child to spawn and import before its clock starts


def best_of_n(fn: Callable[[], Any], repeats: int) -> tuple[Any, float]:
    """(result, best seconds) over ``repeats`` runs of fn (time.perf_counter)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return result, best


def best_of(fn: Callable[[], Any]) -> tuple[Any, float]:
    """(result, seconds): one run, or best of BEST_OF when the first is under REPEAT_BELOW s."""
    t0 = time.perf_counter()
    result = fn()
    best = time.perf_counter() - t0
    if best < REPEAT_BELOW:
        for _ in range(BEST_OF - 1):
            t0 = time.perf_counter()
            result = fn()
            best = min(best, time.perf_counter() - t0)
    return result, best


def limit_memory(mem_gb: float) -> None:
    """Cap the child's address space so a blow-up ends as an error, not a swamped machine."""
    if mem_gb:
        import resource

        limit = int(mem_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def error_result(exc: BaseException) -> dict[str, Any]:
    """The row fields of a call that raised (message flattened for a TSV cell)."""
    msg = f"{type(exc).__name__}: {exc}".replace("\t", " ").replace("\n", " ")
    return {"status": "error", "notes": msg[:300], "traceback": traceback.format_exc()}


def stop_child(proc) -> None:
    """Join a finished child; kill it if it hangs."""
    proc.join(timeout=5)
    if proc.is_alive():
        proc.kill()
        proc.join()


def write_tables(
    rows: Sequence[dict], columns: Sequence[str], out_dir: Path, stem: str, title: str, meta: Sequence[str]
) -> tuple[Path, Path]:
    """<out_dir>/<stem>.tsv and the same table as markdown, headed by ``title`` and the ``meta`` lines."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tsv = out_dir / f"{stem}.tsv"
    with tsv.open("w") as fh:
        fh.write("\t".join(columns) + "\n")
        for r in rows:
            fh.write("\t".join(str(r[c]) for c in columns) + "\n")
    md = out_dir / f"{stem}.md"
    with md.open("w") as fh:
        fh.write(f"# {title}\n\n")
        for line in meta:
            fh.write(f"- {line}\n")
        fh.write("\n| " + " | ".join(columns) + " |\n")
        fh.write("|" + "|".join("---" for _ in columns) + "|\n")
        for r in rows:
            fh.write("| " + " | ".join(str(r[c]).replace("|", "\\|") for c in columns) + " |\n")
    return tsv, md


def run_in_child(ctx, target: Callable[..., None], args: tuple, timeout: float) -> dict[str, Any]:
    """Run ``target(*args, queue)`` in a spawned child and return its one result message.

    The child first puts ``{"ready": True}`` (after its imports and setup), then one result
    dict. The clock (``timeout`` s, wall) starts at "ready"; a child that dies or overruns
    gives an ``error`` or ``timeout`` result instead.
    """
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue), daemon=True)
    proc.start()
    deadline = time.monotonic() + timeout + STARTUP_GRACE  # reset when the child is ready
    out = None
    while out is None:
        try:
            msg = queue.get(timeout=0.05)
            if msg.get("ready"):
                deadline = time.monotonic() + timeout
            else:
                out = msg
        except Exception:  # queue.Empty
            if not proc.is_alive():
                try:
                    out = queue.get(timeout=1.0)
                    if out.get("ready"):
                        out = queue.get(timeout=1.0)
                except Exception:
                    out = {"status": "error", "notes": f"child died (exit code {proc.exitcode})"}
            elif time.monotonic() > deadline:
                proc.kill()
                out = {"status": "timeout", "notes": f"killed after {timeout:g} s"}
    stop_child(proc)
    return out


def trec_rf10_file() -> Path:
    """The pinned trec-rf10-data.txt: from the local mirror named by $MANYJUDGES_MIRROR (laid out
    <owner>/<repo>/<commit>/<path>, as the pipeline's ``mirror`` option), else the copy a
    paper-config run downloaded to data/raw/trec_rf10/."""
    import os

    from manyjudges.pipeline.download import _mirror_path, _pinned_files, _raw_filename

    repo_path = _pinned_files("trec_rf10")["repo_path"].iloc[0]
    mirror = os.environ.get("MANYJUDGES_MIRROR")
    if mirror:
        return _mirror_path(repo_path, mirror)
    return Path(__file__).resolve().parents[2] / "data" / "raw" / "trec_rf10" / _raw_filename(repo_path)
