"""What only the Snakefile and its scripts need: config lookups, job planning, logging.

Nothing in the library imports this module.
"""
from __future__ import annotations

import copy
import difflib
import logging
import reprlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

import pandas as pd
import yaml

from manyjudges.io.engine.table_text import write_table
from manyjudges.pipeline.download import _pinned_files, _raw_filename
from manyjudges.pipeline.job_plan import (  # noqa: E402,F401 (the workflow imports job planning from here)
    BATCH_JOB,
    ed_jobs,
    entry_jobs,
    job_count,
    job_share,
    method_jobs,
    method_units,
    planned_jobs,
)
from manyjudges.pipeline.reading_plan import (  # noqa: F401 (the workflow imports the readings' plan from here)
    _SWEEP_READING_PARAMETERS,
    _check_sweep_readings,
    noise_reading,
    reading_datasets,
    sweep_parameters,
    sweep_reading_datasets,
    sweep_reading_parameters,
    sweep_reading_spec,
)


def dataset_names(section: Mapping[str, Any], source: str) -> list[str]:
    """Names of the configured datasets with this ``source``."""
    return [name for name, spec in section["datasets"].items() if spec["source"] == source]


def all_datasets(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every configured dataset (the sections of every family) by name."""
    from manyjudges.families import families

    out: dict[str, dict[str, Any]] = {}
    for section in families():
        for name, spec in ((config.get(section) or {}).get("datasets") or {}).items():
            out[name] = spec
    return out


def pinned_dataset_names(config: Mapping[str, Any]) -> list[str]:
    """Return the datasets fetched from pinned URLs.

    Those of each family's section whose source is one of its :attr:`~manyjudges.families.Family.pinned_sources`.
    """
    from manyjudges.families import families

    names: dict[str, None] = {}
    for family in families().values():
        for name, spec in ((config.get(family.name) or {}).get("datasets") or {}).items():
            if spec.get("source") in family.pinned_sources:
                names[name] = None
    return list(names)


def raw_files(config: Mapping[str, Any], dataset: str) -> dict[str, dict[str, str]]:
    """Return {local filename: {repo_path, sha256}} of a real dataset.

    The pinned files of its ``pinned`` key (another data set's entry in ``resources/datasets.tsv``, when the
    section allows it) or of its own name, restricted to ``files`` if given.
    """
    spec = all_datasets(config)[dataset]
    pinned = _pinned_files(spec.get("pinned", dataset))
    table = {_raw_filename(p): {"repo_path": p, "sha256": h} for p, h in zip(pinned["repo_path"], pinned["sha256"])}
    wanted = spec.get("files")
    if wanted:
        unknown = sorted(set(wanted) - set(table))
        if unknown:
            raise ValueError(f"dataset {dataset!r}: files {unknown} are not pinned; known: {sorted(table)}")
        table = {f: table[f] for f in wanted}
    return table


class _Tee:
    """A text stream that writes to the console and to the job's log file."""

    def __init__(self, console: Any, log: Any) -> None:
        self.console, self.log = console, log

    def write(self, text: str) -> int:
        self.log.write(text)
        self.log.flush()
        return self.console.write(text)

    def flush(self) -> None:
        self.log.flush()
        self.console.flush()

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, buffer, ...: the console's
        return getattr(self.console, name)


def setup_logging(log_path: str | Path | None) -> None:
    """Set up a job's logging.

    The job's log file gets the library's progress messages, its warnings and, if the job fails, its
    traceback; the console gets the warnings and the traceback (without a log: everything).
    """
    form = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    console = logging.StreamHandler(sys.__stderr__)
    console.setFormatter(form)
    handlers: list[logging.Handler] = [console]
    if log_path:
        log = open(log_path, "w", encoding="utf-8", buffering=1)  # open as long as the job runs
        sys.stderr = _Tee(sys.__stderr__, log)  # an uncaught exception's traceback lands in both
        console.setLevel(logging.WARNING)
        to_log = logging.StreamHandler(log)
        to_log.setFormatter(form)
        handlers.append(to_log)
    logging.captureWarnings(True)
    for name in ("manyjudges", "py.warnings"):
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(logging.INFO)
        logger.propagate = False


def write_tsv(df: pd.DataFrame, path: str | Path) -> None:
    """Atomic TSV with a fixed float format, so reruns are byte-identical."""
    write_table(df.round(10), path)


def load_schema(path: str | Path) -> tuple[dict[str, Any], Any]:
    """Return the config schema at ``path``, with a section for each family, and a registry for its ``$ref``.

    The families are those of :func:`manyjudges.families.families`; each section is a ``$ref`` to its schema:
    ``<family>.schema.yaml`` beside ``path`` for a built-in family, the ``file:`` URI of its own for a
    plug-in. The registry resolves those ``$ref``.
    """
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    folder = Path(path).resolve().parent

    def retrieve(uri: str) -> Resource:
        # sub-schemas carry no $schema of their own: a validator extended to fill in defaults
        # would otherwise be swapped for the plain one when it follows a $ref
        file = Path(url2pathname(urlparse(uri).path)) if uri.startswith("file:") else folder / Path(uri).name
        return DRAFT202012.create_resource(yaml.safe_load(file.read_text(encoding="utf-8")))

    from manyjudges.families import families

    schema = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    for family in families().values():
        schema["properties"].setdefault(family.name, {"$ref": family.schema_ref()})
    return schema, Registry(retrieve=retrieve)  # type: ignore[call-arg]  # attrs field alias: mypy#16586


def config_section(config: Mapping[str, Any], name: str, schema_path: str | Path) -> dict[str, Any]:
    """Return a validated config section; an absent one is an empty section.

    Empty: no datasets, no methods; each required key at its emptiest ({}, [] or its minimum), with the
    defaults of its schema, so rules can index any key the schema requires or gives a default.
    """
    if config.get(name):
        return dict(config[name])
    schema, registry = load_schema(schema_path)
    sub = registry.get_or_retrieve(schema["properties"][name]["$ref"]).value.contents
    empty: dict[str, Any] = {"object": {}, "array": []}
    section = {k: v["default"] for k, v in sub["properties"].items() if "default" in v}
    for key in sub.get("required", []):
        spec = sub["properties"][key]
        kind = spec["type"][0] if isinstance(spec["type"], list) else spec["type"]
        section[key] = empty[kind] if kind in empty else spec.get("minimum")
    return section


def check_config_schema(config: Mapping[str, Any], schema_path: str | Path, max_errors: int = 3,
                        missing_hint: str | None = None) -> None:
    """Fail before any job when the config breaks its schema, in a few lines naming each key path.

    The faults: an unknown key (with the nearest known key), a missing required key (naming a typo that
    stands for it), a wrong type or value. ``missing_hint`` is added, in parentheses, to a missing top-level
    key (e.g. how to add to the default config). A valid config gets the schema's defaults filled in, in
    place.
    """
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    schema, registry = load_schema(schema_path)
    validator = Draft202012Validator(schema, registry=registry)
    errors = list(validator.iter_errors(dict(config)))
    if not errors:
        _with_defaults(Draft202012Validator)(schema, registry=registry).validate(config)
        return
    # one message per key path, the most relevant error first
    by_path: dict[tuple, Any] = {}
    for err in errors:
        by_path.setdefault(tuple(err.absolute_path), []).append(err)
    # the outermost key paths first (a missing top-level key before what is wrong inside a section)
    groups = [by_path[path] for path in sorted(by_path, key=len)]
    picked = [(best_match(group), _unknown_keys(group)) for group in groups]
    lines = [_describe_schema_error(err, unknown) for err, unknown in picked[:max_errors]]
    if missing_hint and picked and picked[0][0].validator == "required" and not picked[0][0].absolute_path:
        lines[0] += f" ({missing_hint})"
    more = f"\n(and {len(picked) - max_errors} more)" if len(picked) > max_errors else ""
    raise ValueError("\n".join(lines) + more + "\n(every key is described in config/README.md)")


def _with_defaults(validator_class: Any) -> Any:
    """Return the validator class that also fills in each missing key's ``default``.

    At every depth, through ``$ref`` too, as in the jsonschema FAQ.
    """
    from jsonschema import validators

    check_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator: Any, properties: Mapping[str, Any], instance: Any, schema: Any) -> Any:
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(key, copy.deepcopy(sub["default"]))
        yield from check_properties(validator, properties, instance, schema)

    return validators.extend(validator_class, {"properties": set_defaults})


