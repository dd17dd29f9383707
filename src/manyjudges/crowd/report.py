"""The crowd section of results/REPRODUCTION.md (Niu et al., WSDM 2015)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.crowd.experiment import metric_names
from manyjudges.io.sources import mirex2005, trec_rf10
from manyjudges.reporting.formatting import as_float, cell, comparison_data, dataset_heading, fmt
from manyjudges.reporting.paper_values import paper_lookup, paper_values
from manyjudges.reporting.scoreboard import CELL_COLUMNS
from manyjudges.reporting.section import ReportSection

__all__ = ["PAPER_SOURCES", "figure_paper_values", "report_section"]

#: key columns of the paper values (those set in every row of a table are used)
PAPER_KEY = ("spammer", "method", "metric")
_PAPER_DATASET = {"mirex2005": "mirex2005", "trec_rf10": "cs_trec2011"}
#: config sources holding the paper's own data: MIREX 2005's crowd judgments (its truth is a stand-in, see its note)
PAPER_SOURCES = ("mirex2005",)
#: metrics of the robustness CV tables (Figures 3-4)
CV_METRICS = ("P@10", "MAP", "NDCG@10", "RBP")
#: data caveats by dataset ``source``, printed only under a dataset of that source (each declared by its parser)
DATA_NOTES = {"mirex2005": mirex2005.REPORT_NOTE, "trec_rf10": trec_rf10.CROWD_REPORT_NOTE}
PAPER_NAME = "Niu, Lan, Guo, Yu, Long, Cheng, *Listwise approach for rank aggregation in crowdsourcing*, WSDM 2015"

READINGS = """Readings of details the papers leave open (each is also in the method's docstring):

- **CrowdAgg pairwise probability.** eq (6) as printed contradicts itself (the item with more wins gets
  the smaller probability). Default `margin`: p_st = 1/2 + (N_i(s) - N_i(t)) / (2 (n - 1)) when annotator
  i compared s and t, else 1/2 (docs/methods.md, crowd section). `paper_literal` implements eq (6) as printed
  (the paper config runs it as `crowdagg_ndcg_literal`). Ties ("same", equal grades) are eq (5)'s Null.
- **CrowdAgg scores.** F(j) = sum_i sum_r P_i(r_j = r) f(r), f(r) = 1/log2(r + 2) (NDCG) or
  (1 - p) p^r (RBP, p = 0.95); items sorted by F (rearrangement inequality, no assignment solver).
  Items an annotator never compared with j contribute exact Binomial(., 1/2) factors to j's rank
  distribution; the compared ones are convolved by the divide-and-conquer FFT of Algorithm 2.
- **CrowdAgg's alternation** stops when the ranking repeats; when it returns to an earlier ranking
  (a 2-cycle; a few topics) it stops at that first repeat, so results do not depend on `max_iter`.
- **Baselines' settings.** The paper gives only learning rates for BradleyTerry, MPM and Crowd-BT
  (gradient ascent); ours are penalised maximum-likelihood fits to convergence (Newton or L-BFGS-B,
  small ridges; Crowd-BT with its virtual item, fitted offline and jointly over scores and
  skills; the original is online). MPM's normaliser runs over the pairs each judge judged,
  its adherence alpha has an N(1, 1) prior. EMeloRating: Dawid-Skene EM over pair labels, then
  chess Elo (K = 32, 400) over the EM posteriors in a fixed round schedule (Bashir et al.'s
  settings are not given); its `-eq` feeds raw judgments to Elo without EM (the paper's -eq
  kept EM). GreedyOrder weights are judgment counts. Each reading is in the method's docstring.
- **Ties in the final rankings** are broken by a fixed hash of the item id, not by id order: ids
  in natural order can correlate with the grades (trec_rf10's doc ids do), which would favour
  methods with many tied scores (Borda's mean grade ties most items).
- **Robustness.** round(ratio x m) spammers per topic (m = the topic's annotators), each labelling as
  many pairs as the median annotator, drawn from the pairs the crowd judged; a random spammer flips a
  coin, a malicious one answers against the truth (coin flip on truth ties). CV = sd / mean of a
  method's curve over the ratios. The paper's CVs are listed "from top to bottom in the legend" of
  Figures 3-4, which the text does not give; we read the legend as Table 2's order without CrowdAgg_RBP.
- **Figure 2.** Skill = eq (18) pairwise accuracy of each annotator against the truth, vs each
  method's own skill estimate (CrowdAgg's eta, Crowd-BT's eta, EMeloRating's agreement with its
  EM posteriors, MPM's adherence turned into the pairwise accuracy it implies); KL(true ||
  estimated) between 10-bin histograms on [0, 1], each bin smoothed by 1e-3 so empty bins do not
  give infinity. The paper does not say how it binned or smoothed, so its KL values (1.43-2.86)
  compare only in order.
- **Robustness on a ratings dataset** would turn Borda from mean grade (ratio 0) into win share
  (spammers add preferences, not ratings); the configs sweep preference data only.
"""


def _paper_tables(paper: pd.DataFrame, source: str | None) -> dict[str, dict[tuple, float]]:
    """Return {table ('2', 'cv', 'kl'): {key: paper value}} for a dataset of config ``source``.

    The values are those of the paper dataset it stands for (:data:`_PAPER_DATASET`), keyed by the
    columns of :data:`PAPER_KEY` set in each table; empty dicts for a source with no paper counterpart.
    """
    pd_name = _PAPER_DATASET.get(source or "")
    return {t: paper_lookup(paper, t, PAPER_KEY, where={"dataset": pd_name}, complete_only=True) if pd_name else {}
            for t in ("2", "cv", "kl")}


def _cells(keys: pd.DataFrame, ours: pd.Series, lut: Mapping[tuple, float], method: pd.Series) -> pd.DataFrame:
    """Long cells: ``keys`` rows looked up in ``lut`` (NaN where absent), the key as 'name=value;...'."""
    tuples = list(keys.itertuples(index=False, name=None))
    text = [";".join(f"{c}={v}" for c, v in zip(keys.columns, t)) for t in tuples]
    return pd.DataFrame({"method": method.to_numpy(), "key": text, "ours": ours.astype(float).to_numpy(),
                         "paper_value": [lut.get(t, np.nan) for t in tuples]})


def _crowd_comparisons(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                      paper: pd.DataFrame, ks: list[int]) -> pd.DataFrame:
    """Return every cell of Table 2, the CV tables (Figures 3-4) and the mean KLs (Figure 2) this section shows.

    Long, :data:`CELL_COLUMNS`; paper values only beside a dataset standing in for one of the paper's.
    """
    frames = []
    for name, files in results.items():
        source = datasets.get(name, {}).get("source")
        data = comparison_data(source, PAPER_SOURCES)
        luts = _paper_tables(paper, source)
        metrics = pd.read_csv(files["ranking_metrics"], sep="\t")
        metrics = metrics[metrics["metric"].isin(metric_names(ks))]
        parts = [_cells(metrics[["method", "metric"]], metrics["value"], luts["2"], metrics["method"])
                 .assign(table="2")]
        if files.get("robustness_cv"):
            cv = pd.read_csv(files["robustness_cv"], sep="\t")
            cv = cv[cv["metric"].isin(CV_METRICS)]
            parts.append(_cells(cv[["spammer", "method", "metric"]], cv["cv"], luts["cv"], cv["method"])
                         .assign(table="cv"))
        kl = pd.read_csv(files["quality_kl"], sep="\t", dtype={"topic": str})
        if not kl.empty:
            mean_kl = kl.groupby("method", sort=False)["kl"].mean().reset_index()
            parts.append(_cells(mean_kl[["method"]], mean_kl["kl"], luts["kl"], mean_kl["method"]).assign(table="kl"))
        frames.append(pd.concat(parts, ignore_index=True).assign(paper="niu2015", dataset=name, data=data))
    if not frames:
        return pd.DataFrame(columns=CELL_COLUMNS)
    return pd.concat(frames, ignore_index=True)[CELL_COLUMNS]


def figure_paper_values(spec: Mapping[str, Any], paper: pd.DataFrame) -> pd.DataFrame | None:
    """Return the paper's rows for the dataset a crowd dataset of this ``spec`` stands for (:data:`_PAPER_DATASET`).

    None when it stands for none (as in the report's tables).
    """
    pd_name = _PAPER_DATASET.get(spec.get("source", ""))
    return None if pd_name is None else paper[paper["dataset"] == pd_name]


def _table2(metrics: pd.DataFrame, paper: dict[tuple, float], methods: list[str], ks: list[int]) -> str:
    names = metric_names(ks)
    values = metrics.set_index(["method", "metric"])["value"]
    lines = ["| method | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for m in methods:
        cells = [cell(values.get((m, name), np.nan), paper.get((m, name))) for name in names]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _left_out(files: Mapping[str, str | Path]) -> str:
    """Describe what the means leave out, from truth_coverage.tsv (empty without it)."""
    if "truth_coverage" not in files:
        return ""
    c = pd.read_csv(files["truth_coverage"], sep="\t").iloc[0]
    return (f"Left out of the scores: {int(c['items_without_truth'])} of {int(c['judged_items'])} judged items have "
            f"no truth grade (ranked, not scored); {int(c['topics_without_truth'])} of {int(c['topics'])} topics "
            "have none (not scored).\n")


def _significance(table: pd.DataFrame) -> str:
    if table.empty:
        return "No proposed method configured (`crowd.proposed`).\n"
    lines = ["| metric | method | best other method | mean | its mean | t | one-tailed p |",
             "|---|---|---|---|---|---|---|"]
    for r in table.itertuples(index=False):
        p_value = as_float(r.p_value)
        p = "" if np.isnan(p_value) else (f"{p_value:.3g}" + (" *" if p_value < 0.05 else ""))
        lines.append(f"| {r.metric} | {r.method} | {r.baseline} | {fmt(r.method_mean, missing='')} | "
                     f"{fmt(r.baseline_mean, missing='')} | {fmt(r.t, 2, missing='')} | {p} |")
    return "\n".join(lines) + "\n\n`*`: p < 0.05 (paired over topics, as the paper's bold marks).\n"


def _ablation(metrics: pd.DataFrame, pairs: list[list[str]]) -> str:
    values = metrics.set_index(["method", "metric"])["value"]
    show = ("P@10", "MAP", "NDCG@10", "RBP")
    lines = ["| with skill | without | " + " | ".join(show) + " |", "|---|---|" + "---|" * len(show)]
    for a, b in pairs:
        if (a, "MAP") not in values.index or (b, "MAP") not in values.index:
            continue
        cells = [f"{values[a, x]:.3f} vs {values[b, x]:.3f}" for x in show]
        lines.append(f"| {a} | {b} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _crowd_markdown(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any], paper: pd.DataFrame, ks: list[int],
                   ablation: list[list[str]] | None = None) -> str:
    """Markdown: per dataset Table 2 (ours (paper)), t-tests, KL, running times, robustness CVs."""
    parts = [f"## {PAPER_NAME}: rank aggregation in crowdsourcing\n",
             "Cells read `ours (paper)`. Paper values appear only beside a dataset that stands in for one of the "
             "paper's; its note says how far they compare.\n", READINGS]
    described = [f"- `{n}`: {e['description']}" for n, e in methods.items() if e and e.get("description")]
    if described:
        parts.append("Configured method variants:\n\n" + "\n".join(described) + "\n")
    for name, files in results.items():
        spec = datasets.get(name, {})
        parts += dataset_heading(name, spec, DATA_NOTES)
        pd_name = _PAPER_DATASET.get(spec.get("source", ""))
        luts = _paper_tables(paper, spec.get("source"))
        t2 = luts["2"]
        metrics = pd.read_csv(files["ranking_metrics"], sep="\t")
        by_topic = pd.read_csv(files["metrics_by_topic"], sep="\t", dtype={"topic": str})
        n_topics = by_topic["topic"].nunique()
        parts.append(f"Table 2{' (paper: ' + pd_name + ')' if pd_name else ''}: mean over {n_topics} topics with "
                     f"truth; relevant = grade >= {spec.get('relevant_grade', 1)}.\n")
        parts.append(_table2(metrics, t2, list(dict.fromkeys(metrics["method"])), ks))
        parts.append(_left_out(files))
        if ablation:
            parts.append("Figure 1, with vs without annotator skill (mean over topics; the paper found "
                         "skill helps every method on MIREX 2005):\n\n" + _ablation(metrics, ablation))
        parts.append("Significance (paper: bold = significantly better, one-tailed paired t-test):\n")
        parts.append(_significance(pd.read_csv(files["significance"], sep="\t")))
        kl = pd.read_csv(files["quality_kl"], sep="\t", dtype={"topic": str})
        if not kl.empty:
            paper_kl = luts["kl"]
            mean_kl = kl.groupby("method", sort=False)["kl"].mean()
            rows = [f"| {m} | {cell(v, paper_kl.get((m,)), 2)} |" for m, v in mean_kl.items()]
            parts.append("Figure 2: mean KL divergence over topics, accuracy (eq 18) histogram vs estimated "
                         "skill histogram:\n\n| method | mean KL |\n|---|---|\n" + "\n".join(rows) + "\n")
        runtime = pd.read_csv(files["runtime"], sep="\t")
        rows = [f"| {r.method} | {r.seconds:.3f} s |" for r in runtime.itertuples(index=False)]
        parts.append(f"Running time: fitting every topic of `{name}` (with or without truth), one "
                     "core (the paper's timing table is on another machine; only the ordering of methods compares):\n\n"
                     "| method | time |\n|---|---|\n" + "\n".join(rows) + "\n")
        if files.get("robustness_cv"):
            cv = pd.read_csv(files["robustness_cv"], sep="\t")
            paper_cv = luts["cv"]
            for spammer, rows_s in cv.groupby("spammer", sort=False):
                show = [m for m in CV_METRICS if m in set(rows_s["metric"])]
                table = rows_s.set_index(["method", "metric"])["cv"]
                lines = ["| method | " + " | ".join(show) + " |", "|---|" + "---|" * len(show)]
                for m in dict.fromkeys(rows_s["method"]):
                    cells = [cell(table.get((m, x), np.nan), paper_cv.get((spammer, m, x)), 4) for x in show]
                    lines.append(f"| {m} | " + " | ".join(cells) + " |")
                parts.append(f"Coefficient of variation across ratios, {spammer} spammers (Figure "
                             f"{3 if spammer == 'random' else 4}):\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def report_section(results: Mapping[str, Mapping[str, str | Path]], datasets: Mapping[str, Mapping[str, Any]],
                   methods: Mapping[str, Any] | None, ks: Sequence[int] = (3, 5, 7, 9, 10),
                   ablation: Sequence[Sequence[str]] = ()) -> ReportSection:
    """Return the crowd part of the report.

    The section (:func:`_crowd_markdown`, Table 2 at ``ks``, the ``ablation`` pairs) and its cells
    (:func:`_crowd_comparisons`) of ``results`` ({dataset: {table name: path}}, the tables of
    results/crowd/<dataset>/ by file stem), none without results; and the readings
    (:func:`manyjudges.crowd.readings._crowd_paper_readings`).
    """
    # imported here: crowd.readings builds on this module's paper keys
    from manyjudges.crowd.readings import NOTE, _crowd_paper_readings

    readings = _crowd_paper_readings(results, datasets, methods)
    if not results:
        return ReportSection("crowd", "", pd.DataFrame(columns=CELL_COLUMNS), readings, NOTE)
    niu = paper_values("niu2015")
    return ReportSection(
        "crowd",
        _crowd_markdown(results, datasets or {}, methods or {}, niu, list(ks), [list(p) for p in ablation]),
        _crowd_comparisons(results, datasets or {}, niu, list(ks)),
        readings,
        NOTE,
    )
