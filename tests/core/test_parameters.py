"""The declared parameter constraints (manyjudges.core.parameters): the checker against a direct test of each
constraint kind, its one message shape, and every method of every built-in family declaring each of its
constructor's parameters."""
import inspect
import math
from collections.abc import Mapping
from numbers import Integral, Real

import numpy as np
import pytest

from manyjudges import family_registry
from manyjudges.core.estimator import Estimator
from manyjudges.core.parameters import BOOLEAN, Interval, Options, Pair, Satisfies, _allowed_text, check_values
from manyjudges.families import BUILT_IN

#: values of every kind the constraints tell apart
VALUES = [0, 1, 2, -1, 3, 10**30, 0.0, 0.5, 1.0, 2.5, -0.5, 1e-300, True, False, np.int64(3), np.int32(0),
          np.uint8(1), np.float64(0.5), np.float32(2.0), np.bool_(True), np.bool_(False), math.nan, math.inf,
          -math.inf, np.float64("nan"), None, "a", "b", "c", "1", "", [1, 2], (0.5, 0.7), (1.0, 1.0), [2.0, 1],
          (0.5,), (1, 2, 3), np.array([2.0, 3.0]), np.array([0.0, 3.0]), [True, 2], {"a": 1}, [], ["x", "y"], ("x",),
          [1, "x"], object()]