def _key_path(path: Any) -> str:
    return "config" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _nearest(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown_keys(errors: list[Any]) -> list[str]:
    """Return the keys the schema does not know, among errors at one key path."""
    return [k for err in errors if err.validator == "additionalProperties" and isinstance(err.instance, Mapping)
            for k in err.instance if k not in err.schema.get("properties", {})]


def _describe_schema_error(err: Any, unknown: list[str]) -> str:
    """Describe one schema error in one line.

    ``unknown``: the keys at the same path the schema does not know (the candidates for a typo of a missing
    required key).
    """
    where, value, short = _key_path(err.absolute_path), err.instance, reprlib.Repr()
    short.maxstring, short.maxother = 60, 60
    if err.validator == "additionalProperties" and isinstance(value, Mapping):
        known = list(err.schema.get("properties", {}))
        extra = [k for k in value if k not in known]
        return "; ".join(f"{where}: unknown key {k!r}{_nearest(k, known)}; known keys: {', '.join(known)}"
                         for k in extra)
    if err.validator == "required" and isinstance(value, Mapping):
        missing = [k for k in err.validator_value if k not in value]
        typos = {k: difflib.get_close_matches(k, unknown, n=1) for k in missing}
        return "; ".join(f"{where}: required key {k!r} is missing"
                         + (f" (is {typos[k][0]!r} a typo for it?)" if typos[k] else "") for k in missing)
    if err.validator == "enum":
        return (f"{where}: {short.repr(value)} is not one of {', '.join(map(str, err.validator_value))}"
                f"{_nearest(value, err.validator_value)}")
    if err.validator == "type":
        expected = err.validator_value if isinstance(err.validator_value, str) else " or ".join(err.validator_value)
        return f"{where}: {short.repr(value)} is not of type {expected}"
    if err.validator == "pattern" and "propertyNames" in err.absolute_schema_path:
        return f"{where}: the name {value!r} may hold only letters, digits and '_'"
    message = err.message.split("\n")[0][:200]
    return f"{where}: {message}" if message.startswith(repr(value)) else f"{where}: {short.repr(value)}: {message}"
