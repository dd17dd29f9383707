"""The estimator rules every family's methods follow (scikit-learn's, so its tools accept them).

- The constructor takes the parameters by keyword, each with a default, and only stores them,
  unchanged, under their own names; it validates nothing. The class declares what each may be in
  ``_parameter_constraints`` (:mod:`manyjudges.core.parameters`), and ``_check_params()`` checks them
  (``fit`` calls it first, and the registry at build time, so a bad value fails before any data
  is read). A check that relates two parameters is a small override of ``_check_params`` that calls
  ``super()._check_params()`` first.
- :meth:`Estimator.get_params` / :meth:`Estimator.set_params` read and set them by the
  constructor's signature, so ``sklearn.base.clone(method)`` builds an unfitted copy with the same
  parameters, and ``repr`` shows those that differ from their defaults.
- ``fit(...)`` returns self; what it learns is stored in attributes ending in ``_``, set by the
  estimator itself and nowhere else. A method that needs them before ``fit`` raises
  :class:`NotFittedError` (:func:`check_is_fitted`).

A family's base class (:class:`~manyjudges.orderings.base.OrderingScorer`,
:class:`~manyjudges.graded.base.GradedMethod`, :class:`~manyjudges.crowd.base.CrowdAggregator`,
:class:`~manyjudges.truth.base.TruthEstimator`) adds its ``fit`` and what it predicts.
"""
from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any, ClassVar

from manyjudges.core.parameters import Constraint, check_values

__all__ = ["Estimator", "NotFittedError", "check_is_fitted"]


class NotFittedError(ValueError, AttributeError):
    """An estimator was used before ``fit`` (both a ValueError and an AttributeError, as scikit-learn's)."""


def check_is_fitted(estimator: object, attributes: str | Iterable[str]) -> None:
    """Raise :class:`NotFittedError` unless ``estimator`` has every fitted attribute named in ``attributes``.

    Parameters
    ----------
    estimator : object
        The estimator whose method is about to read its fitted attributes.
    attributes : str or iterable of str
        The fitted attribute(s) the method needs (names ending in ``_``).

    Raises
    ------
    NotFittedError
        Naming the estimator's class and the call to make first.
    """
    names = [attributes] if isinstance(attributes, str) else list(attributes)
    if not all(name in vars(estimator) for name in names):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet: call fit with "
                             "its data before using this method")


def _same(a: object, b: object) -> bool:
    """Return ``a == b`` as one bool; identity where the comparison is not a bool (arrays, odd types)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


class Estimator:
    """Base class: parameters from the constructor's signature (``get_params``, ``set_params``, ``repr``)."""

    #: what each constructor parameter may be (:mod:`manyjudges.core.parameters`); a parameter not named is not
    #: checked
    _parameter_constraints: ClassVar[dict[str, list[Constraint]]] = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        """Return the constructor's parameter names, in order (``*args`` and ``**kwargs`` are not parameters)."""
        signature = inspect.signature(cls.__init__)
        return [name for name, p in signature.parameters.items()
                if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Return the constructor's parameters and their values (scikit-learn's ``get_params``).

        No parameter is itself an estimator, so ``deep`` changes nothing.
        """
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params: Any) -> Estimator:
        """Set constructor parameters by name (an unknown name is a ValueError); returns self."""
        valid = self._param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(f"{type(self).__name__} has no parameter {name!r} (it has: {', '.join(valid)})")
            setattr(self, name, value)
        return self

    def _check_params(self) -> None:
        """Check every parameter against :attr:`_parameter_constraints` (the constructor only stores them).

        Raises
        ------
        ValueError
            ``"{class}: {parameter} must be {what is allowed}, got {value!r}"``, for the first parameter no
            constraint of its own allows.
        """
        check_values(type(self).__name__, self._parameter_constraints,
                     {name: getattr(self, name) for name in self._parameter_constraints})

    def __repr__(self) -> str:
        """``Name(p=value, ...)`` with the parameters that differ from the constructor's defaults."""
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if not _same(v, defaults.get(k))]
        return f"{type(self).__name__}({', '.join(changed)})"
