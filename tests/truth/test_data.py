"""A truth data set's tables by its config source."""
from pathlib import Path

import pytest
import yaml

from manyjudges.truth.data import SOURCES, truth_tables

SCHEMA = Path(__file__).parents[2] / "workflow" / "schemas" / "truth.schema.yaml"


def test_the_sources_are_the_schemas():
    text = SCHEMA.read_text(encoding="utf-8")
    enum = next(line for line in text.splitlines() if line.strip().startswith("source: {enum:"))
    assert yaml.safe_load(enum.strip())["source"]["enum"] == list(SOURCES)


def test_simulated_tables_are_seeded_by_name():
    spec = {"source": "simulate", "n_items": 30, "n_judges": 6, "labels_per_item": 3}
    a_labels, a_truth = truth_tables("sim", spec, [], seed=1)
    b_labels, _ = truth_tables("sim", spec, [], seed=1)
    c_labels, _ = truth_tables("other", spec, [], seed=1)
    assert a_labels.equals(b_labels) and not a_labels.equals(c_labels)
    assert len(a_labels) == 90 and set(a_truth.columns) == {"item", "truth"}


def test_a_users_table_without_truth_and_an_unknown_source(tmp_path):
    path = tmp_path / "labels.tsv"
    path.write_text("item\tjudge\tlabel\ni1\tw1\t0\ni1\tw2\t1\n")
    labels, truth = truth_tables("mine", {"source": "labels_table", "path": str(path)}, [])
    assert len(labels) == 2 and truth.empty and list(truth.columns) == ["item", "truth"]
    with pytest.raises(ValueError, match="unknown truth source 'csv'"):
        truth_tables("mine", {"source": "csv"}, [])


def test_keep_judges_by_pattern():
    import pandas as pd

    from manyjudges.truth.data import keep_judges

    labels = pd.DataFrame({"item": ["a", "a", "b", "c"], "judge": ["gpt4:ab", "gpt4:ba", "bard:ab", "gpt4:ba"],
                           "label": [0, 1, 1, 2]})
    truth = pd.DataFrame({"item": ["a", "b", "c"], "truth": [0, 1, 2]})
    kept, kept_truth = keep_judges(labels, truth, ["*:ab"])
    assert kept.to_dict("list") == {"item": ["a", "b"], "judge": ["gpt4:ab", "bard:ab"], "label": [0, 1]}
    assert kept_truth["item"].tolist() == ["a", "b"]  # c has no label left
    with pytest.raises(ValueError, match=r"\['claude\*'\] match no judge"):
        keep_judges(labels, truth, ["gpt4:*", "claude*"])


def test_an_llm_panel_through_truth_tables_with_judges(tmp_path):
    (tmp_path / "llmjudge_test_qrel_idx.txt").write_text("q1 0 p1 3\nq1 0 p2 0\n")
    (tmp_path / "A-x.txt").write_text("q1 0 p1 2\nq1 0 p2 0\n")
    (tmp_path / "B-y.txt").write_text("q1 0 p1 3\n")
    files = sorted(tmp_path.iterdir())
    labels, truth = truth_tables("llm", {"source": "llmjudge", "judges": ["B-*"]}, files)
    assert labels.to_dict("list") == {"item": ["q1:p1"], "judge": ["B-y"], "label": [3]}
    assert truth.to_dict("list") == {"item": ["q1:p1"], "truth": [3]}


def test_a_sets_pinned_key_reads_another_sets_files():
    from manyjudges.pipeline.download import _pinned_files, _raw_filename
    from manyjudges.pipeline.workflow_support import raw_files

    config = {"truth": {"datasets": {"llm_one": {"source": "llmjudge", "pinned": "llmjudge",
                                                 "files": ["Olz-exp.txt", "llmjudge_test_qrel_idx.txt"]},
                                     "prd_ab": {"source": "prd", "pinned": "prd"}}}}
    assert sorted(raw_files(config, "llm_one")) == ["Olz-exp.txt", "llmjudge_test_qrel_idx.txt"]
    assert sorted(raw_files(config, "prd_ab")) == sorted(_raw_filename(p) for p in _pinned_files("prd")["repo_path"])
    with pytest.raises(ValueError, match="not pinned"):
        raw_files({"truth": {"datasets": {"x": {"source": "prd", "pinned": "prd", "files": ["nope.jsonl"]}}}}, "x")


def test_the_paper_pool_has_30_real_sets_with_groups():
    config = yaml.safe_load((Path(__file__).parents[2] / "config" / "paper.yaml").read_text(encoding="utf-8"))
    real = {n: s for n, s in config["truth"]["datasets"].items() if s["source"] not in ("simulate", "labels_table")}
    assert len(real) >= 30
    groups = {n: s.get("group", n) for n, s in real.items()}
    # sets that share items share a group
    assert {groups[n] for n in real if n.startswith("llmjudge")} == {"llmjudge"}
    assert {groups[n] for n in real if n.startswith(("prd", "pandalm"))} == {"prd", "pandalm"}
    assert groups["truth_trec"] == groups["trec_rf10"]
    assert len({groups[f"snow2008_{t}"] for t in ("anger", "disgust", "fear", "joy", "sadness", "surprise",
                                                   "valence")}) == 1
    assert "snow2008_rte" not in real  # the same data as truth_rte
    assert "snow2008_wordsim" not in real  # a truth on another scale, rounded: not an annotated class


def test_the_pool_loader_reads_every_real_set(mirror):
    import importlib.util
    import sys

    path = Path(__file__).parents[2] / "benchmarks" / "harness" / "pool.py"
    spec = importlib.util.spec_from_file_location("truth_pool", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["truth_pool"] = module  # the dataclass looks its module up
    spec.loader.exec_module(module)
    pool = {p.name: p for p in module.pool_sets(mirror)}
    assert len(pool) == 30
    for p in pool.values():  # every truth item is labelled, and the labels are class codes
        assert set(p.truth["item"]) <= set(p.labels["item"]) and (p.labels["label"] >= 0).all()
    shape = {n: (p.labels["item"].nunique(), p.labels["judge"].nunique(), len(p.labels), len(p.truth))
             for n, p in pool.items()}
    assert shape["llmjudge"] == (4423, 33, 145956, 4423) and shape["llmjudge_trema"] == (4423, 10, 44230, 4423)
    assert shape["prd"] == (800, 10, 8000, 744) and shape["prd_ab"] == (800, 5, 4000, 744)
    assert shape["pandalm"] == (999, 2, 1973, 999) and shape["pandalm_h2"] == (999, 3, 2972, 928)
    assert shape["snow2008_temp"] == (462, 76, 4620, 462) and shape["snow2008_wsd"] == (177, 34, 1770, 177)
