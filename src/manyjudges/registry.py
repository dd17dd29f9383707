"""Method registry: built-in names, and ``package.module:callable`` for users' own code.

A config entry ``{method: <name or module:callable>, params: {...}}`` becomes a scorer
with :func:`make_ordering_scorer`. A user's callable is called as ``factory(**params)``
and must return a scorer: a callable taking the gold rank matrix ``(n, k)`` and returning
a function from a ``(c, k)`` rank matrix of candidates to ``c`` scores.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

import numpy as np

from .consensus import ConsensusScorer
from .orderings.frespa import FreSPA
from .orderings.scorers import AverageCorrelation, RankBasedAggregation, WeightedCorrelationAverage

ORDERING_SCORERS: dict[str, tuple[Callable[..., Any], dict[str, Any]]] = {
    "ac_tau": (AverageCorrelation, {"correlation": "kendall"}),
    "ac_sp": (AverageCorrelation, {"correlation": "spearman"}),
    "wca_tau": (WeightedCorrelationAverage, {"correlation": "kendall"}),
    "wca_sp": (WeightedCorrelationAverage, {"correlation": "spearman"}),
    "rba_tau": (RankBasedAggregation, {"correlation": "kendall"}),
    "rba_sp": (RankBasedAggregation, {"correlation": "spearman"}),
    "frespa": (FreSPA, {}),
    "consensus": (ConsensusScorer, {}),
}


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``package.module:callable``; errors say what was wrong with the spec."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"method {spec!r} is neither a built-in name nor of the form 'package.module:callable'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ValueError(f"method {spec!r}: cannot import module {module_name!r} ({err})") from err
    try:
        obj = module
        for part in attr.split("."):
            obj = getattr(obj, part)
    except AttributeError:
        raise ValueError(f"method {spec!r}: module {module_name!r} has no attribute {attr!r}") from None
    if not callable(obj):
        raise ValueError(f"method {spec!r} is not callable")
    return obj


def build_method(method: str, params: dict[str, Any] | None, builtins: Mapping[str, Callable[..., Any]],
                 family: str, required: tuple[str, ...] = ()) -> Any:
    """``factory(**params)`` for a built-in name or ``package.module:callable``.

    Errors name what was wrong: an unknown name (listing the built-ins), parameters the factory
    does not take, or a returned object lacking one of the ``required`` methods.
    """
    params = dict(params or {})
    if method in builtins:
        factory = builtins[method]
    elif ":" in method:
        factory = load_callable(method)
    else:
        raise ValueError(f"unknown {family} method {method!r}; built-ins: {', '.join(builtins)}; "
                         "or give 'package.module:callable'")
    try:
        built = factory(**params)
    except TypeError as err:
        raise ValueError(f"method {method!r}: bad parameters {params} ({err})") from err
    for attr in required:
        if not callable(getattr(built, attr, None)):
            raise ValueError(f"method {method!r} returned {type(built).__name__}, which has no {attr}()")
    return built


class _CheckedScorer:
    """Wraps a user scorer so a wrong return shape fails with a clear message."""

    def __init__(self, name: str, scorer: Callable[[np.ndarray], Callable[[np.ndarray], np.ndarray]]):
        self.name, self.scorer = name, scorer

    def __call__(self, gold: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        fn = self.scorer(gold)

        def score(candidates: np.ndarray) -> np.ndarray:
            out = np.asarray(fn(candidates), dtype=float).reshape(-1)
            if out.shape != (len(candidates),):
                raise ValueError(f"scorer {self.name!r} returned {out.shape} scores for {len(candidates)} candidates")
            return out

        return score


def make_ordering_scorer(method: str, params: dict[str, Any] | None = None) -> Any:
    """Build an ordering scorer from a registry name or ``module:callable`` and params."""
    params = dict(params or {})
    if method in ORDERING_SCORERS:
        cls, defaults = ORDERING_SCORERS[method]
        try:
            return cls(**{**defaults, **params})
        except TypeError as err:
            raise ValueError(f"method {method!r}: bad parameters {params} ({err})") from err
    if ":" not in method:
        raise ValueError(f"unknown ordering method {method!r}; built-ins: {', '.join(ORDERING_SCORERS)}; or give 'package.module:callable'")
    factory = load_callable(method)
    return _CheckedScorer(method, factory(**params))
