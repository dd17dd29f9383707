"""The conda environments say what pyproject.toml says."""
import tomllib

import yaml

from .runner import REPO

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _requirements(items) -> dict[str, str]:
    out = {}
    for item in items:
        if isinstance(item, str) and item not in ("pip",) and not item.startswith("python"):
            name = item.split(">")[0].split("=")[0].split("<")[0].split("[")[0].strip()
            out[name.lower()] = item.replace(" ", "")
    return out


def _extra(name: str) -> dict[str, str]:
    """The extra's requirements, with the extras of manyjudges it names (``manyjudges[figures]``) unfolded."""
    out = {}
    for item in PROJECT["optional-dependencies"][name]:
        if item.startswith("manyjudges["):
            for inner in item[len("manyjudges["):-1].split(","):
                out.update(_extra(inner.strip()))
        else:
            out.update(_requirements([item]))
    return out


def test_the_pipeline_extra_holds_the_figures_and_the_test_extra_the_pipeline():
    assert _extra("figures").keys() == {"matplotlib"}
    assert _extra("pipeline").keys() == {"matplotlib", "snakemake", "pygments"}
    assert _extra("pipeline").keys() <= _extra("test").keys()


def test_environment_yml_and_the_rules_environment_follow_pyproject():
    core = _requirements(PROJECT["dependencies"])
    assert not core.keys() & {"matplotlib", "snakemake", "pygments"}, "the library installs without the pipeline"
    conda = _requirements(yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"])
    rules = _requirements(yaml.safe_load((REPO / "workflow/envs/manyjudges.yaml").read_text())["dependencies"])
    # environment.yml runs the pipeline; a job needs the library and its figures, not Snakemake
    assert conda == core | _extra("pipeline")
    assert rules == core | _extra("figures")


def test_every_rule_uses_the_one_environment():
    text = "".join(p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))
    assert text.count("script:") == text.count('conda:\n') == text.count('"../envs/manyjudges.yaml"')
