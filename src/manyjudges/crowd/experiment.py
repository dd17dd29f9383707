"""The crowd experiments of Niu et al. (WSDM 2015) as functions on long tables.

Aggregate every topic, score the rankings against truth (Table 2), compare skills (Figures 1-2)
and sweep spammers (Figures 3-4). Scripts call these; nothing here knows about Snakemake.
"""
from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from manyjudges.core.ir_metrics import grade_metrics, ideal_dcg, ranking_metrics
from manyjudges.core.random_streams import rng_for
from manyjudges.crowd.base import ranking_from_scores
from manyjudges.crowd.data import CrowdDataset
from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.crowd.registry import _CROWD_METHODS, make_crowd_aggregator
from manyjudges.crowd.skill import annotator_accuracy, coefficient_of_variation, skill_histogram_kl
from manyjudges.crowd.spammers import add_spammers

log = logging.getLogger(__name__)
DEFAULT_KS = (3, 5, 7, 9, 10)
#: truth_coverage.tsv: what scoring leaves out (:func:`truth_coverage`)
COVERAGE_COLUMNS = ["topics", "topics_without_truth", "judged_items", "items_without_truth"]


def item_tiebreak(items: Sequence[str] | np.ndarray) -> np.ndarray:
    """Return a fixed pseudo-random order of item ids (crc32 of the id) for breaking score ties.

    Deterministic and independent of the id's own order (trec_rf10 doc ids in natural order
    correlate with the NIST grades: Spearman +0.19 per topic), of the method and of the run.
    """
    return np.array([zlib.crc32(str(item).encode("utf-8")) for item in items], dtype=np.int64)


def final_ranking(aggregator: Any, topic: TopicJudgments) -> np.ndarray:
    """Item indices best first: the aggregator's scores, ties broken by :func:`item_tiebreak`."""
    return ranking_from_scores(aggregator.scores_, item_tiebreak(topic.items))


def metric_names(ks: Sequence[int] = DEFAULT_KS) -> list[str]:
    """Table 2's columns: P@k, MAP, NDCG@k, RBP."""
    return [f"P@{k}" for k in ks] + ["MAP"] + [f"NDCG@{k}" for k in ks] + ["RBP"]


def fit_topic(spec: Mapping[str, Any], topic: TopicJudgments) -> tuple[Any, float]:
    """Fit one configured method ({method, params}) on one topic; return (aggregator, seconds)."""
    aggregator = make_crowd_aggregator(spec["method"], spec.get("params"))
    start = time.perf_counter()
    aggregator.fit(topic)
    seconds = time.perf_counter() - start
    scores = np.asarray(aggregator.scores_, dtype=float)
    if scores.shape != (topic.n_items,) or not np.isfinite(scores).all():
        raise ValueError(f"method {spec['method']!r} on topic {topic.topic!r}: scores_ must be "
                         f"{topic.n_items} finite floats, got shape {scores.shape}")
    return aggregator, seconds


def aggregate_dataset(dataset: CrowdDataset, name: str, spec: Mapping[str, Any],
                      progress: Callable[[int, int], None] | None = None) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """Run one method on every topic.

    Returns ``rankings`` (topic, method, item, rank (1 = best), score), ``skill``
    (topic, method, judge, skill; empty for a method without skill) and the total
    fitting time in seconds.
    """
    rank_parts, skill_parts, total = [], [], 0.0
    n = len(dataset.topics)
    for i, (topic_id, topic) in enumerate(dataset.topics.items(), start=1):
        aggregator, seconds = fit_topic(spec, topic)
        total += seconds
        order = final_ranking(aggregator, topic)
        rank_parts.append(pd.DataFrame({
            "topic": topic_id, "method": name, "item": topic.items[order],
            "rank": np.arange(1, topic.n_items + 1), "score": np.asarray(aggregator.scores_, dtype=float)[order]}))
        if aggregator.skills_ is not None:
            skill_parts.append(pd.DataFrame({"topic": topic_id, "method": name, "judge": topic.judges,
                                               "skill": np.asarray(aggregator.skills_, dtype=float)}))
        if i % 10 == 0 or i == n:
            log.info("%s: %d/%d topics, %.2f s fitting so far", name, i, n, total)
        if progress is not None:
            progress(i, n)
    rankings = pd.concat(rank_parts, ignore_index=True)
    skill = (pd.concat(skill_parts, ignore_index=True) if skill_parts
               else pd.DataFrame(columns=["topic", "method", "judge", "skill"]))
    return rankings, skill, total


