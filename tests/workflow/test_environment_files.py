"""The conda environments say what pyproject.toml says."""
import tomllib

import yaml

from .runner import REPO

# needed by the Snakemake process, not inside a job
NOT_IN_JOBS = {"snakemake", "pygments"}


def _requirements(items) -> dict[str, str]:
    out = {}
    for item in items:
        if isinstance(item, str) and item not in ("pip",) and not item.startswith("python"):
            name = item.split(">")[0].split("=")[0].split("<")[0].strip()
            out[name.lower()] = item.replace(" ", "")
    return out


def test_environment_yml_and_the_rules_environment_follow_pyproject():
    project = _requirements(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    conda = _requirements(yaml.safe_load((REPO / "environment.yml").read_text())["dependencies"])
    rules = _requirements(yaml.safe_load((REPO / "workflow/envs/manyjudges.yaml").read_text())["dependencies"])
    assert conda == project
    assert rules == {k: v for k, v in project.items() if k not in NOT_IN_JOBS}


def test_every_rule_uses_the_one_environment():
    text = "".join(p.read_text() for p in (REPO / "workflow/rules").glob("*.smk"))
    assert text.count("script:") == text.count('conda:\n') == text.count('"../envs/manyjudges.yaml"')
