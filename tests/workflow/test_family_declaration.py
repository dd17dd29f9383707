"""What a built-in family is made of, for every Family of manyjudges.families.BUILT_IN: the pipeline includes
its rules, checks its config section and gathers its outputs and report section by its name alone (its
functions, <family>_outputs and <family>_report among them, live in <family>_common.smk: snakemake --lint
wants functions apart from rules), and the command adds its subcommands from its declaration. (A plug-in
family: test_toy_family.py.)"""
import importlib
import re
from pathlib import Path

import pytest

from manyjudges import FAMILIES, family_registry
from manyjudges.cli.grammar import _CommandParser
from manyjudges.families import BUILT_IN, get_family
from manyjudges.pipeline.workflow_support import load_schema

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "workflow" / "rules"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_has_its_package_rules_schema_outputs_and_report(family):
    assert (RULES / f"{family}.smk").is_file()
    schema, registry = load_schema(REPO / "workflow" / "schemas" / "config.schema.yaml")
    assert schema["properties"][family] == {"$ref": f"{family}.schema.yaml"}
    assert registry.get_or_retrieve(f"{family}.schema.yaml").value.contents["type"] == "object"
    assert callable(importlib.import_module(f"{get_family(family).package}.report").report_section)
    assert list(family_registry(family))
    common = (RULES / f"{family}_common.smk").read_text(encoding="utf-8")
    for function in (f"{family}_outputs", f"{family}_report"):
        assert re.search(rf"^def {function}\(\):", common, re.M), function


@pytest.mark.parametrize("family", BUILT_IN, ids=lambda f: f.name)
def test_a_built_in_family_declares_its_commands_in_its_own_module(family):
    """Its package is manyjudges.<name>, or a package inside another family's whose methods it runs (the
    arena's, inside crowd: families import no other family), with no subcommands of its own then."""
    assert family.rules is None and family.schema is None
    assert family.rules_files(REPO) == [RULES / f"{family.name}_common.smk", RULES / f"{family.name}.smk"]
    sub = _CommandParser().add_subparsers()  # as the command's parser makes them
    family.add_commands(sub)
    if family.package == f"manyjudges.{family.name}":
        assert family.commands == f"manyjudges.cli.{family.name}:add_commands"
        assert family.name in sub.choices
    else:
        host = family.package.split(".")
        assert family.package == f"manyjudges.{host[1]}.{family.name}" and host[1] in FAMILIES
        assert family.commands is None and not sub.choices
    assert family.config_check == f"manyjudges.pipeline.config_checks:check_{family.name}_config"
    family.check_config({})  # an absent section is fine


def test_the_snakefile_and_the_schema_name_no_family():
    snakefile = (REPO / "Snakefile").read_text(encoding="utf-8")
    schema = (REPO / "workflow" / "schemas" / "config.schema.yaml").read_text(encoding="utf-8")
    for family in FAMILIES:
        assert f"rules/{family}.smk" not in snakefile
        assert f"{family}.schema.yaml" not in schema


def test_the_shared_rule_files_name_no_family():
    """common.smk (config check, shared helpers, the report's gathering), data.smk (downloads) and report.smk
    hold nothing of one family: its section, rules and functions are in its own files."""
    words = {f.name for f in BUILT_IN} | {"ORD", "CONS", "GRADED", "CROWD", "TRUTH"}
    for name in ("common.smk", "data.smk", "report.smk"):
        code = [line.split("#")[0] for line in (RULES / name).read_text(encoding="utf-8").splitlines()]
        found = sorted({w for line in code for w in re.findall(r"[A-Za-z_]+", line)} & words)
        assert not found, f"{name} names {found}"
    assert sorted(p.name for p in RULES.glob("*.smk")) == sorted(
        ["common.smk", "data.smk", "report.smk", *(f"{f.name}{s}.smk" for f in BUILT_IN for s in ("", "_common"))])


def test_pinned_datasets_come_from_each_familys_pinned_sources():
    from manyjudges.pipeline.workflow_support import pinned_dataset_names

    config = {"orderings": {"datasets": {"a": {"source": "preflib"}, "b": {"source": "simulate"}}},
              "truth": {"datasets": {"c": {"source": "trec_rf10"}, "d": {"source": "labels_table"}}},
              "graded": {"datasets": {"e": {"source": "preflib"}}}}  # preflib is no graded source
    assert pinned_dataset_names(config) == ["a", "c"]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_built_in_family_has_the_same_inner_shape(family):
    """Its methods' registry, what the pipeline runs (experiment), its report section and its figures."""
    package = REPO / "src" / Path(*get_family(family).package.split("."))
    for module in ("registry", "experiment", "report", "plots"):
        assert (package / f"{module}.py").is_file(), f"manyjudges.{family}.{module}"
