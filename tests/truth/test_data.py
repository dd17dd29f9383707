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
    spec = {"source": "simulate", "n_items": 30, "n_workers": 6, "labels_per_item": 3}
    a_labels, a_truth = truth_tables("sim", spec, [], seed=1)
    b_labels, _ = truth_tables("sim", spec, [], seed=1)
    c_labels, _ = truth_tables("other", spec, [], seed=1)
    assert a_labels.equals(b_labels) and not a_labels.equals(c_labels)
    assert len(a_labels) == 90 and set(a_truth.columns) == {"item", "truth"}


def test_a_users_table_without_truth_and_an_unknown_source(tmp_path):
    path = tmp_path / "labels.tsv"
    path.write_text("item\tworker\tlabel\ni1\tw1\t0\ni1\tw2\t1\n")
    labels, truth = truth_tables("mine", {"source": "labels_table", "path": str(path)}, [])
    assert len(labels) == 2 and truth.empty and list(truth.columns) == ["item", "truth"]
    with pytest.raises(ValueError, match="unknown truth source 'csv'"):
        truth_tables("mine", {"source": "csv"}, [])
