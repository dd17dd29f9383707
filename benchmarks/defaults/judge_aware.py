"""Judge-aware aggregation of LLM-judge verdicts against a reference, per panel, beside its peers.

    python -m benchmarks.defaults.judge_aware [--mirror DIR] [--out benchmarks/runs]

Writes ``<out>/judge_aware.tsv`` (every panel x method x setting), ``<out>/judge_aware_lopo.md``
(the held-out table) and prints the tables.

Protocol. Panels: PRD vicuna80 (the five LLM judges, each question's 10 model pairs in both orders;
reference: the human votes), PandaLM (the two LLM judges ``gpt-3.5-turbo`` and ``pandalm-7b``, one
order; reference: annotator1-3), both read with ``verdicts_of_source`` from the pinned files in the
mirror (without a mirror only the simulated panels run), and three simulated panels with known
truth (``simulate_judge_panel``: 6 models with log-strengths 1.0, 0.6, 0.2, -0.2, -0.6, -1.0, 60
prompts x 15 pairs, both orders, 5% of the verdicts turned into ties): ``sim_position`` (five
independent judges, (eta, gamma) = (0.85, 1.5), (0.8, -1.0), (0.75, 0.5), (0.7, 0.0),
(0.65, 2.0); seed 1), ``sim_copies`` (two good judges (0.85, 0.3), (0.8, -0.3) and a weak biased one
(0.7, 1.0) with three copies that repeat its verdict with probability 0.9; seed 2), ``sim_families``
(judges (0.8, 0.8) with two copies and (0.75, -0.8) with one, copy rate 0.8, and one independent
(0.8, 0.0); seed 3). The simulation draws from the unit model of ``JudgeAwareVerdicts``.

The unit is (prompt, unordered model pair). Its reference class is the majority of the reference's
votes on it (canonical class: model_1 wins, model_2 wins, tie); units whose top class is a tie or
is shared by two classes are excluded (for the simulated panels the true winner; no ties). Each
method gives every unit a probability that model_1 wins; it names model_1 above 1/2, model_2 below,
and a unit at exactly 1/2 scores half a hit. Accuracy = hits / units with a reference class. Methods:
``majority`` (every verdict of every judge one vote, a tie half a vote each way: p = the share of
votes for model_1), ``best_judge`` (the same share over one judge's verdicts, for the judge with
the best accuracy on this panel: an oracle, chosen with the reference), ``crowd_bt`` (the
leaderboard's Crowd-BT, no order terms, default parameters, fitted on the panel's verdicts; p = the
posterior of model_1 under its scores and etas, ``unit_posteriors`` with gamma = 0),
``judge_aware`` (``JudgeAwareVerdicts(position=True, clusters=None, prior=..., reg=...)``) and
``judge_aware_clusters`` (the same with ``clusters="auto"`` at ``cluster_threshold``), and
``judge_aware_any`` (either of the two, clusters or not part of the setting). Settings: prior in
(strengths, flat) x reg in (0.01, 0.1, 1.0), and for the clustered one also threshold in
(0.3, 0.5, 0.7). Each panel's reported setting is chosen leave-one-panel-out: the setting with the
best mean accuracy over the other four panels (the first in grid order on a tie); the panel's own
accuracy never enters its choice; the setting chosen on all five panels is printed too (the
library's defaults). Leaderboards: the root mean squared difference of each leaderboard's
log-strengths from the reference's, both centred to mean 0 (the reference: the ``bradley_terry``
leaderboard of the reference votes; the true strengths when simulated), and Kendall's tau of the
two, on the five panels and on ``sim_board_order``, drawn from the leaderboard's own model (each
verdict a Bradley-Terry contest with the first answer's log-strength raised by gamma_j, reversed
with probability 1 - eta_j; the five judges of ``sim_position``; each pair shown in one order,
fixed by a coin per pair, on every prompt; 60 prompts, 5% ties; seed 4); ``crowd_bt`` (default
parameters) and ``judge_aware`` with clusters in (none, auto at 0.5) x gamma_reg in (0.01, 0.1,
1.0), the latter chosen leave-one-panel-out by RMSE over the six panels, the same way. Also
printed: the judges' fitted skill (eta), position_bias (gamma), cluster and weight under the default
parameters.

Sparse panels (``--part sparse``, run first by default). 12 models with log-strengths evenly spaced
from 1.1 to -1.1; every panel drawn by ``simulate_judge_panel`` (5% ties). ``sparse_<seed>``: 120
independent judges (eta uniform in (0.6, 0.9), gamma normal with sd 0.5, from the seed) on 10
prompts x 66 pairs; each unit keeps the verdicts (both orders) of 5 of the 120 judges, drawn per
unit, so that two judges share about one unit. ``cliques_<seed>``: four independent judges
(0.8, 0.3), (0.8, -0.3), (0.75, 0.0), (0.75, 0.5) and two cliques, each a weak judge (0.62, gamma
1.0 or -1.0) with three copies of it at copy rate 0.9, every judge on every unit of 4 prompts;
``smallcliques_<seed>`` the same on 1 prompt. Panel numbers (the seed of each) 21, 22, 23, 24. On each panel: the
``bradley_terry`` leaderboard and the ``judge_aware`` leaderboard (defaults) at every prior_units m0
in (0, 5, 20, 50, 100); scored by Spearman's correlation of the scores with the true strengths and
by the share of the judges in the largest cluster (0 without a cluster of two or more). m0 is chosen
leave-one-panel-out: on the other eleven panels, the m0 with the best mean Spearman among those
whose largest cluster holds at most 5% of the judges on every sparse panel (all when none does),
ties to the smaller mean cluster share, then the smaller m0; the held-out panel's own numbers never
enter its choice. Also printed: the m0 chosen on all twelve panels (the library's default), and,
with a mirror, llmfao's crowd verdicts (``crowd-comparisons.csv`` read by
``verdicts_from_llmfao``): the judges in clusters under the defaults and at m0 = 0, and the top 5
of ``judge_aware`` and ``bradley_terry``.

Speed (``--part speed``, with a mirror): llmfao's crowd verdicts written as a verdicts table, then
``python -m manyjudges arena leaderboard <table> --method judge_aware --bootstrap N`` (N =
``--bootstrap``, default 1000) run once in a new process with ``OPENBLAS_NUM_THREADS=1`` and
``PYTHONPATH`` = ``--src``; printed: its wall-clock seconds and its CPU seconds (user + system,
``getrusage`` of the children).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau, spearmanr

from manyjudges.arena import Leaderboard
from manyjudges.arena.judges.judge_aware_verdicts import JudgeAwareVerdicts, UnitRows, _unit_rows, unit_posteriors
from manyjudges.arena.judges.measures import judge_measures
from manyjudges.arena.simulate_judges import SimulatedJudge, simulate_judge_panel
from manyjudges.arena.verdict_codes import code_verdicts
from manyjudges.io.sources.llmfao import verdicts_from_llmfao
from manyjudges.io.sources.verdict_sources import verdicts_of_source
from manyjudges.pipeline.download import _mirror_path, _pinned_files

REPO = Path(__file__).resolve().parents[2]
STRENGTHS = {"m1": 1.0, "m2": 0.6, "m3": 0.2, "m4": -0.2, "m5": -0.6, "m6": -1.0}
PRIORS = ("strengths", "flat")
REGS = (0.01, 0.1, 1.0)
THRESHOLDS = (0.3, 0.5, 0.7)
GAMMA_REGS = (0.01, 0.1, 1.0)
J = SimulatedJudge
SIMULATED = {
    "sim_position": ([J("j1", 0.85, 1.5), J("j2", 0.8, -1.0), J("j3", 0.75, 0.5), J("j4", 0.7, 0.0),
                      J("j5", 0.65, 2.0)], 1),
    "sim_copies": ([J("good1", 0.85, 0.3), J("good2", 0.8, -0.3), J("weak", 0.7, 1.0),
                    J("weak-c1", 0.7, 1.0, "weak", 0.9), J("weak-c2", 0.7, 1.0, "weak", 0.9),
                    J("weak-c3", 0.7, 1.0, "weak", 0.9)], 2),
    "sim_families": ([J("a", 0.8, 0.8), J("a-c1", 0.8, 0.8, "a", 0.8), J("a-c2", 0.8, 0.8, "a", 0.8),
                      J("b", 0.75, -0.8), J("b-c1", 0.75, -0.8, "b", 0.8), J("c", 0.8, 0.0)], 3),
}


def verdict_level_panel(judges: list[SimulatedJudge], n_prompts: int, seed: int, tie_rate: float) -> pd.DataFrame:
    """The leaderboard's own model (``judge_aware``): each verdict a Bradley-Terry contest with the first answer's
    log-strength raised by gamma_j, reported with probability eta_j, else reversed; each pair's shown order fixed
    by one coin per pair, every prompt every pair, every judge once."""
    rng = np.random.default_rng(seed)
    names = sorted(STRENGTHS)
    s = np.array([STRENGTHS[m] for m in names])
    pairs = np.array([(i, k) for i in range(len(names)) for k in range(i + 1, len(names))])
    flip = rng.random(len(pairs)) < 0.5
    first = np.tile(np.where(flip, pairs[:, 1], pairs[:, 0]), n_prompts)
    second = np.tile(np.where(flip, pairs[:, 0], pairs[:, 1]), n_prompts)
    prompt = np.repeat(np.arange(n_prompts), len(pairs)).astype(str)
    parts = []
    for judge in judges:
        bt = rng.random(len(first)) < 1.0 / (1.0 + np.exp(-(s[first] - s[second] + judge.gamma)))
        named_first = np.where(rng.random(len(first)) < judge.eta, bt, ~bt)
        winner = np.where(rng.random(len(first)) < tie_rate, "tie", np.where(named_first, "model_a", "model_b"))
        parts.append(pd.DataFrame({"prompt": prompt, "judge": judge.name, "model_a": np.asarray(names)[first],
                                   "model_b": np.asarray(names)[second], "winner": winner}))
    return pd.concat(parts, ignore_index=True)


def real_panels(mirror: Path) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """{name: (judges' verdicts, reference votes)} of PRD vicuna80 and PandaLM."""
    out = {}
    prd = verdicts_of_source("prd", [_mirror_path(p, mirror) for p in _pinned_files("prd")["repo_path"]])
    human = prd["judge"].str.startswith("human-")
    out["prd"] = (prd[~human].reset_index(drop=True), prd[human].reset_index(drop=True))
    panda = verdicts_of_source("pandalm", [_mirror_path(p, mirror) for p in _pinned_files("pandalm")["repo_path"]])
    annotator = panda["judge"].str.startswith("annotator")
    out["pandalm"] = (panda[~annotator].reset_index(drop=True), panda[annotator].reset_index(drop=True))
    return out


def reference_classes(rows: UnitRows, reference: pd.DataFrame, truth: pd.DataFrame | None) -> np.ndarray:
    """Per unit of ``rows``: 1 model_1, 0 model_2, -1 no decisive reference (module docstring)."""
    key = pd.MultiIndex.from_frame(rows.units[["prompt", "model_1", "model_2"]])
    if truth is not None:
        t = truth.set_index(["prompt", "model_1", "model_2"])["winner"].reindex(key)
        return np.where(t.to_numpy() == rows.units["model_1"].to_numpy(), 1, 0)
    lo = np.minimum(reference["model_a"], reference["model_b"])
    hi = np.maximum(reference["model_a"], reference["model_b"])
    won = np.where(reference["winner"] == "model_a", reference["model_a"],
                   np.where(reference["winner"] == "model_b", reference["model_b"], "tie"))
    cls = np.where(won == lo, "one", np.where(won == hi, "two", "tie"))
    votes = pd.crosstab([reference["prompt"], lo, hi], cls).reindex(key).fillna(0)
    votes = votes.reindex(columns=["one", "two", "tie"], fill_value=0).to_numpy()
    top = votes.max(axis=1)
    unique_top = (votes == top[:, None]).sum(axis=1) == 1
    out = np.full(len(key), -1)
    out[unique_top & (votes[:, 0] == top) & (top > 0)] = 1
    out[unique_top & (votes[:, 1] == top) & (top > 0)] = 0
    return out


def accuracy(p: np.ndarray, ref: np.ndarray) -> float:
    keep = ref >= 0
    hit = np.where(p[keep] > 0.5, ref[keep] == 1, np.where(p[keep] < 0.5, ref[keep] == 0, 0.5))
    return float(np.mean(hit))


def vote_share(rows: UnitRows, judge: int | None = None) -> np.ndarray:
    mask = np.ones(len(rows.y), dtype=bool) if judge is None else rows.judge == judge
    n = len(rows.units)
    yes = np.bincount(rows.unit[mask], weights=rows.count[mask] * (rows.y[mask] > 0), minlength=n)
    all_ = np.bincount(rows.unit[mask], weights=rows.count[mask], minlength=n)
    with np.errstate(invalid="ignore"):
        return np.where(all_ > 0, yes / np.maximum(all_, 1e-300), 0.5)


def crowd_bt_posterior(verdicts: pd.DataFrame, rows: UnitRows) -> np.ndarray:
    """P(model_1 wins) per unit under the leaderboard Crowd-BT's scores and etas (gamma = 0)."""
    lb = Leaderboard("crowd_bt").fit(verdicts)
    eta = pd.Series(lb.fit_.extra, index=code_verdicts(verdicts).judges)  # the leaderboard's judges, natural order
    scores = lb.scores_.reindex(rows.models).to_numpy()
    return unit_posteriors(rows, eta.reindex(rows.judges).to_numpy(), None, scores)


def panel_rows(name: str, verdicts: pd.DataFrame, reference: pd.DataFrame | None, truth: pd.DataFrame | None
               ) -> tuple[list[dict], dict]:
    rows = _unit_rows(verdicts)
    ref = reference_classes(rows, reference if reference is not None else verdicts.iloc[:0], truth)
    out, seconds = [], {}
    start = time.perf_counter()
    out.append({"panel": name, "method": "majority", "setting": "-", "accuracy": accuracy(vote_share(rows), ref)})
    seconds["majority"] = time.perf_counter() - start
    singles = {str(j): accuracy(vote_share(rows, k), ref) for k, j in enumerate(rows.judges)}
    best = max(singles, key=lambda j: singles[j])
    out.append({"panel": name, "method": "best_judge", "setting": best, "accuracy": singles[best]})
    start = time.perf_counter()
    out.append({"panel": name, "method": "crowd_bt", "setting": "-",
                "accuracy": accuracy(crowd_bt_posterior(verdicts, rows), ref)})
    seconds["crowd_bt"] = time.perf_counter() - start
    for prior, reg in product(PRIORS, REGS):
        start = time.perf_counter()
        fit = JudgeAwareVerdicts(prior=prior, reg=reg, clusters=None).fit(verdicts)
        if (prior, reg) == ("strengths", 0.01):
            seconds["judge_aware"] = time.perf_counter() - start
        out.append({"panel": name, "method": "judge_aware", "setting": f"{prior}|{reg}",
                    "accuracy": accuracy(fit.units_["p_model_1"].to_numpy(), ref)})
        for threshold in THRESHOLDS:
            start = time.perf_counter()
            fit = JudgeAwareVerdicts(prior=prior, reg=reg, clusters="auto", cluster_threshold=threshold).fit(verdicts)
            if (prior, reg, threshold) == ("strengths", 0.01, 0.5):
                seconds["judge_aware_clusters"] = time.perf_counter() - start
            out.append({"panel": name, "method": "judge_aware_clusters", "setting": f"{prior}|{reg}|{threshold}",
                        "accuracy": accuracy(fit.units_["p_model_1"].to_numpy(), ref)})
    # either variant, clusters part of the setting: what the library's default should be
    out += [{**r, "method": "judge_aware_any", "setting": ("none|" if r["method"] == "judge_aware" else "auto|")
             + r["setting"]} for r in out if r["method"] in ("judge_aware", "judge_aware_clusters")]
    info = {"units": len(rows.units), "reference_units": int((ref >= 0).sum()), "seconds": seconds,
            "singles": singles}
    return out, info


def leave_one_panel_out(table: pd.DataFrame, score: str = "accuracy", best: str = "max") -> pd.DataFrame:
    """Per panel and method, the ``score`` of the setting with the best (``max`` or ``min``) mean over the
    other panels."""
    rows = []
    panels = list(dict.fromkeys(table["panel"]))
    for panel in panels:
        for method in dict.fromkeys(table["method"]):
            part = table[table["method"] == method]
            if method in ("judge_aware", "judge_aware_clusters", "judge_aware_any"):
                others = part[part["panel"] != panel].groupby("setting", sort=False)[score].mean()
                setting = others.idxmax() if best == "max" else others.idxmin()  # the first best in grid order
            else:
                setting = part.loc[part["panel"] == panel, "setting"].iloc[0]
            acc = part.loc[(part["panel"] == panel) & (part["setting"] == setting), score].iloc[0]
            rows.append({"panel": panel, "method": method, "setting": setting, score: acc})
    return pd.DataFrame(rows)


def leaderboard_rows(name: str, verdicts: pd.DataFrame, reference: pd.DataFrame | None) -> list[dict]:
    """Per leaderboard setting: Kendall tau and RMSE of its centred scores against the reference's."""
    if reference is not None:
        target = Leaderboard("bradley_terry").fit(reference).scores_
    else:
        target = pd.Series(STRENGTHS) - np.mean(list(STRENGTHS.values()))
    settings = [("crowd_bt", "crowd_bt", "-", {})]
    settings += [("judge_aware", "judge_aware", f"{clusters}|{gamma_reg}",
                  {"gamma_reg": gamma_reg, "clusters": None if clusters == "none" else "auto"})
                 for clusters, gamma_reg in product(("none", "auto"), GAMMA_REGS)]
    out = []
    for label, method, setting, params in settings:
        scores = Leaderboard(method, params).fit(verdicts).scores_.reindex(target.index)
        out.append({"panel": name, "method": label, "setting": setting,
                    "tau": float(kendalltau(scores, target).statistic),
                    "rmse": float(np.sqrt(np.mean((scores - scores.mean() - target + target.mean()) ** 2)))})
    return out


def judge_table(name: str, verdicts: pd.DataFrame) -> pd.DataFrame:
    fit = JudgeAwareVerdicts().fit(verdicts)
    return fit.judges_.assign(panel=name)


MANY = {f"m{i + 1:02d}": float(v) for i, v in enumerate(np.linspace(1.1, -1.1, 12))}
PRIOR_UNITS_GRID = (0.0, 5.0, 20.0, 50.0, 100.0)
LLMFAO = "dustalov/llmfao/9e224e94a40129fd6e1e1529b962307e84af40da/crowd-comparisons.csv"


def sparse_panel(seed: int, n_judges: int = 120, per_unit: int = 5, n_prompts: int = 10
                 ) -> tuple[pd.DataFrame, pd.Series]:
    """Independent judges, ``per_unit`` of them (drawn per unit) judging each unit in both orders."""
    rng = np.random.default_rng(seed)
    judges = [J(f"j{k:03d}", float(rng.uniform(0.6, 0.9)), float(rng.normal(0.0, 0.5))) for k in range(n_judges)]
    verdicts, _ = simulate_judge_panel(MANY, judges, n_prompts=n_prompts, seed=seed, tie_rate=0.05)
    lo = np.minimum(verdicts["model_a"], verdicts["model_b"])
    hi = np.maximum(verdicts["model_a"], verdicts["model_b"])
    unit = pd.factorize(verdicts["prompt"] + "|" + lo + "|" + hi)[0]
    judge = pd.factorize(verdicts["judge"], sort=True)[0]
    chosen = np.argsort(rng.random((unit.max() + 1, n_judges)), axis=1)[:, :per_unit]
    keep = np.zeros((unit.max() + 1, n_judges), dtype=bool)
    np.put_along_axis(keep, chosen, True, axis=1)
    return verdicts[keep[unit, judge]].reset_index(drop=True), pd.Series(MANY)


def clique_panel(seed: int, n_prompts: int = 4) -> tuple[pd.DataFrame, pd.Series]:  # 264 units; 1 prompt: 66
    """Four independent judges and two cliques: a weak position-biased judge and three copies of it (rate 0.9)."""
    judges = [J("good1", 0.8, 0.3), J("good2", 0.8, -0.3), J("good3", 0.75, 0.0), J("good4", 0.75, 0.5)]
    for name, gamma in (("weakA", 1.0), ("weakB", -1.0)):
        judges.append(J(name, 0.62, gamma))
        judges += [J(f"{name}-c{k}", 0.62, gamma, name, 0.9) for k in (1, 2, 3)]
    verdicts, _ = simulate_judge_panel(MANY, judges, n_prompts=n_prompts, seed=seed, tie_rate=0.05)
    return verdicts, pd.Series(MANY)


def spearman(scores: pd.Series, truth: pd.Series) -> float:
    return float(spearmanr(scores.reindex(truth.index), truth).statistic)


def sparse_rows(name: str, verdicts: pd.DataFrame, truth: pd.Series) -> list[dict]:
    """Per m0 of :data:`PRIOR_UNITS_GRID`: judge_aware's Spearman to the truth and its largest cluster's share;
    bradley_terry's Spearman (setting ``-``)."""
    out = [{"panel": name, "method": "bradley_terry", "setting": "-",
            "spearman": spearman(Leaderboard("bradley_terry").fit(verdicts).scores_, truth), "cluster_share": 0.0}]
    for m0 in PRIOR_UNITS_GRID:
        board = Leaderboard("judge_aware", {"prior_units": m0}).fit(verdicts)
        size = board.judges_["cluster_size"].to_numpy()
        out.append({"panel": name, "method": "judge_aware", "setting": f"{m0:g}",
                    "spearman": spearman(board.scores_, truth),
                    "cluster_share": float(size.max() / len(size)) if (size > 1).any() else 0.0})
    return out


def best_prior_units(rows: pd.DataFrame) -> str:
    """The m0 setting with the best mean Spearman over ``rows`` among those whose largest cluster holds at most 5% of
    the judges on every sparse panel of ``rows`` (all settings when none does); ties: the smaller mean cluster
    share, then grid order (the smaller m0)."""
    sparse = rows[rows["panel"].str.startswith("sparse")]
    allowed = sparse.groupby("setting", sort=False)["cluster_share"].max() <= 0.05
    means = rows.groupby("setting", sort=False)[["spearman", "cluster_share"]].mean()
    if allowed.any():
        means = means[allowed.reindex(means.index, fill_value=True).to_numpy()]
    order = np.lexsort((np.arange(len(means)), means["cluster_share"].to_numpy().round(9),
                        -means["spearman"].to_numpy().round(9)))
    return str(means.index[order[0]])


def lopo_prior_units(table: pd.DataFrame) -> pd.DataFrame:
    """Per panel, judge_aware's row at the m0 with the best mean Spearman over the other panels (ties: the
    smaller mean cluster share, then grid order)."""
    rows = []
    ours = table[table["method"] == "judge_aware"]
    for panel in dict.fromkeys(table["panel"]):
        best = best_prior_units(ours[ours["panel"] != panel])
        held = ours[(ours["panel"] == panel) & (ours["setting"] == best)].iloc[0]
        bt = table[(table["panel"] == panel) & (table["method"] == "bradley_terry")].iloc[0]
        rows.append({"panel": panel, "m0 (chosen on the others)": best, "judge_aware spearman": held["spearman"],
                     "bradley_terry spearman": bt["spearman"], "largest cluster share": held["cluster_share"]})
    return pd.DataFrame(rows)


def llmfao_report(mirror: Path) -> list[str]:
    """judge_aware (library defaults) against bradley_terry on llmfao's crowd verdicts: clusters and top 5."""
    verdicts = verdicts_from_llmfao([mirror / LLMFAO])
    ours = Leaderboard("judge_aware").fit(verdicts)
    bt = Leaderboard("bradley_terry").fit(verdicts)
    pairs = judge_measures(verdicts).pairs
    size = ours.judges_["cluster_size"]
    raw = Leaderboard("judge_aware", {"prior_units": 0.0}).fit(verdicts).judges_["cluster_size"]
    shared = pairs.loc[pairs["error_correlation"].notna(), "n_error_units"]
    return [f"llmfao crowd verdicts: {len(verdicts)} verdicts, {verdicts['judge'].nunique()} judges; the "
            f"{len(shared)} pairs with an error correlation share {shared.mean():.2f} units on average (median "
            f"{shared.median():g}, largest {shared.max()})",
            f"- judges in a cluster of 2 or more: {int((size > 1).sum())} (largest {int(size.max())}); without "
            f"shrinkage (m0 = 0): {int((raw > 1).sum())} (largest {int(raw.max())})",
            "- top 5 judge_aware: " + ", ".join(ours.table_["model"].head(5)),
            "- top 5 bradley_terry: " + ", ".join(bt.table_["model"].head(5))]


def sparse_main(mirror: Path | None, out: Path, numbers: tuple[int, ...] = (21, 22, 23, 24)) -> str:
    """The sparse and clique panels, m0 chosen leave-one-panel-out, and llmfao (with a mirror)."""
    rows: list[dict] = []
    for seed in numbers:
        rows += sparse_rows(f"sparse_{seed}", *sparse_panel(seed))
        rows += sparse_rows(f"cliques_{seed}", *clique_panel(seed))
        rows += sparse_rows(f"smallcliques_{seed}", *clique_panel(seed, n_prompts=1))
    table = pd.DataFrame(rows)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "judge_aware_sparse.tsv", sep="\t", index=False)
    held = lopo_prior_units(table)
    kind = held["panel"].str.split("_").str[0]
    text = ["Sparse and clique panels, judge_aware's prior_units m0 chosen leave-one-panel-out (Spearman to the "
            "true strengths):", "", held.round(4).to_markdown(index=False), "",
            "Means by kind: " + "; ".join(
                f"{k}: judge_aware {g['judge_aware spearman'].mean():.4f}, bradley_terry "
                f"{g['bradley_terry spearman'].mean():.4f}, largest cluster share "
                f"{g['largest cluster share'].max():.4f}" for k, g in held.groupby(kind, sort=False)),
            "", "Chosen on all panels: m0 = " + best_prior_units(table[table["method"] == "judge_aware"]), "",
            "Every setting:", "", table.round(4).to_markdown(index=False), ""]
    if mirror is not None:
        text += llmfao_report(mirror)
    return "\n".join(text)


def speed_main(mirror: Path, bootstrap: int, src: Path) -> str:
    """Time ``manyjudges arena leaderboard <llmfao as a verdicts table> --method judge_aware --bootstrap N``."""
    from manyjudges.io.tables.verdicts import write_verdicts

    with tempfile.TemporaryDirectory() as tmp:
        table = Path(tmp) / "llmfao.tsv"
        write_verdicts(verdicts_from_llmfao([mirror / LLMFAO]), table)
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONPATH": str(src)}
        command = [sys.executable, "-m", "manyjudges", "arena", "leaderboard", str(table), "--method", "judge_aware",
                   "--bootstrap", str(bootstrap), "-o", str(Path(tmp) / "board.tsv")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return (f"arena leaderboard --method judge_aware --bootstrap {bootstrap} on llmfao (src {src}): "
            f"{wall:.1f} s wall, {cpu:.1f} s CPU")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=os.environ.get("MANYJUDGES_MIRROR"))
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "runs")
    ap.add_argument("--part", choices=["all", "units", "sparse", "speed"], default="all",
                    help="units: the unit-level panels; sparse: the sparse and clique panels and llmfao; speed: "
                         "the judge_aware leaderboard command on llmfao, timed (needs --mirror)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="--part speed: the command's --bootstrap")
    ap.add_argument("--src", type=Path, default=REPO / "src", help="--part speed: the manyjudges source to time")
    args = ap.parse_args(argv)
    if args.part == "speed":
        print(speed_main(args.mirror, args.bootstrap, args.src))
        return
    if args.part in ("all", "sparse"):
        report = sparse_main(args.mirror, args.out)
        (args.out / "judge_aware_sparse.md").write_text(report + "\n")
        print(report, flush=True)
        if args.part == "sparse":
            return
    panels: dict[str, tuple[pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]] = {}
    if args.mirror is not None:
        for name, (verdicts, reference) in real_panels(args.mirror).items():
            panels[name] = (verdicts, reference, None)
    for name, (judges, seed) in SIMULATED.items():
        verdicts, truth = simulate_judge_panel(STRENGTHS, judges, n_prompts=60, seed=seed, tie_rate=0.05)
        panels[name] = (verdicts, None, truth)
    rows, infos, taus, judges_out = [], {}, [], []
    for name, (verdicts, reference, truth) in panels.items():
        start = time.perf_counter()
        part, info = panel_rows(name, verdicts, reference, truth)
        rows += part
        infos[name] = info
        taus += leaderboard_rows(name, verdicts, reference)
        judges_out.append(judge_table(name, verdicts))
        print(f"{name}: {len(verdicts)} verdicts, {info['units']} units, {info['reference_units']} with a decisive "
              f"reference; {time.perf_counter() - start:.1f} s", flush=True)
    board_only = verdict_level_panel(SIMULATED["sim_position"][0], n_prompts=60, seed=4, tie_rate=0.05)
    taus += leaderboard_rows("sim_board_order", board_only, None)
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    table.to_csv(args.out / "judge_aware.tsv", sep="\t", index=False)
    held = leave_one_panel_out(table)
    wide = held.pivot(index="panel", columns="method", values="accuracy").reindex(list(panels))
    wide = wide[["majority", "best_judge", "crowd_bt", "judge_aware", "judge_aware_clusters", "judge_aware_any"]]
    settings = held.pivot(index="panel", columns="method", values="setting").reindex(list(panels))
    text = ["Accuracy per (prompt, pair) against the reference, settings chosen leave-one-panel-out:", "",
            wide.round(4).to_markdown(), "", "Settings (best_judge: the oracle judge):", "",
            settings[["best_judge", "judge_aware", "judge_aware_clusters", "judge_aware_any"]].to_markdown(), "",
            "Chosen on all five panels: " + ", ".join(
                f"{m} {part.groupby('setting', sort=False)['accuracy'].mean().idxmax()}"
                for m, part in table.groupby("method", sort=False) if m.startswith("judge_aware")), "",
            "Mean over panels: " + ", ".join(f"{k} {v:.4f}" for k, v in wide.mean().items()), "",
            "Single judges' accuracy:", ""]
    text += [f"- {name}: " + ", ".join(f"{j} {a:.4f}" for j, a in info["singles"].items())
             for name, info in infos.items()]
    text += ["", "Seconds per fit (default setting):", ""]
    text += [f"- {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in info["seconds"].items())
             for name, info in infos.items()]
    boards = pd.DataFrame(taus)
    boards.to_csv(args.out / "judge_aware_leaderboards.tsv", sep="\t", index=False)
    lopo = leave_one_panel_out(boards, "rmse", "min")
    lopo = lopo.merge(boards, on=["panel", "method", "setting", "rmse"])
    text += ["", "Leaderboards against the reference ranking, RMSE of centred log-strengths and Kendall tau "
             "(judge_aware's clusters|gamma_reg chosen leave-one-panel-out by RMSE):", "",
             lopo.round(4).to_markdown(index=False), "",
             "Chosen on all six panels: judge_aware "
             + boards[boards.method == "judge_aware"].groupby("setting", sort=False)["rmse"].mean().idxmin(), "",
             "Judges under JudgeAwareVerdicts() (the defaults: clusters auto at 0.5, prior strengths, reg 0.01):", "",
             pd.concat(judges_out)[["panel", "judge", "skill", "position_bias", "cluster", "weight"]].round(3)
             .to_markdown(index=False)]
    report = "\n".join(text)
    (args.out / "judge_aware_lopo.md").write_text(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
