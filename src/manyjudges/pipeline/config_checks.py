"""The config's checks, run by the pipeline before any job.

:func:`validate`, which the Snakefile calls, runs them all: the former names of keys renamed
(:func:`~manyjudges.pipeline.config_aliases._rename_config_aliases`), the schema
(:func:`manyjudges.pipeline.workflow_support.check_config_schema`, its defaults filled in), then these checks:
every configured method can be built (:func:`check_config_methods`), and each family's section names only what
is configured (:func:`check_config_references`, which runs each family's
:attr:`~manyjudges.families.Family.config_check`: the built-in families' ``check_<family>_config`` here).

Nothing in the library imports this module.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from manyjudges import family_registry
from manyjudges.core.registry import method_spec
from manyjudges.families import families
from manyjudges.pipeline.config_aliases import _rename_config_aliases
from manyjudges.pipeline.job_plan import BATCH_JOB, entry_jobs
from manyjudges.pipeline.reading_plan import _check_sweep_readings
from manyjudges.pipeline.workflow_support import all_datasets, check_config_schema
from manyjudges.truth.scenarios import DEFAULT_SCENARIO, scenario_options

__all__ = ["check_arena_config", "check_config_methods", "check_config_references", "check_consensus_config",
           "check_crowd_config", "check_graded_config", "check_orderings_config", "check_truth_config", "validate"]

#: the default config, which a ``--configfile`` replaces
DEFAULT_CONFIG = "config/config.yaml"


def validate(config: MutableMapping[str, Any], schema: str | Path, configfiles: Iterable[str | Path] = ()) -> None:
    """Check the whole config before any job, in place, as ``snakemake.utils.validate`` does.

    A former name of a key is renamed first (said once on stderr). Then the schema: a mistake stops the
    run in a few lines naming each key path (an unknown key with the nearest known key, a missing key with
    the typo that stands for it, a wrong type or value); a valid config gets the schema's defaults filled
    in. Then the cross-references (:func:`check_config_references`) and every configured method
    (:func:`check_config_methods`).

    Parameters
    ----------
    config : mutable mapping
        The whole config, as Snakemake loaded it.
    schema : str or path
        The main schema, ``workflow/schemas/config.schema.yaml``: each family's section is a ``$ref`` to
        its own schema (:func:`~manyjudges.pipeline.workflow_support.load_schema`).
    configfiles : iterable of str or path
        The ``--configfile`` files given (Snakemake's ``workflow.overwrite_configfiles``). Given without
        the default config, they replace it: a missing top-level key then says how to add to it instead.

    Raises
    ------
    ValueError
        On the first kind of mistake found, naming every key path of that kind (up to three).
    """
    for renamed in _rename_config_aliases(config):
        print(f"config: {renamed} (a former name, still read)", file=sys.stderr)
    given = [os.path.relpath(f) if not os.path.relpath(f).startswith("..") else str(f) for f in configfiles]
    replaced = given and not any(os.path.abspath(f) == os.path.abspath(DEFAULT_CONFIG) for f in given)
    hint = (f"a --configfile replaces the default config; to add to it, pass both: --configfile {DEFAULT_CONFIG} "
            f"{' '.join(given)}") if replaced else None
    check_config_schema(config, schema, missing_hint=hint)
    check_config_references(config)
    check_config_methods(config)


def check_config_methods(config: Mapping[str, Any]) -> None:
    """Fail before any job when a configured method cannot be built.

    That is: an unknown name, a module that does not import, a parameter the method does not take or a value
    it rejects (each family's section lists its methods under ``methods``; other places a family names
    methods, its own config check).
    """
    for section in families():
        registry = family_registry(section)
        for name in (config.get(section) or {}).get("methods") or {}:
            spec = method_spec(config[section], name)
            try:
                registry.check(spec["method"], spec["params"])
            except ValueError as err:
                raise ValueError(f"config: {section}.methods.{name}: {err}") from None


def _check_batch(config: Mapping[str, Any], section: str) -> None:
    """Check that ``<section>.batch`` names configured methods that run in one job each (no ``jobs: N > 1``).

    And that no method is itself named like the batch job.
    """
    entries = config.get(section) or {}
    methods = entries.get("methods") or {}
    batch = list(entries.get("batch") or [])
    unknown = sorted(set(batch) - set(methods))
    if unknown:
        raise ValueError(f"config: {section}.batch names methods {unknown} that are not configured; "
                         f"configured: {sorted(methods)}")
    split = [m for m in batch if entry_jobs(entries, m) > 1]
    if split:
        raise ValueError(f"config: {section}.batch: {split} split into several jobs (jobs > 1); a batched method runs "
                         "in the one batch job: drop it from batch or drop its jobs key")
    if batch and BATCH_JOB in methods:
        raise ValueError(f"config: {section}.methods.{BATCH_JOB}: the name of the batch job; rename the method")


def check_config_references(config: Mapping[str, Any]) -> None:
    """Fail early, and clearly, when a section names what is not configured (a dataset, a method).

    Each family's own check runs (:attr:`~manyjudges.families.Family.config_check`), in the families' order.
    """
    for family in families().values():
        family.check_config(config)


def check_orderings_config(config: Mapping[str, Any]) -> None:
    """Check that the orderings section's batch, readings and sweep readings name configured methods and datasets."""
    _check_batch(config, "orderings")
    orderings = config.get("orderings") or {}
    wanted = (orderings.get("readings") or {}).get("datasets") or []
    unknown = sorted(set(wanted) - set(orderings.get("datasets") or {}))
    if unknown:
        raise ValueError(f"config: orderings.readings.datasets {unknown} are not under orderings.datasets; "
                         f"configured: {sorted(orderings.get('datasets') or {})}")
    _check_sweep_readings(orderings)


def check_consensus_config(config: Mapping[str, Any]) -> None:
    """Check that the consensus section's datasets are configured (its own or the orderings').

    And that its search runs on rankings and its aggregators exist.
    """
    known = all_datasets(config)
    cons = config.get("consensus") or {}
    wanted = list((cons.get("aggregation") or {}).get("datasets", []))
    if cons.get("search"):
        wanted.append(cons["search"]["dataset"])
    missing = [d for d in wanted if d not in known]
    if missing:
        raise ValueError(
            f"config: consensus refers to datasets {missing} that are not configured; "
            f"configured: {sorted(known)} (define them under orderings.datasets or consensus.datasets)"
        )
    if cons.get("search") and known[cons["search"]["dataset"]]["source"] not in ("search_results", "clef_runs"):
        raise ValueError(f"config: consensus.search.dataset {cons['search']['dataset']!r} must be a rankings "
                         "dataset (search_results or clef_runs)")
    for name in (cons.get("aggregation") or {}).get("aggregators") or []:
        try:
            family_registry("consensus").resolve(name)
        except ValueError as err:
            raise ValueError(f"config: consensus.aggregation.aggregators: {err}") from None


def check_graded_config(config: Mapping[str, Any]) -> None:
    """Check that the graded section's comparisons and batch name configured methods.

    And that its simulated panels can be drawn.
    """
    from manyjudges.graded.simulate import spec_problem

    graded = config.get("graded") or {}
    unknown = sorted({m for pair in graded.get("comparisons") or [] for m in pair} - set(graded.get("methods") or {}))
    if unknown:
        raise ValueError(f"config: graded.comparisons names methods {unknown} that are not configured; "
                         f"configured: {sorted(graded.get('methods') or {})}")
    _check_batch(config, "graded")
    for name, spec in (graded.get("datasets") or {}).items():
        problem = spec_problem(spec) if spec.get("source") == "simulate" else None
        if problem:
            raise ValueError(f"config: graded.datasets.{name}: {problem}")


def check_crowd_config(config: Mapping[str, Any]) -> None:
    """Check that the crowd section's batch, proposed, baselines, ablation and robustness name configured entries.

    They name configured methods and datasets, and no crowd dataset shares its name with another section's of
    another source.
    """
    _check_batch(config, "crowd")
    crowd = config.get("crowd") or {}
    crowd_methods = set(crowd.get("methods") or {})
    named = set(crowd.get("proposed") or []) | {m for pair in crowd.get("ablation") or [] for m in pair}
    named |= set(crowd.get("baselines") or [])
    named |= set((crowd.get("robustness") or {}).get("methods") or [])
    unknown = sorted(named - crowd_methods)
    if unknown:
        raise ValueError(f"config: crowd.proposed / baselines / ablation / robustness name methods {unknown} "
                         f"that are not configured; configured: {sorted(crowd_methods)}")
    robust = sorted(set((crowd.get("robustness") or {}).get("datasets") or []) - set(crowd.get("datasets") or {}))
    if robust:
        raise ValueError(f"config: crowd.robustness.datasets {robust} are not under crowd.datasets; "
                         f"configured: {sorted(crowd.get('datasets') or {})}")
    for name, spec in (crowd.get("datasets") or {}).items():
        other = {s: d for s in ("orderings", "consensus", "graded")
                 for n, d in ((config.get(s) or {}).get("datasets") or {}).items() if n == name}
        for section, spec_other in other.items():
            if spec_other.get("source") != spec.get("source"):
                raise ValueError(f"config: dataset {name!r} is under crowd (source {spec.get('source')!r}) and "
                                 f"under {section} (source {spec_other.get('source')!r}); use another name")


def check_truth_config(config: Mapping[str, Any]) -> None:
    """Check that the truth section's replay (``active``) names a method that can be built.

    And that a simulated dataset gives no option its ``scenario`` does not take.
    """
    for name, spec in ((config.get("truth") or {}).get("datasets") or {}).items():
        if spec.get("source") == "simulate":
            try:
                scenario_options(spec.get("scenario", DEFAULT_SCENARIO), spec)
            except ValueError as err:
                raise ValueError(f"config: truth.datasets.{name}: {err}") from None
    active = (config.get("truth") or {}).get("active")
    if active:
        try:
            family_registry("truth").check(active.get("method", "auto"), active.get("params") or {})
        except ValueError as err:
            raise ValueError(f"config: truth.active.method: {err}") from None




def _check_simulated_asks(spec: Mapping[str, Any], where: str) -> None:
    """Check a simulated arena's ``baseline`` (one of its models) and ``control`` (features it draws: ``length``)."""
    from manyjudges.arena.panel_simulation import numbered_names

    models = [str(m) for m in numbered_names("m", int(spec["n_models"]))]
    if spec.get("baseline") is not None and str(spec["baseline"]) not in models:
        raise ValueError(f"{where}: baseline {spec['baseline']!r} is not one of its models ({', '.join(models)})")
    drawn = ["length"] if spec.get("verbosity") is not None else []
    unknown = [f for f in spec.get("control") or [] if f not in drawn]
    if unknown:
        raise ValueError(f"{where}: control {unknown}: a simulated arena's answers have the features "
                         f"{drawn or 'none'} (length with verbosity)")


def check_arena_config(config: Mapping[str, Any]) -> None:
    """Check that the arena section's simulated arenas can be drawn and their judge patterns are sound.

    The ``judges`` and ``reference`` patterns match judges of their panel, none in both, leaving a panel; a
    simulated arena's ``baseline`` is one of its models and its ``control`` features are drawn; ``human``
    has a ``reference``; a dataset named like another section's reads the same pinned files (one download).
    """
    from manyjudges.arena.data import split_panel
    from manyjudges.arena.simulate import arena_problem
    from manyjudges.io.tables.verdicts import verdicts_frame

    arena = config.get("arena") or {}
    for name, spec in (arena.get("datasets") or {}).items():
        where = f"config: arena.datasets.{name}"
        if spec.get("source") == "simulate":
            problem = arena_problem(int(spec.get("n_models", 2)), int(spec.get("n_prompts", 1)),
                                    spec.get("panel") or {}, spec.get("pairs_per_prompt"),
                                    float(spec.get("strength_sd", 1.0)), float(spec.get("nu", 0.5)),
                                    spec.get("verbosity"), float(spec.get("verbosity_sd", 0.5)))
            if problem:
                raise ValueError(f"{where}: {problem}")
            _check_simulated_asks(spec, where)
            # the panel's names are known: split a verdict of each as the job will split the draws
            names = [str(j) for j in spec["panel"]]
            try:
                split_panel(verdicts_frame("p", names, "a", "b", "model_a"), spec.get("judges"), spec.get("reference"),
                            where=f"arena.datasets.{name}")
            except ValueError as err:
                raise ValueError(f"config: {err}") from None
        if spec.get("human") is not None and not spec.get("reference"):
            raise ValueError(f"{where}: human calibrates the panel with the reference's verdicts; give reference "
                             "(the patterns of the judges whose votes are the humans')")
        for section in ("orderings", "consensus", "graded", "crowd", "truth"):
            other = ((config.get(section) or {}).get("datasets") or {}).get(name)
            if other is None:
                continue
            same = all(other.get(k) == spec.get(k) for k in ("source", "pinned", "files"))
            if not same:
                raise ValueError(f"{where}: a dataset under {section} has this name and other files (its source, "
                                 "pinned or files differ), and a name has one download folder: use another name "
                                 f"(with pinned: {name} to read the same pinned set)")
