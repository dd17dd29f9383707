"""Configured methods are checked before any job: the key path, the method and the problem in one message
(the methods under each family's `methods` by check_config_methods, the others by the family's own check,
both run by config_checks.validate, which the Snakefile calls)."""
import pytest

from manyjudges.pipeline.config_checks import check_config_methods, check_config_references


@pytest.mark.parametrize("config, fragments", [
    ({"orderings": {"methods": {"ac_tua": {}}}}, ["orderings.methods.ac_tua", "did you mean 'ac_tau'"]),
    ({"orderings": {"methods": {"strict": {"method": "frespa", "params": {"min_supp": 1}}}}},
     ["orderings.methods.strict", "'min_supp'", "did you mean 'min_sup'"]),
    ({"orderings": {"methods": {"strict": {"method": "frespa", "params": {"min_sup": 3}}}}},
     ["orderings.methods.strict", "min_sup must be a number in [0, 1]"]),
    ({"graded": {"methods": {"m4": {"params": {"predictive": "wide"}}}}}, ["graded.methods.m4", "predictive"]),
    ({"crowd": {"methods": {"mine": {"method": "no_such_module_xyz:Agg"}}}}, ["crowd.methods.mine", "cannot import"]),
    ({"crowd": {"methods": {"mpm_eq": {"method": "mpm", "params": {"skill": "false"}}}}},
     ["crowd.methods.mpm_eq", "skill must be true or false"]),
    ({"consensus": {"aggregation": {"aggregators": ["bordaa"]}}}, ["consensus.aggregation.aggregators", "'bordaa'"]),
    ({"truth": {"methods": {"mv": {"method": "majority_vote", "params": {"ties": "highest"}}}}},
     ["truth.methods.mv", "ties"]),
    ({"truth": {"methods": {"auto": {}}, "active": {"method": "dawid_skeen"}}},
     ["truth.active.method", "did you mean 'dawid_skene'"]),
    ({"truth": {"methods": {"auto": {"params": {"candidates": ["wawa", "glda"]}}}}}, ["truth.methods.auto", "glda"]),
])
def test_a_bad_method_is_reported_before_any_job(config, fragments):
    with pytest.raises(ValueError) as err:
        check_config_references(config)
        check_config_methods(config)
    for fragment in fragments:
        assert fragment in str(err.value)


def test_the_shipped_configs_pass_and_get_the_schema_defaults():
    import yaml

    from manyjudges.pipeline.workflow_support import check_config_schema

    from .runner import REPO

    for path in (REPO / "config/config.yaml", REPO / "config/paper.yaml", REPO / ".test/config/config.yaml"):
        config = yaml.safe_load(path.read_text())
        check_config_schema(config, REPO / "workflow/schemas/config.schema.yaml")
        check_config_references(config)
        check_config_methods(config)
        assert config["mirror"] is None or path.name == "paper.yaml"
        assert config["crowd"]["rbp_p"] == 0.95 and config["crowd"]["ks"]  # filled in where not given
        for dataset in config["graded"]["datasets"].values():
            assert dataset["min_labels_per_judge"] >= 1 and "outer_folds" in dataset


def _set(path: str, value):
    """An edit of the offline config: set the key at a dotted path (None deletes it)."""
    def edit(config):
        *parents, last = path.split(".")
        node = config
        for key in parents:
            node = node[key]
        if value is None:
            node.pop(last)
        else:
            node[last] = value
    return edit


def _rename(path: str, new: str):
    def edit(config):
        *parents, last = path.split(".")
        node = config
        for key in parents:
            node = node[key]
        node[new] = node.pop(last)
    return edit