def integer(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def number(v) -> bool:
    return (integer(v) or isinstance(v, (float, np.floating))) and math.isfinite(v)


def pair(v, each) -> bool:
    return isinstance(v, (tuple, list, np.ndarray)) and len(v) == 2 and all(each(x) for x in v)


def names(v) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


#: (constraints, the same test written out directly, the words of what they allow)
CASES = [
    ([Interval(Integral, 1, None)], lambda v: integer(v) and v >= 1, "an integer >= 1"),
    ([Interval(Integral, 0, None)], lambda v: integer(v) and v >= 0, "an integer >= 0"),
    ([Interval(Integral)], integer, "an integer"),
    ([Interval(Integral, 1, 3, closed="right")], lambda v: integer(v) and 1 < v <= 3, "an integer in (1, 3]"),
    ([Interval(Real, 0, None)], lambda v: number(v) and v >= 0, "a number >= 0"),
    ([Interval(Real, 0, None, closed="neither")], lambda v: number(v) and v > 0, "a number > 0"),
    ([Interval(Real, 0, 1, closed="neither")], lambda v: number(v) and 0 < v < 1, "a number in (0, 1)"),
    ([Interval(Real, 0, 1)], lambda v: number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    ([Interval(Real, -1, 1, closed="left")], lambda v: number(v) and -1 <= v < 1, "a number in [-1, 1)"),
    ([Interval(Real, None, 1, closed="neither")], lambda v: number(v) and v < 1, "a number < 1"),
    ([Interval(Real, None, 0.5)], lambda v: number(v) and v <= 0.5, "a number <= 0.5"),
    ([Interval(Real)], number, "a number"),
    ([Options(("a", "b"))], lambda v: isinstance(v, str) and v in ("a", "b"), "one of 'a', 'b'"),
    ([Options({"b", "a"})], lambda v: isinstance(v, str) and v in ("a", "b"), "one of 'a', 'b'"),
    ([Options(("a",)), None], lambda v: v is None or (isinstance(v, str) and v == "a"), "'a' or None"),
    ([BOOLEAN], lambda v: isinstance(v, (bool, np.bool_)), "true or false"),
    ([None], lambda v: v is None, "None"),
    ([Interval(Integral, 1, None), None], lambda v: v is None or (integer(v) and v >= 1), "an integer >= 1 or None"),
    ([str, None], lambda v: v is None or isinstance(v, str), "a string or None"),
    ([Mapping, None], lambda v: v is None or isinstance(v, dict), "a mapping or None"),
    ([np.ndarray], lambda v: isinstance(v, np.ndarray), "an instance of ndarray"),
    ([Pair(Interval(Real, 1, None))], lambda v: pair(v, lambda x: number(x) and x >= 1), "a pair of numbers >= 1"),
    ([Pair(Interval(Real, 0, 1, closed="neither"))], lambda v: pair(v, lambda x: number(x) and 0 < x < 1),
     "a pair of numbers in (0, 1)"),
    ([Satisfies(names, "a list of names"), None], lambda v: v is None or names(v), "a list of names or None"),
    ([None, Options(("auto",)), Mapping],
     lambda v: v is None or (isinstance(v, str) and v == "auto") or isinstance(v, dict), "None, 'auto' or a mapping"),
    ([Options(("empirical",)), Interval(Real, 0, None, closed="neither")],
     lambda v: (isinstance(v, str) and v == "empirical") or (number(v) and v > 0), "'empirical' or a number > 0"),
]


@pytest.mark.parametrize("constraints, expected, words", CASES, ids=[c[2] for c in CASES])
def test_the_checker_allows_what_the_direct_test_allows(constraints, expected, words):
    assert _allowed_text(constraints) == words
    for value in VALUES:
        try:
            check_values("Owner", {"p": constraints}, {"p": value})
            allowed = True
        except ValueError as err:
            allowed = False
            assert str(err) == f"Owner: p must be {words}, got {value!r}"
        assert allowed == bool(expected(value)), value


def test_bools_are_not_integers_and_integers_are_not_bools():
    for value in (True, False, np.bool_(True)):
        with pytest.raises(ValueError, match="must be an integer >= 0"):
            check_values("Owner", {"n": [Interval(Integral, 0, None)]}, {"n": value})
        with pytest.raises(ValueError, match="must be a number"):
            check_values("Owner", {"x": [Interval(Real)]}, {"x": value})
    for value in (0, 1, np.int64(1)):
        with pytest.raises(ValueError, match="must be true or false"):
            check_values("Owner", {"flag": [BOOLEAN]}, {"flag": value})


def test_the_first_value_no_constraint_allows_is_named_and_the_others_are_not_checked():
    constraints = {"a": [Interval(Integral, 1, None)], "b": [Options(("x",))]}
    with pytest.raises(ValueError, match=r"^Owner: b must be 'x', got 'y'$"):
        check_values("Owner", constraints, {"a": 1, "b": "y", "c": "anything"})
    with pytest.raises(ValueError, match=r"^Owner: a must be an integer >= 1, got 0\.5$"):
        check_values("Owner", constraints, {"a": 0.5, "b": "y"})


def test_a_constraint_that_is_not_one_is_refused():
    with pytest.raises(ValueError, match="kind"):
        Interval(float, 0, 1)
    with pytest.raises(ValueError, match="closed"):
        Interval(Real, 0, 1, closed="open")
    with pytest.raises(ValueError, match="unknown constraint 'bool'"):
        check_values("Owner", {"p": ["bool"]}, {"p": True})


def test_an_estimator_checks_its_declared_parameters_and_a_relation_after_them():
    class Demo(Estimator):
        _parameter_constraints = {"n_iter": [Interval(Integral, 1, None)], "low": [Interval(Real)],
                                  "high": [Interval(Real)]}

        def __init__(self, n_iter=10, low=0.0, high=1.0):
            self.n_iter, self.low, self.high = n_iter, low, high

        def _check_params(self):
            super()._check_params()
            if not self.low < self.high:
                raise ValueError("low must be below high")

    Demo()._check_params()
    with pytest.raises(ValueError, match=r"^Demo: n_iter must be an integer >= 1, got 0$"):
        Demo(n_iter=0, low=2.0)._check_params()
    with pytest.raises(ValueError, match="low must be below high"):
        Demo(low=2.0)._check_params()


METHODS = [(family.name, name, family_registry(family.name).builtins[name].factory) for family in BUILT_IN
           for name in family_registry(family.name)]


@pytest.mark.parametrize("family, name, factory", METHODS, ids=[f"{f}-{n}" for f, n, _ in METHODS])
def test_every_built_in_method_declares_each_constructor_parameter(family, name, factory):
    assert issubclass(factory, Estimator)
    assert sorted(factory._parameter_constraints) == sorted(factory._param_names())
    for constraints in factory._parameter_constraints.values():
        assert constraints and isinstance(constraints, list)


def estimator_classes() -> list[type]:
    for family in BUILT_IN:
        family.module()
    out, todo = [], [Estimator]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("manyjudges.") and not inspect.isabstract(cls):
            out.append(cls)
    return sorted(set(out), key=lambda c: f"{c.__module__}.{c.__qualname__}")


@pytest.mark.parametrize("cls", estimator_classes(), ids=lambda c: c.__qualname__)
def test_every_estimator_of_the_library_declares_each_constructor_parameter(cls):
    declared, params = set(cls._parameter_constraints), set(cls._param_names())
    assert params <= declared
    # a base class may declare what its subclasses take: as a class attribute (the truth family's calibrate),
    # or, for a base holding only the constraints (CrowdBTParams), as a parameter of every subclass
    missing = {name for name in declared - params if not hasattr(cls, name)}
    if missing:
        subclasses = cls.__subclasses__()
        assert "__init__" not in vars(cls) and subclasses
        assert all(missing <= set(sub._param_names()) for sub in subclasses)
