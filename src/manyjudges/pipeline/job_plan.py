"""How the pipeline's work is split into jobs.

A method's ``jobs`` key, the ``batch`` lists (several methods in one job per dataset), the graded parts and ED
under noise.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from manyjudges.core.registry import method_spec

#: the job name of the methods listed under a section's ``batch`` (one job per dataset runs them all)
BATCH_JOB = "batch"


def method_jobs(section: Mapping[str, Any], name: str, protocol: str) -> int:
    """Jobs the method's cross induction is split into (``jobs`` in its config entry); 1 otherwise."""
    return entry_jobs(section, name) if protocol == "cross_induction" else 1


def entry_jobs(section: Mapping[str, Any], name: str) -> int:
    """Jobs a configured method's work is split into (``jobs`` in its entry; default 1)."""
    return int((section["methods"][name] or {}).get("jobs", 1))


def job_count(values: list[Any], jobs: int) -> int:
    """How many jobs ``values`` are split into: ``jobs``, but never more than there are values."""
    return max(1, min(int(jobs), len(values)))


def job_share(values: list[Any], jobs: int, chunk: int) -> list[Any]:
    """Return the values job ``chunk`` of ``job_count(values, jobs)`` works on.

    Consecutive runs of near-equal length, in order (the first ``len(values) % jobs`` runs one longer).
    """
    n = job_count(values, jobs)
    if not 0 <= chunk < n:
        raise ValueError(f"job {chunk} of {n}: no such job")
    size, extra = divmod(len(values), n)
    start = chunk * size + min(chunk, extra)
    return list(values[start : start + size + (chunk < extra)])


def planned_parts(section: Mapping[str, Any], dataset: str) -> list[tuple[str, str, int]]:
    """Return (method, protocol, chunk) of every prediction part of one dataset."""
    # imported here: the jobs' scripts import this module for write_tsv / setup_logging only
    from manyjudges.graded.experiment import PROTOCOLS, method_for, protocols_for

    out = []
    for name in section["methods"]:
        spec = method_spec(section, name)
        method = method_for(spec, name, section["datasets"][dataset])
        for protocol in protocols_for(method, section.get("protocols", list(PROTOCOLS))):
            out += [(name, protocol, c) for c in range(method_jobs(section, name, protocol))]
    return out


def planned_jobs(section: Mapping[str, Any], dataset: str) -> dict[str, list[list[tuple[str, str, int]]]]:
    """{job name: [the (method, protocol, chunk) parts of each of its jobs]} for one graded dataset.

    A method with ``jobs: 1`` (the default) runs every protocol in one job, named after it; with
    ``jobs: N > 1`` each of the N cross-induction chunks is a job and the single-parameter
    protocol another. The methods listed under ``batch`` run in one job together, named
    :data:`BATCH_JOB` (cheap methods, whose own jobs would be mostly process start-up).
    """
    batch = set(section.get("batch") or [])
    out: dict[str, list[list[tuple[str, str, int]]]] = {}
    for name, protocol, chunk in planned_parts(section, dataset):
        jobs = out.setdefault(BATCH_JOB if name in batch else name, [])
        if jobs and (name in batch or method_jobs(section, name, "cross_induction") == 1):
            jobs[0].append((name, protocol, chunk))
        else:
            jobs.append([(name, protocol, chunk)])
    return out


def ed_jobs(section: Mapping[str, Any]) -> dict[str, list[tuple[list[str], list[float]]]]:
    """{job name: [(methods, noise ratios) of each of its jobs]} of ED under noise, per dataset.

    A method's ratios are split over its ``jobs`` (default 1); the methods listed under
    ``batch`` run in one job together, named :data:`BATCH_JOB`, over every ratio.
    """
    ratios = list(section["noise_ratios"])
    batch = set(section.get("batch") or [])
    out: dict[str, list[tuple[list[str], list[float]]]] = {}
    for name in section["methods"]:
        if name in batch:
            out.setdefault(BATCH_JOB, [([], ratios)])[0][0].append(name)
        else:
            jobs = entry_jobs(section, name)
            out[name] = [([name], job_share(ratios, jobs, c)) for c in range(job_count(ratios, jobs))]
    return out


def method_units(section: Mapping[str, Any]) -> dict[str, list[str]]:
    """Return {job name: its methods}: one job per method, except the methods listed under ``batch``.

    Those share one job named :data:`BATCH_JOB` (at the place of the first of them).
    """
    batch = set(section.get("batch") or [])
    out: dict[str, list[str]] = {}
    for name in section["methods"]:
        out.setdefault(BATCH_JOB if name in batch else name, []).append(name)
    return out
