"""A reading's explanation of its default, with one option and with several."""
from manyjudges.reporting.readings import Reading


def reading(distances, default="a"):
    return Reading(choice="c", config_key="k", tested_on="t", distances=distances, default=default)


def test_a_reading_with_one_option_is_simply_the_closest():
    assert reading({"a": 0.5}).why() == "closest to the paper"


def test_a_reading_says_how_much_closer_its_default_is():
    assert reading({"a": 0.5, "b": 1.0}).why() == "closest to the paper (2.0x closer than the next)"
    assert reading({"a": 0.5, "b": None}).why() == "the other reading was not computed in this run"
    assert reading({"a": 1.0, "b": 0.5}).why() == "not the closest here: `b` is"
