"""Crowd experiment tables: metrics per topic, t-tests, robustness summaries, the report section."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from manyjudges.crowd import experiment as ex
from manyjudges.crowd.data import CrowdDataset
from manyjudges.crowd.judgments import topics_from_preferences


def noiseless_dataset(n_topics: int = 3, n_items: int = 8, seed: int = 0) -> CrowdDataset:
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for t in range(n_topics):
        items = [f"i{k}" for k in range(n_items)]
        grades = rng.permutation(n_items) % 4
        truth[f"t{t}"] = dict(zip(items, grades.tolist()))
        for w in range(4):
            for a in range(n_items):
                for b in range(a + 1, n_items):
                    if grades[a] != grades[b]:
                        outcome = "left" if grades[a] > grades[b] else "right"
                        rows.append((f"t{t}", f"w{w}", items[a], items[b], outcome))
    prefs = pd.DataFrame(rows, columns=["topic", "judge", "left", "right", "outcome"])
    return CrowdDataset(topics_from_preferences(prefs), truth)


def test_metric_names_follow_table2():
    assert ex.metric_names((3, 10)) == ["P@3", "P@10", "MAP", "NDCG@3", "NDCG@10", "RBP"]


def test_noiseless_crowd_gives_perfect_ndcg_for_every_builtin():
    from manyjudges.crowd.registry import _CROWD_METHODS

    data = noiseless_dataset()
    for name in _CROWD_METHODS:
        rankings, skill, seconds = ex.aggregate_dataset(data, name, {"method": name, "params": {}})
        by_topic = ex.metrics_by_topic(rankings, data)
        ndcg = by_topic[by_topic["metric"] == "NDCG@10"]["value"]
        assert len(ndcg) == 3 and np.allclose(ndcg, 1.0), name
        assert seconds >= 0 and set(rankings.columns) == {"topic", "method", "item", "rank", "score"}


def test_items_without_truth_are_not_scored():
    data = noiseless_dataset(n_topics=1)
    truth = data.truth["t0"]
    # a ranking that puts an ungraded item first: scoring skips it, so the graded order alone counts
    order = sorted(truth, key=lambda i: -truth[i])
    full = ex.topic_metrics(["ghost"] + order, truth, (3,), 0.95, 1)
    assert full == ex.topic_metrics(order, truth, (3,), 0.95, 1)


def test_significance_matches_scipy_and_picks_the_best_baseline():
    rng = np.random.default_rng(1)
    rows = []
    for topic in range(12):
        for method, mean in (("ours", 0.7), ("b1", 0.6), ("b2", 0.5)):
            rows.append((str(topic), method, "MAP", mean + rng.normal(0, 0.1)))
    by_topic = pd.DataFrame(rows, columns=["topic", "method", "metric", "value"])
    table = ex.significance_tests(by_topic, ["ours"], ["b1", "b2"], ks=())
    assert table["baseline"].tolist() == ["b1"]
    wide = by_topic.pivot(index="topic", columns="method", values="value")
    ref = stats.ttest_rel(wide["ours"], wide["b1"], alternative="greater")
    assert table["p_value"].iloc[0] == pytest.approx(ref.pvalue)
    assert table["t"].iloc[0] == pytest.approx(ref.statistic)


def test_robustness_summary_and_cv():
    parts = pd.DataFrame({"spammer": "random", "ratio": [0, 0, 0.5, 0.5], "replicate": [0, 1, 0, 1],
                          "method": "m", "metric": "MAP", "value": [0.8, 0.8, 0.6, 0.4]})
    summary = ex.robustness_summary(parts)
    assert summary["mean"].tolist() == pytest.approx([0.8, 0.5])
    assert summary["sd"].tolist() == pytest.approx([0.0, np.std([0.6, 0.4], ddof=1)])
    cv = ex.robustness_cv(summary)
    means = np.array([0.8, 0.5])
    assert cv["cv"].iloc[0] == pytest.approx(stats.variation(means))  # sd (ddof 0) / mean


def test_robustness_part_is_seeded_and_ratio_zero_is_the_data():
    data = noiseless_dataset(n_topics=2)
    methods = {"borda": {"method": "borda", "params": {}}, "crowdagg_ndcg": {"method": "crowdagg_ndcg", "params": {}}}
    a = ex.robustness_part(data, methods, "malicious", 0.5, 2, seed=3, dataset_name="d")
    b = ex.robustness_part(data, methods, "malicious", 0.5, 2, seed=3, dataset_name="d")
    pd.testing.assert_frame_equal(a, b)
    zero = ex.robustness_part(data, methods, "random", 0.0, 2, seed=3, dataset_name="d")
    ndcg = zero[zero["metric"] == "NDCG@10"]["value"]
    assert np.allclose(ndcg, 1.0)


def test_malicious_spammers_hurt_and_replicates_differ():
    data = noiseless_dataset(n_topics=3)
    methods = {"borda": {"method": "borda", "params": {}}}
    clean = ex.robustness_part(data, methods, "malicious", 0.0, 1, seed=3, dataset_name="d")
    noisy = ex.robustness_part(data, methods, "malicious", 2.0, 4, seed=3, dataset_name="d")
    ndcg = noisy[noisy["metric"] == "NDCG@10"]["value"]
    assert ndcg.max() < clean[clean["metric"] == "NDCG@10"]["value"].iloc[0]
    coin = ex.robustness_part(data, methods, "random", 3.0, 4, seed=3, dataset_name="d")
    assert coin[coin["metric"] == "NDCG@10"]["value"].nunique() > 1  # each replicate draws its own spammers


def test_ties_are_broken_by_item_hash_not_id_order():
    from manyjudges.crowd.base import ranking_from_scores

    items = np.array([f"d{k}" for k in range(30)], dtype=object)
    order = ranking_from_scores(np.zeros(30), ex.item_tiebreak(items))
    assert sorted(order.tolist()) == list(range(30)) and order.tolist() != list(range(30))
    # round-off-level differences count as ties
    assert ranking_from_scores(np.array([1.0, 1.0 + 1e-15, 0.5])).tolist() == [0, 1, 2]


def partial_dataset() -> CrowdDataset:
    """The noiseless crowd with 2 of topic t0's 8 items and all of topic t2 left out of the truth."""
    data = noiseless_dataset()
    truth = dict(data.truth)
    truth["t0"] = {item: grade for item, grade in truth["t0"].items() if item not in ("i0", "i1")}
    del truth["t2"]
    return CrowdDataset(data.topics, truth)