MISTAKES = [
    (_rename("orderings", "orderingz"), ["config: unknown key 'orderingz' (did you mean 'orderings'?)"]),
    (_set("crowd.rbp_pp", 0.9), ["config.crowd: unknown key 'rbp_pp' (did you mean 'rbp_p'?)"]),
    (_rename("graded.datasets.own_grades.path", "pth"),
     ["config.graded.datasets.own_grades: required key 'path' is missing (is 'pth' a typo for it?)"]),
    (_set("orderings.replicates", "ten"), ["config.orderings.replicates: 'ten' is not of type integer"]),
    (_set("orderings.datasets.sim_tiny.source", "simulat"),
     ["config.orderings.datasets.sim_tiny.source", "'simulate'"]),
    (_set("orderings.methods.ac_tua", {}), ["orderings.methods.ac_tua", "did you mean 'ac_tau'"]),
    (_set("consensus.aggregation.aggregators", ["bordaa"]), ["consensus.aggregation.aggregators", "'bordaa'"]),
    (_set("orderings.methods.frespa", {"params": {"min_supp": 0.5}}),
     ["orderings.methods.frespa", "did you mean 'min_sup'"]),
    (_set("crowd.methods.mine", {"method": "no_such_module_xyz:Agg"}), ["crowd.methods.mine", "cannot import"]),
    (_set("orderings.methods.mine", {"method": "my_scorers:KendallToFirst", "params": {"offst": 1}}),
     ["orderings.methods.mine", "'offst'", "did you mean 'offset'"]),
    (_set("graded.comparisons", [["m1", "m9"]]), ["graded.comparisons", "m9"]),
    (_set("orderings.ed_over", "humans"), ["config.orderings.ed_over", "'humans'"]),
    (_set("orderings.readings", {"datasets": ["sim_huge"], "variants": {"judges_only": {"ed_over": "judges"}}}),
     ["orderings.readings.datasets ['sim_huge'] are not under orderings.datasets"]),
    (_set("orderings.sweep.readings", {"up": {"length_rounding": "ceil"}}),
     ["config.orderings.sweep.readings.up.length_rounding: 'ceil' is not one of floor, half_up"]),
    (_set("orderings.sweep.readings", {"up": {"length_roundin": "half_up"}}),
     ["config.orderings.sweep.readings.up: unknown key 'length_roundin' (did you mean 'length_rounding'?)"]),
    (_set("orderings.sweep.readings", {"up": {"length_rounding": "half_up"}}),  # the offline sweep: min_sup only
     ["config: orderings.sweep.readings.up changes length_rounding", "has none of them"]),
    (_set("truth.methods.dawid_skeen", {}), ["truth.methods.dawid_skeen", "did you mean 'dawid_skene'"]),
    (_set("truth.datasets.own_labels.path", None),
     ["config.truth.datasets.own_labels: required key 'path' is missing"]),
    (_set("orderings.datasets.sim_tiny.judges_per_set", None),
     ["config.orderings.datasets.sim_tiny: required key 'judges_per_set' is missing\n"]),
]


#: the mistakes also made in a real run of Snakemake, one of each kind of check (an unknown key, a wrong type, a
#: method that cannot be imported, a cross-reference, a missing key); every mistake goes through the check the
#: Snakefile calls (test_the_snakefiles_check_names_each_config_mistake)
REAL_RUNS = (0, 3, 8, 12, 18)


