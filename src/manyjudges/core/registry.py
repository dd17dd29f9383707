"""One registry mechanism for every family: built-in names and ``package.module:callable``.

A method is named the same way in the config, on the command line (``--method``) and in
Python: a built-in name of its family (``manyjudges methods`` lists them) or
``package.module:callable`` for your own code, plus a mapping of parameters. The callable
(a class or a factory) is called as ``factory(**params)`` and must return an object that
follows the family's method contract (``docs/methods.md``, "One method contract").

Parameters are checked against the factory's signature before anything is built, and
their values by the built object's ``_check_params()`` (the validation its ``fit`` runs
first), so a misspelled parameter or a bad value is rejected before any data is read
(:meth:`Registry.check`).
"""
from __future__ import annotations

import difflib
import functools
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Builtin", "Registry", "load_callable", "method_spec"]


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


@dataclass(frozen=True)
class Builtin:
    """A built-in method: the class (or factory) that makes it, one line on it, and its preset parameters.

    The presets are defaults that differ from the factory's, e.g. ``ac_tau`` is
    :class:`AverageCorrelation` with ``correlation="kendall"``; a config may still override them.
    """

    factory: Callable[..., Any]
    summary: str
    preset: Mapping[str, Any] = field(default_factory=dict)

    def parameters(self) -> dict[str, Any]:
        """Return every parameter a user may set, with its default (presets applied).

        A parameter without a default (the data of a plain function, e.g. an aggregator's rankings) is not
        one.
        """
        out: dict[str, Any] = {}
        for name, p in _signature(self.factory).parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or (p.default is p.empty and name not in self.preset):
                continue
            out[name] = self.preset.get(name, p.default)
        return out


def _signature(factory: Callable[..., Any]) -> inspect.Signature:
    """Return the factory's signature, cached per factory (the crowd sweep builds each method thousands of times)."""
    try:
        return _cached_signature(factory)
    except TypeError:  # an unhashable callable: not cached
        return _uncached_signature(factory)


@functools.lru_cache(maxsize=256)
def _cached_signature(factory: Callable[..., Any]) -> inspect.Signature:
    return _uncached_signature(factory)


def _uncached_signature(factory: Callable[..., Any]) -> inspect.Signature:
    try:
        return inspect.signature(factory)
    except (TypeError, ValueError):  # builtins without a signature: accept anything
        return inspect.Signature([inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)])


def _check_parameters(method: str, factory: Callable[..., Any], params: Mapping[str, Any],
                      preset: Mapping[str, Any]) -> None:
    signature = _signature(factory)
    accepts_any = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    if not accepts_any:
        known = [n for n, p in signature.parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        unknown = sorted(set(params) - set(known))
        if unknown:
            hint = _did_you_mean(unknown[0], dict.fromkeys(known))
            raise ValueError(f"method {method!r}: unknown parameter(s) {unknown}{hint}; "
                             f"it takes {', '.join(known) or 'no parameters'}")
    try:
        signature.bind(**{**preset, **params})
    except TypeError as err:
        raise ValueError(f"method {method!r}: bad parameters {dict(params)} ({err})") from None


class Registry:
    """The built-in methods of one family, and users' own through ``package.module:callable``.

    ``required``: the methods an object built here must have (the family's contract),
    checked on every build. ``aliases``: former parameter names still read on input (a config's
    ``params``, ``--param``), former name -> name; a method whose factory takes the former name
    itself keeps it.
    """

    def __init__(self, family: str, builtins: Mapping[str, Builtin], required: tuple[str, ...],
                 aliases: Mapping[str, str] | None = None) -> None:
        self.family = family
        self.builtins = dict(builtins)
        self.required = required
        self.aliases = dict(aliases or {})

    def _renamed(self, method: str, factory: Callable[..., Any], params: dict[str, Any]) -> dict[str, Any]:
        """``params`` with each former parameter name (:attr:`aliases`) read as its name."""
        taken = _signature(factory).parameters
        for old, new in self.aliases.items():
            if old in params and old not in taken and new in taken:
                if new in params:
                    raise ValueError(f"method {method!r}: give {new!r} or its former name {old!r}, not both")
                params[new] = params.pop(old)
        return params

    def __contains__(self, name: object) -> bool:
        return name in self.builtins

    def __iter__(self) -> Iterator[str]:
        return iter(self.builtins)

    def resolve(self, method: str) -> tuple[Callable[..., Any], dict[str, Any]]:
        """Return (factory, preset parameters) of a built-in name or ``package.module:callable``."""
        if method in self.builtins:
            entry = self.builtins[method]
            return entry.factory, dict(entry.preset)
        if ":" in method:
            return load_callable(method), {}
        raise ValueError(f"unknown {self.family} method {method!r}; built-ins: {', '.join(self.builtins)}; "
                         "or give 'package.module:callable'" + _did_you_mean(method, self.builtins))

    def parameter_default(self, method: str, parameter: str) -> Any:
        """Return the value ``parameter`` takes when a config entry of ``method`` does not set it.

        That is the built-in's preset, else the factory's signature default.
        """
        factory, preset = self.resolve(method)
        return preset.get(parameter, inspect.signature(factory).parameters[parameter].default)

    def check(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Raise ValueError naming the problem if ``method`` with ``params`` cannot be built.

        The problems: an unknown name, a module that does not import, a parameter the factory does not take,
        or a value its ``_check_params()`` rejects. Constructors only store parameters, so this is cheap.
        """
        self.build(method, params)

    def build(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """``factory(**{**preset, **params})``, checked against the family's contract and validated."""
        factory, preset = self.resolve(method)
        params = self._renamed(method, factory, dict(params or {}))
        _check_parameters(method, factory, params, preset)
        built = factory(**{**preset, **params})
        missing = [attr for attr in self.required if not callable(getattr(built, attr, None))]
        if missing:
            raise ValueError(f"method {method!r} returned {type(built).__name__}, which has no {missing[0]}(); "
                             f"methods of the {self.family} family need {', '.join(a + '()' for a in self.required)}")
        # the estimator contract's check (a truth method's covers the family's shared ``calibrate`` too)
        check = getattr(built, "_check_params", None)
        if callable(check):
            try:
                check()
            except (TypeError, ValueError) as err:  # a TypeError here is a value of the wrong type
                raise ValueError(f"method {method!r}: bad parameter value ({err}); "
                                 f"parameters given: {params}") from None
        return built

    def describe(self) -> list[dict[str, Any]]:
        """One row per built-in: name, summary, parameters with their defaults."""
        return [{"method": name, "summary": entry.summary, "parameters": entry.parameters()}
                for name, entry in self.builtins.items()]


def _did_you_mean(name: str, choices: Mapping[str, Any]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def method_spec(section: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Return {method, params} of a configured method entry (``method`` defaults to the entry's key)."""
    methods = section.get("methods") or {}
    if name not in methods:
        raise ValueError(f"method {name!r} is not configured; configured: {sorted(methods)}")
    entry = methods[name] or {}
    return {"method": entry.get("method", name), "params": dict(entry.get("params", {}) or {})}
