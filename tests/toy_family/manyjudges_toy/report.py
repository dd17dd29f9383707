"""The toy family's part of the reproduction report: one table of every dataset's scores per method."""
from __future__ import annotations

import pandas as pd

from manyjudges.reporting.formatting import fmt
from manyjudges.reporting.section import ReportSection

__all__ = ["report_section"]


def report_section(results: dict[str, dict[str, str]], datasets: dict) -> ReportSection:
    """``results``: {dataset: {method: its scores table}}; ``datasets``: the config's (for their descriptions)."""
    if not results:
        return ReportSection("toy", "", pd.DataFrame())
    lines = ["## Toy family: one score per item\n"]
    for dataset, by_method in results.items():
        tables = {m: pd.read_csv(path, sep="\t", dtype={"item": str}).set_index("item")["score"]
                  for m, path in by_method.items()}
        lines += [f"### {dataset}: {datasets[dataset].get('description', '')}\n",
                  "| item | " + " | ".join(tables) + " |", "|---|" + "---|" * len(tables)]
        for item in next(iter(tables.values())).index:
            lines.append(f"| {item} | " + " | ".join(fmt(t[item]) for t in tables.values()) + " |")
        lines.append("")
    return ReportSection("toy", "\n".join(lines) + "\n", pd.DataFrame())