@pytest.mark.parametrize("index", range(len(MISTAKES)))
def test_the_snakefiles_check_names_each_config_mistake(index, tmp_path, monkeypatch):
    """``validate``, as the Snakefile calls it, in the offline config's run directory with the mistake."""
    import yaml

    from manyjudges.pipeline.config_checks import validate

    from .runner import REPO, offline_workdir

    work = offline_workdir(tmp_path / "work", MISTAKES[index][0])
    monkeypatch.chdir(work)
    config = yaml.safe_load((work / "config/config.yaml").read_text())
    with pytest.raises(ValueError) as caught:
        validate(config, schema=REPO / "workflow/schemas/config.schema.yaml")
    message = str(caught.value) + "\n"
    for fragment in MISTAKES[index][1]:
        assert fragment in message
    assert len(message.splitlines()) < 15  # a few lines, not the schema


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory):
    """``snakemake`` (a real run, not ``-n``: nothing may start) on the offline config with each mistake of
    ``REAL_RUNS``, several at a time."""
    from concurrent.futures import ThreadPoolExecutor

    from .runner import offline_workdir, run

    # the directories are made here, one after another: pytest's first mktemp of a session sets
    # up its base directory, which is not safe from several threads at once
    works = {i: offline_workdir(tmp_path_factory.mktemp(f"mistake{i}"), MISTAKES[i][0]) for i in REAL_RUNS}
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(works, zip(works.values(), pool.map(lambda work: run(work, check=False), works.values()))))


@pytest.mark.parametrize("index", REAL_RUNS)
def test_snakemake_reports_a_config_mistake_before_any_job(dry_runs, index):
    work, proc = dry_runs[index]
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    for fragment in MISTAKES[index][1]:
        assert fragment in out
    assert len(out.splitlines()) < 15  # a few lines, not the schema
    assert not any((work / d).exists() for d in ("results", "logs", "data/processed"))


def test_a_dry_run_reports_the_same(tmp_path):
    from .runner import offline_workdir, run

    proc = run(offline_workdir(tmp_path / "work", MISTAKES[1][0]), "-n", check=False)
    assert proc.returncode != 0 and MISTAKES[1][1][0] in proc.stdout + proc.stderr


def test_sim_medline_calibration_keys_in_the_schema():
    """target_m1_by_judge / calibration_tolerance: type-checked by the schema, the tolerance's default
    filled in for simulated graded panels only, and the per-judge targets checked before any job."""
    import copy

    import yaml

    from manyjudges.pipeline.workflow_support import check_config_schema

    from .runner import REPO

    schema = REPO / "workflow/schemas/config.schema.yaml"
    shipped = yaml.safe_load((REPO / "config/config.yaml").read_text())
    config = copy.deepcopy(shipped)
    check_config_schema(config, schema)
    sim = config["graded"]["datasets"]["sim_medline"]
    assert sim["target_m1_by_judge"] == "wilbur2011_table2" and "target_m1_ave" not in sim
    assert sim["calibration_tolerance"] == 0.0002
    paper = yaml.safe_load((REPO / "config/paper.yaml").read_text())
    check_config_schema(paper, schema)
    assert paper["graded"]["datasets"]["sim_medline"]["target_m1_by_judge"] == "wilbur2011_table2"
    assert "calibration_tolerance" not in paper["graded"]["datasets"]["adultcontent3"]
    for key, value, fragment in [("target_m1_by_judge", 12, "12 is not of type string or array or null"),
                                 ("target_m1_by_judge", [-7000, 5], "5"),
                                 ("calibration_tolerance", 0, "calibration_tolerance")]:
        bad = copy.deepcopy(shipped)
        bad["graded"]["datasets"]["sim_medline"][key] = value
        with pytest.raises(ValueError, match=fragment):
            check_config_schema(bad, schema)
    both = copy.deepcopy(shipped)
    both["graded"]["datasets"]["sim_medline"]["target_m1_ave"] = -7433
    check_config_schema(both, schema)
    with pytest.raises(ValueError, match="config: graded.datasets.sim_medline: target_m1_ave and "
                                         "target_m1_by_judge are both set"):
        check_config_references(both)


EXTRA_DATASET = {"truth": {"datasets": {"more_labels": {
    "source": "labels_table", "path": "data/labels.tsv", "truth": "data/labels_truth.tsv",
    "classes": ["bad", "fair", "good"]}}}}


def _extra_workdir(path):
    """The offline config as the default (config/config.yaml) and ``extra.yaml``: one more truth dataset only."""
    import yaml

    from .runner import offline_workdir

    work = offline_workdir(path)
    (work / "extra.yaml").write_text(yaml.safe_dump(EXTRA_DATASET))
    return work


