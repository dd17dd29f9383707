"""Declared parameter constraints and their one check (the idea of scikit-learn's ``_parameter_constraints``).

A method declares, for each constructor parameter, the list of what its value may be
(:attr:`~manyjudges.core.estimator.Estimator._parameter_constraints`); a value is valid when it satisfies
one of them:

- :class:`Interval`: a number (``numbers.Real``) or an integer (``numbers.Integral``) between bounds;
  numpy's scalars are numbers, a bool is neither, NaN and infinities are not numbers here;
- :class:`Options`: one of a few strings;
- ``"boolean"``: True or False (numpy's too; not 0 or 1);
- ``None``: None;
- a type: an instance of it (``str``, ``collections.abc.Mapping``, a class of the library);
- :class:`Pair`: two values (a tuple, a list or an array), each within an :class:`Interval`;
- :class:`Satisfies`: a test of the value, with the words that say what it allows.

:func:`check_values` raises one message per kind of mistake, the same shape everywhere: the owner, the
parameter, what is allowed, what was given (``DawidSkene: max_iter must be an integer >= 1, got 0``).
A check that relates two parameters is written by hand after the declared ones, and raises
:func:`invalid`'s message of the same shape.

>>> from numbers import Integral
>>> check_values("Demo", {"n_iter": [Interval(Integral, 1, None)], "ties": [Options(("lowest", "first")), None]},
...              {"n_iter": 0, "ties": None})
Traceback (most recent call last):
...
ValueError: Demo: n_iter must be an integer >= 1, got 0
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, TypeAlias

import numpy as np

__all__ = ["BOOLEAN", "Constraint", "Interval", "Options", "Pair", "Satisfies", "check_values", "invalid"]

#: the constraint "True or False" (a bool or a numpy bool)
BOOLEAN = "boolean"

#: which ends of an :class:`Interval` belong to it
_CLOSED = ("both", "left", "right", "neither")

#: how a type constraint reads in a message (other types: "an instance of Name")
_TYPE_WORDS: dict[type, str] = {str: "a string", list: "a list", tuple: "a tuple", dict: "a mapping",
                                Mapping: "a mapping"}


def _number_text(x: float) -> str:
    return str(x) if isinstance(x, Integral) else f"{x:g}"


@dataclass(frozen=True)
class Interval:
    """Numbers of one ``kind`` (``numbers.Integral`` or ``numbers.Real``) from ``low`` to ``high``.

    A bound of None is no bound; ``closed`` says which ends belong to the interval: ``"both"`` (the
    default), ``"left"``, ``"right"`` or ``"neither"``.
    """

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.kind not in (Integral, Real):
            raise ValueError(f"an Interval's kind is numbers.Integral or numbers.Real, got {self.kind!r}")
        if self.closed not in _CLOSED:
            raise ValueError(f"an Interval's closed is one of {', '.join(_CLOSED)}, got {self.closed!r}")

    def allows(self, value: object) -> bool:
        """Whether ``value`` is a number of this kind (not a bool, finite) within the bounds."""
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, self.kind):
            return False
        if not isinstance(value, Integral) and not math.isfinite(value):  # type: ignore[arg-type]
            return False
        number: Any = value
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and not (number >= self.low if low_in else number > self.low):
            return False
        return self.high is None or bool(number <= self.high if high_in else number < self.high)

    def text(self, plural: bool = False) -> str:
        """Return what it allows in words: ``"an integer >= 1"``, ``"a number in (0, 1)"``, plural ``"numbers ..."``."""
        if self.kind is Integral:
            noun = "integers" if plural else "an integer"
        else:
            noun = "numbers" if plural else "a number"
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return (f"{noun} in {'[' if low_in else '('}{_number_text(self.low)}, "
                    f"{_number_text(self.high)}{']' if high_in else ')'}")
        if self.low is not None:
            return f"{noun} {'>=' if low_in else '>'} {_number_text(self.low)}"
        if self.high is not None:
            return f"{noun} {'<=' if high_in else '<'} {_number_text(self.high)}"
        return noun


class Options:
    """One of a few strings (a set's are kept sorted, a sequence's in its order, for the message)."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values = tuple(sorted(values)) if isinstance(values, (set, frozenset)) else tuple(values)

    def allows(self, value: object) -> bool:
        """Whether ``value`` is one of the strings."""
        return isinstance(value, str) and value in self.values

    def text(self) -> str:
        """Return ``"'a'"`` for one string, ``"one of 'a', 'b'"`` for more."""
        quoted = ", ".join(map(repr, self.values))
        return quoted if len(self.values) == 1 else f"one of {quoted}"

    def __repr__(self) -> str:
        return f"Options({self.values!r})"


@dataclass(frozen=True)
class Pair:
    """Two values (a tuple, a list or an array of two), each allowed by ``of``."""

    of: Interval

    def allows(self, value: object) -> bool:
        """Whether ``value`` holds two values, each in :attr:`of`."""
        if not isinstance(value, (tuple, list, np.ndarray)) or len(value) != 2:
            return False
        return all(self.of.allows(v) for v in value)

    def text(self) -> str:
        """Return ``"a pair of numbers >= 1"``."""
        return f"a pair of {self.of.text(plural=True)}"


@dataclass(frozen=True)
class Satisfies:
    """A value for which ``test(value)`` is true; ``description`` says what that allows (``"a list of names"``)."""

    test: Callable[[Any], bool]
    description: str

    def allows(self, value: object) -> bool:
        """Whether the test passes."""
        return bool(self.test(value))

    def text(self) -> str:
        """Return the description."""
        return self.description


#: one of what a parameter may be (module docstring)
Constraint: TypeAlias = Interval | Options | Pair | Satisfies | type | str | None


def _allows(constraint: Constraint, value: object) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, str):
        if constraint != BOOLEAN:
            raise ValueError(f"unknown constraint {constraint!r} (the string constraint is {BOOLEAN!r})")
        return isinstance(value, (bool, np.bool_))
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.allows(value)


def _text(constraint: Constraint) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return "true or false"
    if isinstance(constraint, type):
        return _TYPE_WORDS.get(constraint, f"an instance of {constraint.__name__}")
    return constraint.text()


def _allowed_text(constraints: Sequence[Constraint]) -> str:
    """Return what ``constraints`` allow, in words: ``"an integer >= 1 or None"``."""
    words = [_text(c) for c in constraints]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def invalid(owner: str, name: str, allowed: str, value: object) -> ValueError:
    """Return the one message of a bad value: ``"{owner}: {name} must be {allowed}, got {value!r}"``."""
    return ValueError(f"{owner}: {name} must be {allowed}, got {value!r}")


def check_values(owner: str, constraints: Mapping[str, Sequence[Constraint]], values: Mapping[str, Any]) -> None:
    """Raise :func:`invalid`'s ValueError for the first value of ``values`` that none of its constraints allow.

    Parameters
    ----------
    owner : str
        Who takes the values, named first in the message (a class's name).
    constraints : mapping of str to sequence of constraints
        Per parameter, what it may be (module docstring); a parameter without constraints is not checked.
    values : mapping of str to object
        The values, by parameter name; each constrained parameter must have one.
    """
    for name, allowed in constraints.items():
        value = values[name]
        if not any(_allows(c, value) for c in allowed):
            raise invalid(owner, name, _allowed_text(allowed), value)