def topic_metrics(ranking_items: Sequence[str], truth: Mapping[str, int], ks: Sequence[int],
                  rbp_p: float, relevant_grade: int) -> dict[str, float]:
    """Table 2's metrics of one topic's ranking, scored on the items with a truth grade.

    The ranking is restricted to the graded items (their relative order kept); graded items
    the crowd never judged are not in the topic and are not scored.
    """
    judged = [item for item in ranking_items if item in truth]
    grades = {item: int(truth[item]) for item in judged}
    return ranking_metrics(judged, grades, ks=tuple(ks), p=rbp_p, relevant_grade=relevant_grade)


@dataclass(frozen=True)
class TopicScoring:
    """One topic's truth laid out for scoring many rankings of its items (the robustness sweep).

    Per item index ``graded`` (has a truth grade) and ``grade``; ``every`` the grades of the graded
    items, ``ideal`` {k: ideal DCG@k} and ``tiebreak`` (:func:`item_tiebreak` of the items).
    """

    graded: np.ndarray
    grade: np.ndarray
    every: np.ndarray
    ideal: dict[int, float]
    tiebreak: np.ndarray


def topic_scoring(topic: TopicJudgments, truth: Mapping[str, int], ks: Sequence[int]) -> TopicScoring:
    """:class:`TopicScoring` of a topic's items against its truth."""
    names = [str(item) for item in topic.items]
    graded = np.array([name in truth for name in names], dtype=bool)
    grade = np.array([int(truth[name]) if name in truth else 0 for name in names], dtype=np.int64)
    every = grade[graded]
    return TopicScoring(graded=graded, grade=grade, every=every, ideal={k: ideal_dcg(every, k) for k in ks},
                        tiebreak=item_tiebreak(topic.items))


def scored_metrics(scoring: TopicScoring, order: np.ndarray, ks: Sequence[int], rbp_p: float,
                   relevant_grade: int) -> dict[str, float]:
    """Compute :func:`topic_metrics` of the ranking ``order`` (item indices, best first), from ``scoring``.

    The graded items' grades in rank order against all graded items (the same numbers).
    """
    ranked = scoring.grade[order][scoring.graded[order]]
    return grade_metrics(ranked, scoring.every, tuple(ks), rbp_p, relevant_grade, scoring.ideal)


def truth_coverage(dataset: CrowdDataset) -> dict[str, int]:
    """Count what scoring leaves out, the data being partial.

    ``judged_items`` (topic, item) pairs the crowd judged, of which ``items_without_truth`` have no
    truth grade (ranked, not scored), and ``topics``, of which ``topics_without_truth`` have a grade for
    none of their judged items (not scored at all).
    """
    judged = without = topics_without = 0
    for topic_id, topic in dataset.topics.items():
        truth = dataset.truth_for(topic_id)
        graded = sum(str(item) in truth for item in topic.items)
        judged += topic.n_items
        without += topic.n_items - graded
        topics_without += graded == 0
    return {"topics": len(dataset.topics), "topics_without_truth": topics_without, "judged_items": judged,
            "items_without_truth": without}


def log_truth_coverage(dataset: CrowdDataset) -> dict[str, int]:
    """:func:`truth_coverage`, also written to the log (the job's log in the pipeline)."""
    c = truth_coverage(dataset)
    log.info("left out of scoring: %d of %d judged items have no truth grade (ranked, not scored); "
             "%d of %d topics have none (not scored)", c["items_without_truth"], c["judged_items"],
             c["topics_without_truth"], c["topics"])
    return c


