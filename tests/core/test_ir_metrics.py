"""IR measures (trec_eval conventions): hand-computed cases, ir-measures agreement, RBP."""
from __future__ import annotations

import math

import numpy as np
import pytest

from manyjudges.core.ir_metrics import (
    average_precision,
    ndcg_at,
    precision_at,
    ranking_metrics,
    rbp,
)

GRADES = {"a": 2, "b": 0, "c": 1, "d": 3, "e": 0}


def test_precision_divides_by_k_even_for_short_rankings():
    assert precision_at(["a", "b", "c"], GRADES, 3) == pytest.approx(2 / 3)
    assert precision_at(["a", "b", "c"], GRADES, 5) == pytest.approx(2 / 5)
    assert precision_at(["a", "b", "c"], GRADES, 3, relevant_grade=2) == pytest.approx(1 / 3)


def test_ndcg_hand_computed():
    ranking = ["a", "b", "c", "d", "e"]
    dcg = 3 / math.log2(2) + 0 + 1 / math.log2(4) + 7 / math.log2(5)
    ideal = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(ranking, GRADES, 5) == pytest.approx(dcg / ideal)
    assert ndcg_at(ranking, GRADES, 2) == pytest.approx(3 / (7 + 3 / math.log2(3)))
    assert ndcg_at(["d", "a", "c", "b", "e"], GRADES, 3) == pytest.approx(1.0)


def test_ndcg_ideal_uses_unranked_judged_items_and_zero_ideal_gives_zero():
    # only "b" ranked, but the ideal DCG@1 is that of "d" (grade 3)
    assert ndcg_at(["a"], GRADES, 1) == pytest.approx(3 / 7)
    assert ndcg_at(["b", "e"], {"b": 0, "e": 0}, 2) == 0.0


def test_average_precision_hand_computed():
    # relevant (>= 1): a, c, d; ranked a b c d e -> (1/1 + 2/3 + 3/4) / 3
    assert average_precision(["a", "b", "c", "d", "e"], GRADES) == pytest.approx((1 + 2 / 3 + 3 / 4) / 3)
    # unretrieved relevant items still count in R
    assert average_precision(["b", "a"], GRADES) == pytest.approx((1 / 2) / 3)
    assert average_precision(["b", "e"], {"b": 0, "e": 0}) == 0.0


def test_rbp_hand_computed_and_moffat_zobel_cases():
    assert rbp(["a", "b", "c"], GRADES, p=0.8) == pytest.approx(0.2 * (1 + 0.64))
    # Moffat & Zobel: a ranking whose first d items are all relevant has RBP = 1 - p^d
    d, p = 12, 0.95
    grades = {f"x{i}": 1 for i in range(d)}
    assert rbp(list(grades), grades, p=p) == pytest.approx(1 - p**d)
    # a single relevant item at rank i contributes (1 - p) p^(i - 1)
    assert rbp(["b", "e", "a"], GRADES, p=0.5) == pytest.approx(0.5 * 0.25)


def test_rbp_matches_direct_loop():
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 40))
        grades = rng.integers(0, 5, n)
        ranking = rng.permutation(n)[: int(rng.integers(1, n + 1))]
        p, level = float(rng.uniform(0.5, 0.99)), int(rng.integers(1, 4))
        expected = 0.0
        for i, item in enumerate(ranking, start=1):
            expected += (1 - p) * (grades[item] >= level) * p ** (i - 1)
        assert rbp(ranking, grades, p=p, relevant_grade=level) == pytest.approx(expected)


def test_array_grades_and_index_rankings_agree_with_mappings():
    items = list(GRADES)
    arr = np.array([GRADES[i] for i in items])
    ranking_ids = ["d", "b", "a", "e"]
    ranking_idx = [items.index(i) for i in ranking_ids]
    assert ranking_metrics(ranking_idx, arr) == pytest.approx(ranking_metrics(ranking_ids, GRADES))


def test_ranking_metrics_keys_and_errors():
    out = ranking_metrics(["a", "b"], GRADES)
    assert list(out) == ["P@3", "P@5", "P@7", "P@9", "P@10", "NDCG@3", "NDCG@5", "NDCG@7", "NDCG@9",
                         "NDCG@10", "MAP", "RBP"]
    with pytest.raises(ValueError, match="without a truth grade"):
        ranking_metrics(["a", "zz"], GRADES)
    with pytest.raises(ValueError, match="more than once"):
        precision_at(["a", "a"], GRADES, 2)
    with pytest.raises(ValueError, match="k must be"):
        precision_at(["a"], GRADES, 0)


def test_agreement_with_ir_measures_on_random_qrels():
    ir_measures = pytest.importorskip("ir_measures")
    rng = np.random.default_rng(11)
    qrels, run, ours = [], [], {}
    level = 2
    for q in range(60):
        qid = f"q{q}"
        n = int(rng.integers(1, 30))
        grades = {f"d{j}": int(g) for j, g in enumerate(rng.integers(0, 5, n))}
        ranked = list(rng.permutation(list(grades))[: int(rng.integers(1, n + 1))])
        qrels += [ir_measures.Qrel(qid, doc, g) for doc, g in grades.items()]
        # distinct descending scores: trec_eval's own tie-breaking never applies
        run += [ir_measures.ScoredDoc(qid, str(doc), float(len(ranked) - i)) for i, doc in enumerate(ranked)]
        ours[qid] = ranking_metrics([str(d) for d in ranked], grades, relevant_grade=level)
    gains = {y: 2**y - 1 for y in range(5)}
    measures = {f"P@{k}": ir_measures.P(rel=level) @ k for k in (3, 5, 7, 9, 10)}
    measures.update({f"NDCG@{k}": ir_measures.nDCG(gains=gains) @ k for k in (3, 5, 7, 9, 10)})
    measures["MAP"] = ir_measures.AP(rel=level)
    by_measure = {str(m): name for name, m in measures.items()}
    seen = 0
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        name = by_measure[str(metric.measure)]
        assert ours[metric.query_id][name] == pytest.approx(metric.value, abs=1e-9), (metric.query_id, name)
        seen += 1
    assert seen == 60 * len(measures)
