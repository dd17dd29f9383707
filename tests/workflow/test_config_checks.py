"""Configured methods are checked before any job: the key path, the method and the problem in one message."""
import pytest

from manyjudges.workflow_support import check_config_methods


@pytest.mark.parametrize("config, fragments", [
    ({"orderings": {"methods": {"ac_tua": {}}}}, ["orderings.methods.ac_tua", "did you mean 'ac_tau'"]),
    ({"orderings": {"methods": {"strict": {"method": "frespa", "params": {"min_supp": 1}}}}},
     ["orderings.methods.strict", "'min_supp'", "did you mean 'min_sup'"]),
    ({"orderings": {"methods": {"strict": {"method": "frespa", "params": {"min_sup": 3}}}}},
     ["orderings.methods.strict", "min_sup must be in [0, 1]"]),
    ({"graded": {"methods": {"m4": {"params": {"predictive": "wide"}}}}}, ["graded.methods.m4", "predictive"]),
    ({"crowd": {"methods": {"mine": {"method": "no_such_module_xyz:Agg"}}}}, ["crowd.methods.mine", "cannot import"]),
    ({"crowd": {"methods": {"mpm_eq": {"method": "mpm", "params": {"quality": "false"}}}}},
     ["crowd.methods.mpm_eq", "quality must be true or false"]),
    ({"consensus": {"aggregation": {"aggregators": ["bordaa"]}}}, ["consensus.aggregation.aggregators", "'bordaa'"]),
])
def test_a_bad_method_is_reported_before_any_job(config, fragments):
    with pytest.raises(ValueError) as err:
        check_config_methods(config)
    for fragment in fragments:
        assert fragment in str(err.value)


def test_the_shipped_configs_pass():
    import yaml
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    for name in ("config.yaml", "paper.yaml"):
        check_config_methods(yaml.safe_load((repo / "config" / name).read_text()))