def metrics_by_topic(rankings: pd.DataFrame, dataset: CrowdDataset, ks: Sequence[int] = DEFAULT_KS,
                     rbp_p: float = 0.95, relevant_grade: int = 1) -> pd.DataFrame:
    """Long table topic, method, metric, value for every topic that has truth grades.

    What is left out (:func:`truth_coverage`) goes to the log.
    """
    log_truth_coverage(dataset)
    rows = []
    for (method, topic), group in rankings.groupby(["method", "topic"], sort=False):
        truth = dataset.truth_for(str(topic))
        if not truth:
            continue
        items = group.sort_values("rank")["item"].astype(str).tolist()
        if not any(item in truth for item in items):
            continue
        for metric, value in topic_metrics(items, truth, ks, rbp_p, relevant_grade).items():
            rows.append((str(topic), method, metric, float(value)))
    return pd.DataFrame(rows, columns=["topic", "method", "metric", "value"])


def mean_metrics(by_topic: pd.DataFrame, methods: Sequence[str], ks: Sequence[int] = DEFAULT_KS) -> pd.DataFrame:
    """ranking_metrics.tsv: method, metric, value (mean over topics), in config and Table 2 order."""
    means = by_topic.groupby(["method", "metric"], sort=False)["value"].mean()
    rows = [(m, metric, float(means[m, metric])) for m in methods for metric in metric_names(ks)
            if (m, metric) in means.index]
    return pd.DataFrame(rows, columns=["method", "metric", "value"])


def relevance_thresholds(dataset: CrowdDataset) -> list[int]:
    """Every binary-relevance threshold g (grade >= g relevant) that splits the truth grades: 1 .. max grade."""
    top = max((max(grades.values()) for grades in dataset.truth.values() if grades), default=0)
    return list(range(1, int(top) + 1))


def metrics_by_relevance(rankings: pd.DataFrame, dataset: CrowdDataset, methods: Sequence[str],
                         ks: Sequence[int] = DEFAULT_KS, rbp_p: float = 0.95) -> pd.DataFrame:
    """Compute ranking_metrics_by_relevance.tsv: relevant_grade, method, metric, value.

    Table 2's means with binary relevance (P@k, MAP, RBP) at every threshold of
    :func:`relevance_thresholds` (NDCG uses the grades themselves and is the same at every threshold).
    """
    frames = [mean_metrics(metrics_by_topic(rankings, dataset, ks, rbp_p, g), methods, ks).assign(relevant_grade=g)
              for g in relevance_thresholds(dataset)]
    if not frames:
        return pd.DataFrame(columns=["relevant_grade", "method", "metric", "value"])
    table = pd.concat(frames, ignore_index=True)
    return table[["relevant_grade", "method", "metric", "value"]]


def truth_coverage_table(dataset: CrowdDataset) -> pd.DataFrame:
    """truth_coverage.tsv: one row of :data:`COVERAGE_COLUMNS` (:func:`truth_coverage`)."""
    return pd.DataFrame([truth_coverage(dataset)], columns=COVERAGE_COLUMNS)


def significance_tests(by_topic: pd.DataFrame, proposed: Sequence[str], baselines: Sequence[str],
                       ks: Sequence[int] = DEFAULT_KS) -> pd.DataFrame:
    """One-tailed paired t-test over topics: each proposed method vs the best baseline per metric.

    The best baseline is the baseline with the highest mean of that metric (as in the paper's
    Table 2 bold marks). scipy.stats.ttest_rel(alternative="greater"); p is NaN when every
    paired difference is equal (no variance).
    """
    from scipy import stats  # here, not at the top: the aggregation jobs never need scipy.stats

    rows = []
    wide = by_topic.pivot_table(index=["metric", "topic"], columns="method", values="value")
    for metric in metric_names(ks):
        if metric not in wide.index.get_level_values(0):
            continue
        table = wide.loc[metric]
        present = [b for b in baselines if b in table.columns]
        if not present:
            continue
        best = max(present, key=lambda b: (table[b].mean(), -present.index(b)))
        for method in proposed:
            if method not in table.columns:
                continue
            a, b = table[method].to_numpy(), table[best].to_numpy()
            diff = a - b
            if np.allclose(diff, diff[0]):
                t_stat, p_value = np.nan, np.nan
            else:
                res = stats.ttest_rel(a, b, alternative="greater")
                t_stat, p_value = float(res.statistic), float(res.pvalue)
            rows.append((metric, method, best, float(a.mean()), float(b.mean()), t_stat, p_value, len(a)))
    return pd.DataFrame(rows, columns=["metric", "method", "baseline", "method_mean", "baseline_mean",
                                       "t", "p_value", "n_topics"])


