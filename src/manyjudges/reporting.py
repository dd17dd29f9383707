"""Result tables gathered, and results/REPRODUCTION.md: paper values beside ours."""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from .consensus_experiments import summarise_aggregators
from .io.tables import read_orderings

METHOD_ORDER = ["ac_tau", "ac_sp", "wca_tau", "wca_sp", "rba_tau", "rba_sp", "frespa"]
PAPER = "Kim, Zhai, Han (ECIR 2010)"


def concat_tables(paths: Iterable[str | Path], dtype: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """Concatenate TSVs in the given order (``dtype``: column types, e.g. ids kept as strings)."""
    frames = [pd.read_csv(p, sep="\t", dtype=dtype) for p in paths]
    if not frames:
        raise ValueError("no tables to concatenate")
    return pd.concat(frames, ignore_index=True)


def _parse_key(key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in str(key).split(";"):
        name, _, value = part.partition("=")
        try:
            out[name] = float(value)
        except ValueError:
            out[name] = value
    return out


def paper_values(paper: str | None = None) -> pd.DataFrame:
    """The papers' numbers, one row each, key coordinates expanded into columns.

    Read from ``resources/paper_values.tsv`` (columns paper, table, key, statistic,
    paper_value, source); ``paper`` selects one paper (e.g. 'kim2010').
    """
    with resources.files("manyjudges.resources").joinpath("paper_values.tsv").open() as handle:
        raw = pd.read_csv(handle, sep="\t", comment="#", dtype=str)
    if paper is not None:
        raw = raw[raw["paper"] == paper]
    keys = pd.DataFrame([_parse_key(k) for k in raw["key"]], index=raw.index)
    table = pd.concat([raw.drop(columns=["key"]), keys], axis=1)
    for col in ("parameter", "method", "list_set"):
        if col in table:
            table[col] = table[col].fillna("")
    return table


def _fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{digits}f}"


def _signed(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or np.isnan(x) else f"{x:+.{digits}f}"


def dataset_summary(orderings: pd.DataFrame) -> str:
    """'S sets, J judges per set (min-max), K items per set (min-max)'."""
    per_set = orderings.groupby("set_id").agg(judges=("judge", "nunique"), items=("item", "nunique"))
    ties = orderings.groupby(["set_id", "judge"])["rank"].apply(lambda r: r.duplicated().any()).mean()
    return (
        f"{len(per_set)} sets; judges per set {per_set.judges.min()}-{per_set.judges.max()} "
        f"(mean {per_set.judges.mean():.1f}); items per set {per_set['items'].min()}-{per_set['items'].max()} "
        f"(mean {per_set['items'].mean():.1f}); orderings with ties: {100 * ties:.0f}%"
    )


def table1_markdown(ours: pd.DataFrame, paper: pd.DataFrame, paper_method: Mapping[str, str] | None = None) -> str:
    """Table 1 (ED by noise ratio and method) with Max-Min and % degradation rows.

    ``paper_method`` maps a configured method name to the registry name whose paper
    value it is compared with (e.g. frespa_judges -> frespa).
    """
    paper_method = dict(paper_method or {})
    p1 = paper[paper["table"] == "1"]
    methods = [m for m in METHOD_ORDER if m in set(ours["method"])] + sorted(set(ours["method"]) - set(METHOD_ORDER))
    ratios = sorted(set(ours["noise_ratio"]))
    head = "| noise ratio | " + " | ".join(methods) + " |\n|---|" + "---|" * len(methods) + "\n"
    lines = []
    ours_grid: dict[str, dict[float, float]] = {m: {} for m in methods}
    paper_grid: dict[str, dict[float, float]] = {m: {} for m in methods}
    for r in ratios:
        cells = []
        for m in methods:
            row = ours[(ours["method"] == m) & np.isclose(ours["noise_ratio"], r)]
            ed = float(row["ed_mean"].iloc[0]) if len(row) else np.nan
            sd = float(row["ed_sd"].iloc[0]) if len(row) else np.nan
            ours_grid[m][r] = ed
            pv = p1[(p1["method"] == paper_method.get(m, m)) & np.isclose(p1["noise_ratio"], r)]["paper_value"].astype(float)
            pval = float(pv.iloc[0]) if len(pv) else np.nan
            paper_grid[m][r] = pval
            sd_text = f" ± {sd:.3f}" if sd > 0 else ""
            cells.append(f"{_fmt(ed)}{sd_text} ({_fmt(pval)}, {_signed(ed - pval)})")
        lines.append(f"| {r:g} | " + " | ".join(cells) + " |")

    def derived(label: str, fn) -> str:
        cells = []
        for m in methods:
            o, p = fn(ours_grid[m]), fn(paper_grid[m])
            cells.append(f"{_fmt(o)} ({_fmt(p)}, {_signed(o - p)})")
        return f"| {label} | " + " | ".join(cells) + " |"

    def max_min(grid: dict[float, float]) -> float:
        vals = [v for v in grid.values() if not np.isnan(v)]
        return max(vals) - min(vals) if vals else np.nan

    def degradation(grid: dict[float, float]) -> float:
        if 0 not in grid or not grid:
            return np.nan
        last = grid[max(grid)]
        return 100 * (grid[0] - last) / grid[0] if grid[0] else np.nan

    lines.append(derived("Max-Min", max_min))
    lines.append(derived("% degradation (r=0 to max r)", degradation))
    return head + "\n".join(lines) + "\n"


def sweep_markdown(ours: pd.DataFrame, paper: pd.DataFrame, table_no: int, parameters: list[str]) -> str:
    """Tables 2-4: ED by parameter value, original (r=0) and noisy (r=0.5), paper beside ours."""
    pt = paper[paper["table"] == str(table_no)]
    ratios = sorted(set(ours["noise_ratio"]))
    out = []
    for param in parameters:
        sub = ours[ours["parameter"] == param]
        if sub.empty:
            continue
        head = f"| {param} | " + " | ".join(f"r = {r:g}: ours ± sd (paper, diff)" for r in ratios) + " |\n"
        head += "|---|" + "---|" * len(ratios) + "\n"
        rows = []
        for value in sorted(set(sub["value"])):
            cells = []
            for r in ratios:
                row = sub[np.isclose(sub["value"], value) & np.isclose(sub["noise_ratio"], r)]
                ed = float(row["ed_mean"].iloc[0]) if len(row) else np.nan
                sd = float(row["ed_sd"].iloc[0]) if len(row) else np.nan
                pv = pt[(pt["parameter"] == param) & np.isclose(pt["value"].astype(float), value) & np.isclose(pt["noise_ratio"], r)]["paper_value"].astype(float)
                pval = float(pv.iloc[0]) if len(pv) else np.nan
                sd_text = f" ± {sd:.4f}" if sd > 0 else ""
                cells.append(f"{_fmt(ed, 4)}{sd_text} ({_fmt(pval, 4)}, {_signed(ed - pval, 4)})")
            rows.append(f"| {value:g} | " + " | ".join(cells) + " |")
        out.append(head + "\n".join(rows) + "\n")
    return "\n".join(out)


def crowd_result_files(tables: Sequence[str | Path], cv_tables: Sequence[str | Path] = ()
                       ) -> dict[str, dict[str, str | Path]]:
    """{dataset: {table name: path}} from results/crowd/<dataset>/<table>.tsv paths."""
    out: dict[str, dict[str, str | Path]] = {}
    for path in list(tables) + [p for p in cv_tables]:
        path = Path(path)
        out.setdefault(path.parent.name, {})[path.stem] = path
    return out


def write_reproduction(
    ed_tables: Mapping[str, str | Path],
    sweep_tables: Mapping[str, str | Path],
    datasets: Mapping[str, Mapping[str, Any]],
    out_path: str | Path,
    orderings_tables: Mapping[str, str | Path] | None = None,
    methods: Mapping[str, Mapping[str, Any]] | None = None,
    consensus_tables: Sequence[str | Path] = (),
    graded_results: Mapping[str, Mapping[str, str | Path]] | None = None,
    graded_datasets: Mapping[str, Mapping[str, Any]] | None = None,
    graded_methods: Mapping[str, Any] | None = None,
    crowd_results: Mapping[str, Mapping[str, str | Path]] | None = None,
    crowd_datasets: Mapping[str, Mapping[str, Any]] | None = None,
    crowd_methods: Mapping[str, Any] | None = None,
    crowd_ks: Sequence[int] = (3, 5, 7, 9, 10),
    crowd_ablation: Sequence[Sequence[str]] = (),
) -> None:
    """Write REPRODUCTION.md (atomically)."""
    paper = paper_values("kim2010")
    parts = [
        "# Reproduction report\n",
        "Generated by the pipeline (`snakemake`); every value under 'ours' was computed by this run. "
        "Paper values come from `src/manyjudges/resources/paper_values.tsv`, which cites the table of each.\n",
    ]
    if ed_tables:
        parts += _orderings_parts(ed_tables, sweep_tables, datasets, orderings_tables, methods, paper)
    if consensus_tables:
        parts.append(consensus_markdown(consensus_tables, datasets))
    if graded_results:
        from .graded.report import graded_markdown

        parts.append(graded_markdown(graded_results, graded_datasets or {}, paper_values("wilbur2014"), graded_methods))
    if crowd_results:
        from .crowd.report import crowd_markdown

        parts.append(crowd_markdown(crowd_results, crowd_datasets or {}, crowd_methods or {}, paper_values("niu2015"),
                                    list(crowd_ks), [list(p) for p in crowd_ablation]))
    out_path = Path(out_path)
    tmp = out_path.with_name(out_path.name + ".tmp")
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text("\n".join(parts))
    tmp.replace(out_path)


def _orderings_parts(ed_tables, sweep_tables, datasets, orderings_tables, methods, paper) -> list[str]:
    parts = [
        f"## {PAPER}: evaluating an ordered list against many gold orderings\n",
        "Cells read `ours ± sd over noise replicates (paper, ours - paper)`.\n",
        "The paper's data (Barzilay et al. sentence orderings: 10 sets, about 10 assessors each) is not public. "
        "Simulated panels are shaped and calibrated like it (mean pairwise Kendall tau 0.45); real PrefLib panels "
        "(figure skating, breakfast, MTurk dots and puzzles) are far larger and agree differently, so only the "
        "ranking of methods and the trends are comparable, not the values.\n",
    ]
    methods = dict(methods or {})
    paper_method = {name: (entry or {}).get("method", name) for name, entry in methods.items()}
    notes = [
        f"- `{name}`: {entry['description']}" + (f" (compared with the paper's `{paper_method[name]}`)" if paper_method[name] != name else "")
        for name, entry in methods.items()
        if entry and entry.get("description")
    ]
    if notes:
        parts.append("Configured methods beyond the paper's seven:\n\n" + "\n".join(notes) + "\n")
    for name in ed_tables:
        spec = datasets.get(name, {})
        kind = "**simulated**" if spec.get("source") == "simulate" else "real public data"
        parts.append(f"### Dataset `{name}` ({kind})\n")
        if spec.get("description"):
            parts.append(f"{spec['description']}.\n")
        if orderings_tables and name in orderings_tables:
            parts.append(f"Data used: {dataset_summary(read_orderings(orderings_tables[name]))}.\n")
        ed = pd.read_csv(ed_tables[name], sep="\t")
        parts.append(f"#### Table 1: ED by method and noise ratio (`results/orderings/{name}/ed_by_noise.tsv`)\n")
        reps = int(ed.loc[ed['noise_ratio'] > 0, 'replicates'].max()) if (ed['noise_ratio'] > 0).any() else 1
        parts.append(f"Noise: round(r n) random orderings added to each set's gold orderings; {reps} replicates per r > 0 (the paper used one draw).\n")
        parts.append(table1_markdown(ed, paper, paper_method))
        if name in sweep_tables:
            sweep = pd.read_csv(sweep_tables[name], sep="\t")
            for no, params, title in [
                (2, ["w_len", "w_sup"], "Table 2: FreSPA ED with different wLen and wSup"),
                (3, ["max_len_ratio", "min_len_ratio"], "Table 3: FreSPA ED with different maxLen/k (minLen = 2) and minLen/k (maxLen = k)"),
                (4, ["min_sup"], "Table 4: FreSPA ED with different minSup"),
            ]:
                text = sweep_markdown(sweep, paper, no, params)
                if text:
                    parts.append(f"#### {title}\n")
                    parts.append(text)
    return parts


def consensus_markdown(paths: Sequence[str | Path], datasets: Mapping[str, Mapping[str, Any]]) -> str:
    """The consensus-measure section: reference numbers beside ours, aggregators, sensitivity."""
    ref = paper_values("lin2017")
    parts = [
        "## Lin, Li, Guo (arXiv 1704.08464): consensus measure of a set of rankings\n",
        "The seed's copy lost its formulas; the measure follows METHODS.md s.2 and the authors' released code. "
        "Reference values are that code's output on the authors' own data (first ranking as reference).\n",
    ]
    for path in paths:
        path = Path(path)
        table = pd.read_csv(path, sep="\t", dtype={"kappa_by_length": str})
        dataset = path.parent.name
        if path.name == "consensus.tsv":
            parts.append(f"### Google vs Bing: `{dataset}` (real data; `results/consensus/{dataset}/consensus.tsv`)\n")
            parts.append("| list set | lambda | gamma | kappa ours (reference, diff) | kappa_l ours (reference) | LCS length ours (reference) |\n|---|---|---|---|---|---|")
            for _, row in table.iterrows():
                r = ref[(ref["list_set"] == row["list_set"]) & np.isclose(ref["lambda"], row["lambda"]) & np.isclose(ref["gamma"], row["gamma"])]
                kap = r[r["statistic"] == "kappa"]["paper_value"]
                lengths = r[r["statistic"] == "kappa_by_length"]["paper_value"]
                lcs = r[r["statistic"] == "lcs_length"]["paper_value"]
                kap_text = f"{row['kappa']:.4f}" + (f" ({float(kap.iloc[0]):g}, {row['kappa'] - float(kap.iloc[0]):+.4f})" if len(kap) else "")
                len_text = str(row["kappa_by_length"]) + (f" ({lengths.iloc[0]}{', same' if str(row['kappa_by_length']) == lengths.iloc[0] else ', DIFFERENT'})" if len(lengths) else "")
                lcs_text = str(row["lcs_length"]) + (f" ({lcs.iloc[0]})" if len(lcs) else "")
                parts.append(f"| {row['list_set']} | {row['lambda']:g} | {row['gamma']:g} | {kap_text} | {len_text} | {lcs_text} |")
            parts.append("")
        elif path.name == "aggregators.tsv":
            spec = datasets.get(dataset, {})
            kind = "**simulated**" if spec.get("source") == "simulate" else "real data"
            summary = summarise_aggregators(table)
            parts.append(f"### Rank aggregators judged by consensus: `{dataset}` ({kind}; `results/consensus/{dataset}/aggregators.tsv`)\n")
            parts.append(
                "Each set's inputs are aggregated; the aggregate (cut to the inputs' length) is compared with each input by "
                "log2(1 + kappa({aggregate, input})) / log2(1 + kappa({aggregate})) (1 = the input holds the aggregate's order). "
                "The paper has no table for this: ours only, best first.\n"
            )
            parts.append("| aggregator | consensus with inputs, mean ± sd over sets | mean LCS length of aggregate + all inputs | sets |\n|---|---|---|---|")
            for _, row in summary.iterrows():
                parts.append(f"| {row['aggregator']} | {row['pairwise_mean']:.4f} ± {row['pairwise_sd']:.4f} | {row['lcs_mean']:.2f} | {int(row['sets'])} |")
            parts.append("")
        elif path.name == "sensitivity.tsv":
            parts.append("### Sensitivity to perturbing one list (simulated; `results/consensus/sensitivity/sensitivity.tsv`)\n")
            parts.append(
                "One of the otherwise identical lists is perturbed; cells are log kappa relative to the unperturbed set "
                "(mean over replicates for random adjacent swaps).\n"
            )
            grid = list(dict.fromkeys(zip(table["lambda"], table["gamma"])))
            for kind in dict.fromkeys(table["kind"]):
                sub = table[table["kind"] == kind]
                parts.append(f"{kind.replace('_', ' ')}:\n")
                parts.append("| step | " + " | ".join(f"lambda={l:g}, gamma={g:g}" for l, g in grid) + " |\n|---|" + "---|" * len(grid))
                for step in sorted(set(sub["step"])):
                    cells = []
                    for lam, gam in grid:
                        v = sub[(sub["step"] == step) & np.isclose(sub["lambda"], lam) & np.isclose(sub["gamma"], gam)]["log_kappa_ratio"]
                        cells.append(f"{float(v.iloc[0]):.4f}" if len(v) else "n/a")
                    parts.append(f"| {step} | " + " | ".join(cells) + " |")
                parts.append("")
    return "\n".join(parts) + "\n"