def test_a_config_of_one_more_dataset_after_the_default_adds_its_jobs(tmp_path):
    """``--configfile config/config.yaml extra.yaml``: the two are merged key by key, so the default's
    truth datasets and methods stay and the extra dataset gets its truth jobs."""
    import re

    from .runner import run

    proc = run(_extra_workdir(tmp_path / "work"), "-n", "--configfile", "config/config.yaml", "extra.yaml")
    jobs = re.findall(r"^rule (\w+):\n(?:    .*\n)*?    wildcards: truth_dataset=(\w+)$", proc.stdout, flags=re.M)
    assert {rule for rule, dataset in jobs if dataset == "more_labels"} == {"truth_data", "truth_infer", "truth_figure"}
    assert {dataset for _, dataset in jobs} == {"sim_labels_tiny", "own_labels", "more_labels"}
    assert re.search(r"^ed_noise\s+\d+$", proc.stdout, flags=re.M)  # the rest of the default config too


def test_a_config_of_one_more_dataset_alone_names_the_fix_before_any_job(tmp_path):
    from .runner import run

    work = _extra_workdir(tmp_path / "work")
    proc = run(work, "--configfile", "extra.yaml", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert ("config: required key 'seed' is missing (a --configfile replaces the default config; to add to it, "
            "pass both: --configfile config/config.yaml extra.yaml)\n") in out
    assert not any((work / d).exists() for d in ("results", "logs", "data/processed"))


#: run Snakemake in a Python where the library does not import
_WITHOUT_THE_LIBRARY = """
import sys


class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "manyjudges":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, Hidden())
from snakemake.cli import main

sys.argv = ["snakemake", *sys.argv[1:]]
main()
"""


def test_without_the_library_the_run_says_how_to_install_it(tmp_path):
    import subprocess
    import sys

    from .runner import REPO, offline_workdir, snakemake_env

    work = offline_workdir(tmp_path / "work")
    proc = subprocess.run([sys.executable, "-c", _WITHOUT_THE_LIBRARY, "-s", str(REPO / "Snakefile"), "-n", "--cores",
                           "1"], capture_output=True, text=True, env=snakemake_env(), cwd=work)
    assert proc.returncode != 0
    assert ("the workflow runs the manyjudges library, which is not installed in this Python environment: "
            f"pip install -e '{REPO}[pipeline]'") in proc.stdout + proc.stderr


_SIM = {"source": "simulate", "n_models": 4, "n_prompts": 3, "panel": {"j": {}, "h": {}}, "reference": "h"}


@pytest.mark.parametrize("edit, fragments", [
    ({"baseline": "m9"}, ["arena.datasets.d", "baseline 'm9' is not one of its models (m01, m02, m03, m04)"]),
    ({"control": ["length"]}, ["arena.datasets.d", "control ['length']", "features none"]),
    ({"verbosity": -0.8, "control": ["length", "bold"]}, ["control ['bold']", "features ['length']"]),
    ({"panel": {"j": {"length": 1.0}, "h": {}}}, ["panel.j.length", "give verbosity"]),
    ({"reference": None, "human": 0.5}, ["arena.datasets.d", "human calibrates the panel", "give reference"]),
])
def test_the_arena_asks_are_checked_before_any_job(edit, fragments):
    from manyjudges.pipeline.config_checks import check_arena_config

    spec = {k: v for k, v in {**_SIM, **edit}.items() if v is not None}
    with pytest.raises(ValueError) as err:
        check_arena_config({"arena": {"datasets": {"d": spec}}})
    for fragment in fragments:
        assert fragment in str(err.value)
    check_arena_config({"arena": {"datasets": {"d": {**_SIM, "baseline": "m02", "verbosity": -0.8,
                                                     "control": ["length"], "human": 0.5}}}})