def skill_table(skill: pd.DataFrame, dataset: CrowdDataset) -> pd.DataFrame:
    """topic, judge, method, skill, accuracy: each method's estimate beside eq (18)'s accuracy vs truth."""
    acc_rows = []
    for topic_id, topic in dataset.topics.items():
        truth = dataset.truth_for(topic_id)
        if not truth:
            continue
        acc = annotator_accuracy(topic, truth)
        acc_rows.append(pd.DataFrame({"topic": topic_id, "judge": topic.judges, "accuracy": acc}))
    if not acc_rows or skill.empty:
        return pd.DataFrame(columns=["topic", "judge", "method", "skill", "accuracy"])
    accuracy = pd.concat(acc_rows, ignore_index=True)
    out = skill.merge(accuracy, on=["topic", "judge"], how="left")
    return out[["topic", "judge", "method", "skill", "accuracy"]]


def skill_divergence(table: pd.DataFrame, bins: int = 10) -> pd.DataFrame:
    """topic, method, kl: KL divergence of the accuracy histogram vs each method's skill histogram."""
    rows = []
    for (method, topic), group in table.groupby(["method", "topic"], sort=False):
        ok = group["accuracy"].notna() & group["skill"].notna()
        if ok.sum() == 0:
            continue
        kl = skill_histogram_kl(group.loc[ok, "accuracy"].to_numpy(), group.loc[ok, "skill"].to_numpy(),
                                  bins=bins)
        rows.append((str(topic), method, float(kl)))
    return pd.DataFrame(rows, columns=["topic", "method", "kl"])


def robustness_parts(dataset: CrowdDataset, methods: Mapping[str, Mapping[str, Any]], spammer: str,
                     ratios: Sequence[float], replicates: int, seed: int, dataset_name: str,
                     ks: Sequence[int] = DEFAULT_KS, rbp_p: float = 0.95, relevant_grade: int = 1) -> pd.DataFrame:
    """Run :func:`robustness_part` at each spammer ratio in turn, rows stacked in the order of ``ratios``.

    The metrics of topics that get no spammer are computed once for all of them.
    """
    unchanged: dict[str, dict[tuple[str, str], float]] = {}
    scoring = _scorings(dataset, ks)
    return pd.concat([robustness_part(dataset, methods, spammer, float(r), replicates, seed, dataset_name, ks, rbp_p,
                                      relevant_grade, unchanged=unchanged, scoring=scoring) for r in ratios],
                     ignore_index=True)


def _scorings(dataset: CrowdDataset, ks: Sequence[int]) -> dict[str, TopicScoring]:
    """:class:`TopicScoring` of every topic that has truth."""
    return {t: topic_scoring(topic, dataset.truth_for(t), ks) for t, topic in dataset.topics.items()
            if dataset.truth_for(t)}