def write_results(folder, data: CrowdDataset, methods=("borda", "crowd_bt")) -> dict[str, object]:
    """The crowd tables the report reads, as the pipeline writes them, for a few methods."""
    folder.mkdir(parents=True, exist_ok=True)
    parts = [ex.aggregate_dataset(data, m, {"method": m, "params": {}}) for m in methods]
    rankings = pd.concat([p[0] for p in parts], ignore_index=True)
    by_topic = ex.metrics_by_topic(rankings, data)
    skill = ex.skill_table(pd.concat([p[1] for p in parts], ignore_index=True), data)
    tables = {"metrics_by_topic": by_topic,
              "ranking_metrics": ex.mean_metrics(by_topic, list(methods)),
              "truth_coverage": ex.truth_coverage_table(data),
              "significance": ex.significance_tests(by_topic, [methods[0]], list(methods[1:])),
              "runtime": pd.DataFrame({"method": list(methods), "seconds": [p[2] for p in parts]}),
              "quality_kl": ex.skill_divergence(skill)}
    for name, table in tables.items():
        table.to_csv(folder / f"{name}.tsv", sep="\t", index=False)
    return {name: folder / f"{name}.tsv" for name in tables}


def test_items_and_topics_without_truth_are_counted_logged_and_reported(tmp_path, caplog):
    import logging

    from manyjudges.crowd.report import _crowd_markdown
    from manyjudges.reporting.paper_values import paper_values

    data = partial_dataset()
    assert ex.truth_coverage(data) == {"topics": 3, "topics_without_truth": 1, "judged_items": 24,
                                       "items_without_truth": 10}
    with caplog.at_level(logging.INFO, logger="manyjudges"):
        files = write_results(tmp_path / "mine", data)
    assert ("left out of scoring: 10 of 24 judged items have no truth grade (ranked, not scored); "
            "1 of 3 topics have none (not scored)") in caplog.messages
    assert list(pd.read_csv(files["ranking_metrics"], sep="\t").columns) == ["method", "metric", "value"]
    coverage = pd.read_csv(files["truth_coverage"], sep="\t")
    assert list(coverage.columns) == ex.COVERAGE_COLUMNS and coverage.values.tolist() == [[3, 1, 24, 10]]
    by_topic = pd.read_csv(files["metrics_by_topic"], sep="\t")
    assert sorted(by_topic["topic"].unique()) == ["t0", "t1"]
    report = _crowd_markdown({"mine": files}, {"mine": {"source": "preferences_table"}}, {}, paper_values("niu2015"),
                            list(ex.DEFAULT_KS))
    assert ("Left out of the scores: 10 of 24 judged items have no truth grade (ranked, not scored); "
            "1 of 3 topics have none (not scored).") in report


