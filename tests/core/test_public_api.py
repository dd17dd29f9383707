"""The public names import from the family packages; one registry mechanism serves every family."""
import doctest
import importlib

import pytest

import manyjudges
from manyjudges.core.registry import Builtin, Registry

#: each family and its package (the arena's is inside crowd's: it runs the crowd family's leaderboard)
PACKAGES = {"orderings": "manyjudges.orderings", "consensus": "manyjudges.consensus", "graded": "manyjudges.graded",
            "crowd": "manyjudges.crowd", "truth": "manyjudges.truth", "arena": "manyjudges.arena"}
FAMILIES = list(PACKAGES)


def test_documented_imports():
    from manyjudges.consensus import consensus_measure
    from manyjudges.crowd import BradleyTerry, CrowdAgg
    from manyjudges.graded import M4, cross_induction
    from manyjudges.orderings import FreSPA, evaluation_discriminativeness

    for thing in (consensus_measure, BradleyTerry, CrowdAgg, M4, cross_induction, FreSPA,
                  evaluation_discriminativeness):
        assert callable(thing)


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_exports_all_and_a_registry(family):
    module = importlib.import_module(PACKAGES[family])
    assert module.__all__, family
    for name in module.__all__:
        assert hasattr(module, name), (family, name)
    assert isinstance(module.registry, Registry)
    for name in module.registry:  # every built-in resolves and describes itself
        factory, _ = module.registry.resolve(name)
        assert callable(factory)
    assert all(row["summary"] for row in module.registry.describe())


@pytest.mark.parametrize("family", FAMILIES)
def test_package_docstring_examples_run(family):
    module = importlib.import_module(PACKAGES[family])
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_top_level_help_lists_the_families():
    assert set(manyjudges.FAMILIES) == set(FAMILIES)
    for package in PACKAGES.values():
        assert package in manyjudges.__doc__


def test_the_library_never_imports_workflow_glue():
    import subprocess
    import sys

    code = ("import sys, manyjudges.cli, manyjudges.orderings, manyjudges.consensus, manyjudges.graded, "
            "manyjudges.crowd, manyjudges.pipeline.reproduction; "
            "print('manyjudges.pipeline.workflow_support' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


class Toy:
    def __init__(self, alpha: float = 1.0, beta: str = "x"):
        self.alpha, self.beta = alpha, beta

    def fit(self, data):
        return self


TOYS = Registry("toy", {"toy": Builtin(Toy, "a toy"), "toy_b": Builtin(Toy, "preset beta", {"beta": "b"})}, ("fit",))


def test_registry_checks_parameters_before_building():
    TOYS.check("toy", {"alpha": 2})
    with pytest.raises(ValueError, match=r"unknown parameter.*'alpah'.*did you mean 'alpha'"):
        TOYS.check("toy", {"alpah": 2})
    with pytest.raises(ValueError, match=r"unknown toy method 'tyo'.*did you mean 'toy'"):
        TOYS.check("tyo")
    with pytest.raises(ValueError, match="cannot import module"):
        TOYS.check("no_such_module_xyz:Toy")


def test_registry_presets_are_defaults_a_config_may_override():
    assert TOYS.build("toy_b").beta == "b"
    assert TOYS.build("toy_b", {"beta": "c"}).beta == "c"
    assert TOYS.describe()[1]["parameters"] == {"alpha": 1.0, "beta": "b"}


def test_registry_checks_the_contract():
    no_fit = Registry("toy", {"bad": Builtin(dict, "no fit")}, ("fit",))
    with pytest.raises(ValueError, match=r"has no fit\(\)"):
        no_fit.build("bad")