def robustness_part(dataset: CrowdDataset, methods: Mapping[str, Mapping[str, Any]], spammer: str,
                    ratio: float, replicates: int, seed: int, dataset_name: str,
                    ks: Sequence[int] = DEFAULT_KS, rbp_p: float = 0.95, relevant_grade: int = 1,
                    replicate_ids: Iterable[int] | None = None,
                    unchanged: dict[str, dict[tuple[str, str], float]] | None = None,
                    scoring: Mapping[str, TopicScoring] | None = None) -> pd.DataFrame:
    """Figures 3-4, one spammer kind and ratio: spammer, ratio, replicate, method, metric, value.

    Each replicate adds round(ratio x m_topic) spammers of the kind to every topic that has
    truth (seeded by seed, dataset, kind, ratio, replicate, topic), runs every method and
    averages each metric over topics. With ratio 0 every replicate is the original data.
    A topic that gets no spammer in a replicate has its original judgments, so (built-in
    methods being functions of the judgments) its metrics are computed once and reused
    (kept in ``unchanged``, {topic: {(method, metric): value}}, which callers may share between ratios,
    as they may share ``scoring``, the topics' :class:`TopicScoring`).
    """
    rows = []
    log_truth_coverage(dataset)
    topic_ids = [t for t in dataset.topics if dataset.truth_for(t)]
    unchanged = {} if unchanged is None else unchanged  # topic -> metrics of its original judgments
    scoring = _scorings(dataset, ks) if scoring is None else scoring
    for rep in (range(replicates) if replicate_ids is None else replicate_ids):
        values: dict[tuple[str, str], list[float]] = {}
        for topic_id in topic_ids:
            truth = dataset.truth_for(topic_id)
            rng = rng_for(seed, "crowd_spammers", dataset_name, spammer, f"{ratio:g}", rep, topic_id)
            topic = dataset.topics[topic_id]
            noisy = add_spammers(topic, truth, spammer, ratio, rng)
            if noisy is topic and topic_id in unchanged:
                metrics = unchanged[topic_id]  # no spammer added: the same judgments as in an earlier replicate
            else:
                metrics = _topic_method_metrics(methods, noisy, scoring[topic_id], ks, rbp_p, relevant_grade)
                if noisy is topic and _deterministic(methods):
                    unchanged[topic_id] = metrics
            for key, value in metrics.items():
                values.setdefault(key, []).append(value)
        for (name, metric), vals in values.items():
            rows.append((spammer, float(ratio), rep, name, metric, float(np.mean(vals))))
        log.info("%s %s ratio %g: replicate %d done", dataset_name, spammer, ratio, rep)
    return pd.DataFrame(rows, columns=["spammer", "ratio", "replicate", "method", "metric", "value"])


def _deterministic(methods: Mapping[str, Mapping[str, Any]]) -> bool:
    """Every method is a built-in (a function of the judgments alone: no random state)."""
    return all(spec["method"] in _CROWD_METHODS for spec in methods.values())


def _topic_method_metrics(methods: Mapping[str, Mapping[str, Any]], topic: TopicJudgments, scoring: TopicScoring,
                          ks: Sequence[int], rbp_p: float, relevant_grade: int) -> dict[tuple[str, str], float]:
    """Return {(method, metric): value} of every method on one topic's judgments (its items those of ``scoring``)."""
    out: dict[tuple[str, str], float] = {}
    for name, spec in methods.items():
        aggregator, _ = fit_topic(spec, topic)
        order = ranking_from_scores(aggregator.scores_, scoring.tiebreak)
        for metric, value in scored_metrics(scoring, order, ks, rbp_p, relevant_grade).items():
            out[(name, metric)] = float(value)
    return out


def robustness_summary(parts: pd.DataFrame) -> pd.DataFrame:
    """robustness.tsv: spammer, ratio, method, metric, mean, sd (sd over replicates, ddof 1; 0 for one)."""
    grouped = parts.groupby(["spammer", "ratio", "method", "metric"], sort=False)["value"]
    out = grouped.agg(mean="mean", sd=lambda v: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0).reset_index()
    return out.sort_values(["spammer", "ratio"], kind="stable").reset_index(drop=True)


def robustness_cv(summary: pd.DataFrame) -> pd.DataFrame:
    """spammer, method, metric, cv: coefficient of variation of each curve (the per-ratio means)."""
    rows = []
    for (spammer, method, metric), group in summary.groupby(["spammer", "method", "metric"], sort=False):
        rows.append((spammer, method, metric, float(coefficient_of_variation(group["mean"].to_numpy()))))
    return pd.DataFrame(rows, columns=["spammer", "method", "metric", "cv"])
