"""Small helpers the Snakemake rules and scripts share (config lookups, logging)."""
from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import pandas as pd

from .download import pinned_files, raw_filename
from .io.tables import orderings_to_rank_matrices, write_table


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


def method_spec(section: Mapping[str, Any], name: str) -> dict[str, Any]:
    """{method, params} of a configured method entry (``method`` defaults to the entry's key)."""
    try:
        entry = section["methods"][name] or {}
    except KeyError:
        raise ValueError(f"method {name!r} is not configured; configured: {sorted(section['methods'])}") from None
    return {"method": entry.get("method", name), "params": dict(entry.get("params", {}) or {})}


def sweep_parameters(section: Mapping[str, Any]) -> list[str]:
    """FreSPA parameters swept in this config (empty when there is no sweep)."""
    return list((section.get("sweep") or {}).get("parameters", {}) or {})


def panels_from_table(orderings: pd.DataFrame) -> dict[str, np.ndarray]:
    """{set_id: (judges, items) rank matrix} from a canonical orderings table."""
    return {set_id: ranks for set_id, (_, _, ranks) in orderings_to_rank_matrices(orderings).items()}


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


def list_sets_from_orderings(orderings: pd.DataFrame) -> dict[str, list[list[str]]]:
    """{set_id: one list per judge, best first}; tied items in item order (natural sort)."""
    out: dict[str, list[list[str]]] = {}
    for set_id, (_, items, ranks) in orderings_to_rank_matrices(orderings).items():
        out[set_id] = [[items[i] for i in np.lexsort((np.arange(len(items)), row))] for row in ranks]
    return out


def load_list_sets(path: str | Path) -> dict[str, list[list[str]]]:
    """{list_set: lists} from a processed rankings.tsv or orderings.tsv (by file name)."""
    from .io.rankings import rankings_to_lists, read_rankings
    from .io.tables import read_orderings

    if Path(path).name == "rankings.tsv":
        return {name: list(lists.values()) for name, lists in rankings_to_lists(read_rankings(path)).items()}
    return list_sets_from_orderings(read_orderings(path))


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