def test_data_caveats_appear_only_under_a_dataset_of_their_source(tmp_path):
    from manyjudges.crowd.report import _crowd_markdown
    from manyjudges.io.sources import mirex2005, trec_rf10
    from manyjudges.reporting.paper_values import paper_values

    data = noiseless_dataset()
    results = {name: write_results(tmp_path / name, data) for name in ("mine", "mx")}
    specs = {"mine": {"source": "preferences_table"}, "mx": {"source": "mirex2005"}}
    paper, ks = paper_values("niu2015"), list(ex.DEFAULT_KS)

    own = _crowd_markdown({"mine": results["mine"]}, specs, {}, paper, ks)
    assert "### Dataset `mine` (your own data)" in own
    for caveat in (mirex2005.REPORT_NOTE, trec_rf10.CROWD_REPORT_NOTE, "Truth for MIREX", "CS-TREC2011"):
        assert caveat not in own

    both = _crowd_markdown(results, specs, {}, paper, ks)
    header, mine, mx = both.split("### Dataset ")
    assert "`mine` (your own data)" in mine and "`mx` (real public data)" in mx
    assert mirex2005.REPORT_NOTE in mx and "from these same crowd judgments" in mx
    assert mirex2005.REPORT_NOTE not in header + mine and trec_rf10.CROWD_REPORT_NOTE not in both


class CountingBorda:
    """A user's aggregator (not a built-in) that counts its fits."""

    fits = 0

    def fit(self, topic):
        from manyjudges.crowd.pairwise import Borda

        type(self).fits += 1
        inner = Borda().fit(topic)
        self.scores_, self.skills_ = inner.scores_, inner.skills_
        return self


def test_topics_without_spammers_are_fitted_once_for_builtins_only(monkeypatch):
    import sys
    import types

    data = noiseless_dataset(n_topics=2)
    builtin = {"borda": {"method": "borda", "params": {}}, "mpm": {"method": "mpm", "params": {}}}
    fits = []
    real_fit = ex.fit_topic
    monkeypatch.setattr(ex, "fit_topic", lambda spec, topic: fits.append(spec["method"]) or real_fit(spec, topic))
    zero = ex.robustness_part(data, builtin, "random", 0.0, 3, seed=3, dataset_name="d", replicate_ids=[0, 4, 7])
    assert len(fits) == 2 * 2  # two methods x two topics, not x three replicates
    assert zero["replicate"].unique().tolist() == [0, 4, 7]
    by_rep = [g.drop(columns="replicate").reset_index(drop=True) for _, g in zero.groupby("replicate")]
    for other in by_rep[1:]:
        pd.testing.assert_frame_equal(by_rep[0], other)
    # the values are those of fitting each topic afresh, averaged over topics
    for name, spec in builtin.items():
        per_topic = []
        for topic_id, topic in data.topics.items():
            agg, _ = real_fit(spec, topic)
            items = [str(x) for x in topic.items[ex.final_ranking(agg, topic)]]
            per_topic.append(ex.topic_metrics(items, data.truth_for(topic_id), ex.DEFAULT_KS, 0.95, 1))
        got = by_rep[0][by_rep[0]["method"] == name].set_index("metric")["value"]
        for metric in got.index:
            assert got[metric] == np.mean([m[metric] for m in per_topic])
    module = types.ModuleType("counting_borda_mod")
    module.CountingBorda = CountingBorda
    monkeypatch.setitem(sys.modules, "counting_borda_mod", module)
    user = {"mine": {"method": "counting_borda_mod:CountingBorda", "params": {}}}
    CountingBorda.fits = 0
    ex.robustness_part(data, user, "random", 0.0, 3, seed=3, dataset_name="d")
    assert CountingBorda.fits == 2 * 3  # a user's method may be random: refitted every replicate


def test_scored_metrics_are_topic_metrics_bit_for_bit():
    """The robustness sweep scores a ranking from the topic's laid-out truth (TopicScoring): the
    same numbers as topic_metrics on the item ids, also with items the truth does not grade."""
    data = noiseless_dataset(n_topics=2, n_items=12, seed=4)
    rng = np.random.default_rng(0)
    ks = (3, 5, 10)
    for topic_id, topic in data.topics.items():
        truth = {item: grade for k, (item, grade) in enumerate(data.truth_for(topic_id).items()) if k % 3}
        scoring = ex.topic_scoring(topic, truth, ks)
        assert np.array_equal(scoring.tiebreak, ex.item_tiebreak(topic.items))
        for _ in range(5):
            order = rng.permutation(topic.n_items)
            items = [str(x) for x in topic.items[order]]
            for relevant in (1, 2):
                assert (ex.scored_metrics(scoring, order, ks, 0.8, relevant)
                        == ex.topic_metrics(items, truth, ks, 0.8, relevant))
