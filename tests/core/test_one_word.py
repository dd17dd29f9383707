"""One word per concept (docs/glossary.md): the retired words are not in the public API nor in the headers of the
tables the default pipeline writes.

Retired: ``worker`` for who gives a judgment (now ``judge`` in every family), ``quality`` for a judge's estimated
skill (now ``skill``), and ``n_labels`` for the number of classes of
the graded family (now ``n_classes``; ``n_labels`` stays the number of labels, as ``CrowdLabels.n_labels`` and the
truth family's active-learning tables count them). The former names still read on input are listed in
:data:`STILL_READ`, each checked to be a deprecated or documented alias, not an output.
"""
import csv
import dataclasses
import importlib
import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from manyjudges import FAMILIES, build_method, family_registry
from manyjudges.families import get_family
from manyjudges.graded import GradedPanel

EXPECTED = Path(__file__).resolve().parents[1] / "workflow" / "expected"

#: (where, name): a former name kept so that what users type still reads
STILL_READ = {
    ("crowd", "quality_"),  # CrowdAggregator.quality_, deprecated: skills_
    ("graded", "n_labels"),  # the keyword of GradedPanel.from_table/from_matrix and fit_predict_proba, deprecated
}


def retired(family: str, name: str) -> bool:
    """Whether ``name`` is a retired word in ``family``'s public names."""
    if "quality" in name.lower() or "worker" in name.lower():
        return True
    return family == "graded" and name.rstrip("_") == "n_labels"


def public_names(obj: object) -> set[str]:
    """The public attributes of a class or instance and the parameters of its public methods."""
    cls = obj if inspect.isclass(obj) else type(obj)
    names = {n for n in dir(cls) if not n.startswith("_")} | {n for n in vars(obj) if not n.startswith("_")}
    for name in [n for n in dir(cls) if not n.startswith("_")]:
        member = inspect.getattr_static(cls, name)
        function = getattr(member, "__func__", member)
        if callable(function):
            try:
                names |= set(inspect.signature(function).parameters) - {"self", "cls"}
            except (TypeError, ValueError):
                pass
    return names


def offending(family: str, names: set[str]) -> list[str]:
    return sorted(n for n in names if retired(family, n) and (family, n) not in STILL_READ)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_retired_word_among_a_familys_exported_names(family):
    module = importlib.import_module(get_family(family).package)
    assert offending(family, set(module.__all__)) == []


@pytest.mark.parametrize("family, name", [(f, n) for f in FAMILIES for n in family_registry(f)])
def test_no_retired_word_among_a_builtins_parameters_and_attributes(family, name):
    method = build_method(family, name)
    assert offending(family, set(method.get_params()) | public_names(method)) == []


def test_no_retired_word_in_what_a_fit_sets():
    """Fitted attributes of the crowd aggregators and graded predictors (a tiny topic, a tiny panel)."""
    from manyjudges.crowd.judgments import topics_from_preferences

    prefs = pd.DataFrame({"topic": "t", "judge": ["w1", "w2", "w3", "w1"], "left": ["a", "b", "a", "c"],
                          "right": ["b", "c", "c", "a"], "outcome": ["left", "left", "right", "right"]})
    topic = topics_from_preferences(prefs)["t"]
    for name in family_registry("crowd"):
        assert offending("crowd", set(vars(build_method("crowd", name).fit(topic)))) == [], name
    panel = GradedPanel.from_matrix(np.array([[0, 1, 2], [1, 1, 0], [2, 0, 2], [0, 2, 1]]), 3)
    for name in family_registry("graded"):
        assert offending("graded", set(vars(build_method("graded", name).fit(panel)))) == [], name
    fields = {f.name for f in dataclasses.fields(GradedPanel)}
    assert offending("graded", fields | public_names(GradedPanel)) == []


def test_the_still_read_names_are_aliases_not_outputs():
    from manyjudges.crowd.base import CrowdAggregator

    assert "quality_" not in vars(CrowdAggregator) or isinstance(vars(CrowdAggregator)["quality_"], property)
    assert "n_labels" not in {f.name for f in dataclasses.fields(GradedPanel)}
    signature = inspect.signature(GradedPanel.from_table).parameters
    assert signature["n_labels"].kind is inspect.Parameter.KEYWORD_ONLY and "n_classes" in signature


def expected_headers() -> list[tuple[Path, list[str]]]:
    out = []
    for path in sorted(EXPECTED.rglob("*.tsv")):
        with open(path, newline="", encoding="utf-8") as handle:
            out.append((path, next(csv.reader(handle, delimiter="\t"), [])))
    return out


def test_no_retired_word_in_the_default_pipelines_table_headers():
    headers = expected_headers()
    assert len(headers) > 10
    bad = []
    for path, header in headers:
        family = path.relative_to(EXPECTED).parts[1]  # default/<family>/...
        bad += [f"{path.relative_to(EXPECTED)}: {column}" for column in header if retired(family, column)]
    assert bad == []


def test_no_retired_word_in_the_commands_help():
    """Every subcommand's --help says judge; worker appears only as a former spelling still read."""
    from manyjudges.cli.parser import _build_parser

    parser = _build_parser()
    seen = 0
    for family_action in [a for a in parser._actions if a.choices]:
        for family, family_parser in family_action.choices.items():
            for verb_action in [a for a in family_parser._actions if a.choices and isinstance(a.choices, dict)]:
                for verb, verb_parser in verb_action.choices.items():
                    seen += 1
                    for line in verb_parser.format_help().splitlines():
                        line = line.replace("--workers-available", "").replace("--workers", "")  # former spellings
                        if "worker" in line.lower():
                            assert "former spelling" in line or "read as" in line or "worker for" in line \
                                or "(or worker)" in line, (family, verb, line)
    assert seen >= 8


def test_former_config_keys_are_renamed_and_both_names_refused():
    from manyjudges.pipeline.config_aliases import _rename_config_aliases

    config = {"truth": {"datasets": {"s": {"source": "simulate", "n_workers": 5, "worker_mix": {"good": 1.0},
                                           "workers": ["w*"]}}},
              "crowd": {"quality_bins": 7, "datasets": {"c": {"n_workers": 3, "pairs_per_worker": 2, "n_labels": 3}}},
              "graded": {"datasets": {"g": {"n_labels": 4}}}}
    notes = _rename_config_aliases(config)
    assert config["truth"]["datasets"]["s"] == {"source": "simulate", "n_judges": 5, "judge_mix": {"good": 1.0},
                                                "judges": ["w*"]}
    assert config["crowd"]["skill_bins"] == 7 and "quality_bins" not in config["crowd"]
    assert config["crowd"]["datasets"]["c"] == {"n_judges": 3, "pairs_per_judge": 2, "n_classes": 3}
    assert config["graded"]["datasets"]["g"] == {"n_classes": 4}
    assert "config.crowd.quality_bins -> skill_bins" in notes and len(notes) == 8
    with pytest.raises(ValueError, match=r"config.truth.datasets.s: both 'n_workers' and 'n_judges'"):
        _rename_config_aliases({"truth": {"datasets": {"s": {"n_workers": 5, "n_judges": 5}}}})
    assert _rename_config_aliases({"truth": None, "crowd": {"datasets": None}}) == []
