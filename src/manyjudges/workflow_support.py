"""What only the Snakefile and its scripts need: config lookups, job planning, logging.

Nothing in the library imports this module.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Mapping

import pandas as pd

from manyjudges.download import pinned_files, raw_filename
from manyjudges.graded.experiment import PROTOCOLS, method_for, protocols_for
from manyjudges.io.tables import write_table
from manyjudges.registry import method_spec


def dataset_names(section: Mapping[str, Any], source: str) -> list[str]:
    """Names of the configured datasets with this ``source``."""
    return [name for name, spec in section["datasets"].items() if spec["source"] == source]


def ratio_label(ratio: float) -> str:
    """Noise ratio as it appears in file names: 0, 0.25, 0.5, 1."""
    return f"{float(ratio):g}"


PINNED_SOURCES = ("preflib", "search_results", "clef_runs", "trec_rf10", "adultcontent3", "snow2008", "mirex2005")


def all_datasets(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every configured dataset (orderings, consensus, graded and crowd sections) by name."""
    out: dict[str, dict[str, Any]] = {}
    for section in ("orderings", "consensus", "graded", "crowd"):
        for name, spec in ((config.get(section) or {}).get("datasets") or {}).items():
            out[name] = spec
    return out


def pinned_dataset_names(config: Mapping[str, Any]) -> list[str]:
    """Datasets fetched from pinned URLs."""
    return [n for n, spec in all_datasets(config).items() if spec["source"] in PINNED_SOURCES]


def raw_files(config: Mapping[str, Any], dataset: str) -> dict[str, dict[str, str]]:
    """{local filename: {repo_path, sha256}} of a real dataset, restricted to ``files`` if given."""
    spec = all_datasets(config)[dataset]
    pinned = pinned_files(dataset)
    table = {raw_filename(p): {"repo_path": p, "sha256": h} for p, h in zip(pinned["repo_path"], pinned["sha256"])}
    wanted = spec.get("files")
    if wanted:
        unknown = sorted(set(wanted) - set(table))
        if unknown:
            raise ValueError(f"dataset {dataset!r}: files {unknown} are not pinned; known: {sorted(table)}")
        table = {f: table[f] for f in wanted}
    return table


def sweep_parameters(section: Mapping[str, Any]) -> list[str]:
    """FreSPA parameters swept in this config (empty when there is no sweep)."""
    return list((section.get("sweep") or {}).get("parameters", {}) or {})


def setup_logging(log_path: str | Path | None) -> None:
    """Send the library's progress messages to the rule's log file (or stderr)."""
    handler: logging.Handler = logging.FileHandler(log_path, mode="w") if log_path else logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("manyjudges")
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def write_tsv(df: pd.DataFrame, path: str | Path) -> None:
    """Atomic TSV with a fixed float format, so reruns are byte-identical."""
    write_table(df.round(10), path)


def check_config_methods(config: Mapping[str, Any]) -> None:
    """Fail before any job when a configured method cannot be built: an unknown name, a module that
    does not import, a parameter the method does not take or a value it rejects."""
    from manyjudges.consensus.registry import AGGREGATORS
    from manyjudges.crowd.registry import CROWD_METHODS
    from manyjudges.graded.registry import GRADED_METHODS
    from manyjudges.orderings.registry import ORDERING_SCORERS

    for section, registry in (("orderings", ORDERING_SCORERS), ("graded", GRADED_METHODS), ("crowd", CROWD_METHODS)):
        for name in (config.get(section) or {}).get("methods") or {}:
            spec = method_spec(config[section], name)
            try:
                registry.check(spec["method"], spec["params"])
            except ValueError as err:
                raise ValueError(f"config: {section}.methods.{name}: {err}") from None
    for name in ((config.get("consensus") or {}).get("aggregation") or {}).get("aggregators") or []:
        try:
            AGGREGATORS.resolve(name)
        except ValueError as err:
            raise ValueError(f"config: consensus.aggregation.aggregators: {err}") from None


def check_config_references(config: Mapping[str, Any]) -> None:
    """Fail early, and clearly, when a section names a dataset that is not configured."""
    known = all_datasets(config)
    cons = config.get("consensus") or {}
    wanted = list((cons.get("aggregation") or {}).get("datasets", []))
    if cons.get("search"):
        wanted.append(cons["search"]["dataset"])
    missing = [d for d in wanted if d not in known]
    if missing:
        raise ValueError(
            f"config: consensus refers to datasets {missing} that are not configured; "
            f"configured: {sorted(known)} (define them under orderings.datasets or consensus.datasets)"
        )
    if cons.get("search") and known[cons["search"]["dataset"]]["source"] not in ("search_results", "clef_runs"):
        raise ValueError(f"config: consensus.search.dataset {cons['search']['dataset']!r} must be a rankings dataset (search_results or clef_runs)")
    graded = config.get("graded") or {}
    unknown = sorted({m for pair in graded.get("comparisons") or [] for m in pair} - set(graded.get("methods") or {}))
    if unknown:
        raise ValueError(f"config: graded.comparisons names methods {unknown} that are not configured; "
                         f"configured: {sorted(graded.get('methods') or {})}")
    crowd = config.get("crowd") or {}
    crowd_methods = set(crowd.get("methods") or {})
    named = set(crowd.get("proposed") or []) | {m for pair in crowd.get("ablation") or [] for m in pair}
    named |= set(crowd.get("baselines") or [])
    named |= set((crowd.get("robustness") or {}).get("methods") or [])
    unknown = sorted(named - crowd_methods)
    if unknown:
        raise ValueError(f"config: crowd.proposed / baselines / ablation / robustness name methods {unknown} that are not "
                         f"configured; configured: {sorted(crowd_methods)}")
    robust = sorted(set((crowd.get("robustness") or {}).get("datasets") or []) - set(crowd.get("datasets") or {}))
    if robust:
        raise ValueError(f"config: crowd.robustness.datasets {robust} are not under crowd.datasets; "
                         f"configured: {sorted(crowd.get('datasets') or {})}")
    for name, spec in (crowd.get("datasets") or {}).items():
        other = {s: d for s in ("orderings", "consensus", "graded")
                 for n, d in ((config.get(s) or {}).get("datasets") or {}).items() if n == name}
        for section, spec_other in other.items():
            if spec_other.get("source") != spec.get("source"):
                raise ValueError(f"config: dataset {name!r} is under crowd (source {spec.get('source')!r}) and "
                                 f"under {section} (source {spec_other.get('source')!r}); use another name")


def method_jobs(section: Mapping[str, Any], name: str, protocol: str) -> int:
    """Jobs the method's cross induction is split into (``jobs`` in its config entry); 1 otherwise."""
    if protocol != "cross_induction":
        return 1
    return int((section["methods"][name] or {}).get("jobs", 1))


def planned_parts(section: Mapping[str, Any], dataset: str) -> list[tuple[str, str, int]]:
    """(method, protocol, chunk) of every prediction job of one dataset."""
    out = []
    for name in section["methods"]:
        spec = method_spec(section, name)
        method = method_for(spec, name, section["datasets"][dataset])
        for protocol in protocols_for(method, section.get("protocols", list(PROTOCOLS))):
            out += [(name, protocol, c) for c in range(method_jobs(section, name, protocol))]
    return out
