"""A crowd method's ``skill`` parameter, read under its former name ``quality`` on input (a config, --param)."""
import pytest

from manyjudges import build_method
from manyjudges.crowd.registry import _CROWD_METHODS


@pytest.mark.parametrize("name", ["crowdagg_ndcg", "crowd_bt", "mpm", "em_elo_rating"])
def test_the_former_name_quality_reads_as_skill(name):
    assert build_method("crowd", name, quality=False).skill is False
    old = build_method("crowd", name, quality=False)
    assert build_method("crowd", name, skill=False).get_params() == old.get_params()
    assert "quality" not in build_method("crowd", name).get_params()
    with pytest.raises(ValueError, match="give 'skill' or its former name 'quality', not both"):
        _CROWD_METHODS.check(name, {"skill": True, "quality": False})
    with pytest.raises(ValueError, match="skill must be true or false"):
        _CROWD_METHODS.check(name, {"quality": "false"})


def test_a_method_without_skill_still_rejects_quality():
    with pytest.raises(ValueError, match="unknown parameter"):
        build_method("crowd", "borda", quality=False)
