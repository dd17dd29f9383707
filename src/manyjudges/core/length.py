"""A read-only attribute that is the length of another: ``n_items = LengthOf("items")`` reads ``len(self.items)``.

The coded data of every family (labels, judgments, cells, verdicts) name their sizes ``n_...``; each is the
length of one of its arrays, declared in one line beside them (a ``#:`` comment above it is its docstring).
"""
from __future__ import annotations

from typing import overload

__all__ = ["LengthOf"]


class LengthOf:
    """A read-only attribute of a class: ``len`` of the instance's attribute ``attribute``.

    Parameters
    ----------
    attribute : str
        The name of the attribute whose length it is.
    """

    def __init__(self, attribute: str) -> None:
        self.attribute = attribute
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> LengthOf: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> int: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> LengthOf | int:
        if instance is None:
            return self
        return len(getattr(instance, self.attribute))

    def __set__(self, instance: object, value: object) -> None:
        raise AttributeError(f"{self.name} is len({self.attribute}): it cannot be set")
