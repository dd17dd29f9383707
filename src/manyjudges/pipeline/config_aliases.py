"""Config keys' former names, still read: each is renamed to its one name before the schema check.

A config written before a key was renamed runs unchanged. The pipeline calls :func:`_rename_config_aliases`
first thing (in :func:`manyjudges.pipeline.config_checks.validate`, which the Snakefile calls), so the schema,
the checks and every rule see only the names in :data:`_CONFIG_ALIASES`' values; ``docs/glossary.md`` lists
each concept's name and its aliases.

Nothing in the library imports this module.
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

#: where in the config -> {former key: key}; ``("truth", "datasets")`` is every dataset spec of the
#: ``truth`` section, ``("crowd",)`` the ``crowd`` section itself, ``("arena", "datasets", "panel")`` every
#: judge of every arena dataset's panel
_CONFIG_ALIASES: Mapping[tuple[str, ...], Mapping[str, str]] = {
    ("truth", "datasets"): {"n_workers": "n_judges", "worker_mix": "judge_mix", "workers": "judges"},
    ("crowd", "datasets"): {"n_workers": "n_judges", "worker_mix": "judge_mix", "pairs_per_worker": "pairs_per_judge",
                            "n_labels": "n_classes"},
    ("graded", "datasets"): {"n_labels": "n_classes"},
    ("crowd",): {"quality_bins": "skill_bins"},
    ("arena", "datasets", "panel"): {"reliability": "skill"},
}


def _rename_config_aliases(config: MutableMapping[str, Any]) -> list[str]:
    """Rename every former key of ``config`` (in place) to its one name.

    Parameters
    ----------
    config : mutable mapping
        The whole config, as Snakemake loaded it.

    Returns
    -------
    list of str
        One line per renamed key, ``config.crowd.quality_bins -> skill_bins``, for the log.

    Raises
    ------
    ValueError
        When a mapping holds a key under both names (e.g. ``n_workers`` and ``n_judges``), naming its path.
    """
    renamed: list[str] = []
    for (section, *inner), aliases in _CONFIG_ALIASES.items():
        for path, spec in _places(config, section, inner):
            for old, new in aliases.items():
                if old not in spec:
                    continue
                if new in spec:
                    raise ValueError(f"{path}: both {old!r} and {new!r} are given; {old} is the former name of "
                                     f"{new}, keep one (every key is described in config/README.md)")
                spec[new] = spec.pop(old)
                renamed.append(f"{path}.{old} -> {new}")
    return renamed


def _places(config: Mapping[str, Any], section: str, inner: list[str]) -> list[tuple[str, MutableMapping[str, Any]]]:
    """Return the mappings an alias table applies to: the section, or each entry of each key of ``inner`` in turn.

    ``["datasets"]``: each dataset spec; ``["datasets", "panel"]``: each entry of each dataset's ``panel``.
    """
    body = config.get(section)
    if not isinstance(body, MutableMapping):
        return []
    places: list[tuple[str, MutableMapping[str, Any]]] = [(f"config.{section}", body)]
    for key in inner:
        places = [(f"{path}.{key}.{name}", spec) for path, parent in places
                  if isinstance(entries := parent.get(key), Mapping)
                  for name, spec in entries.items() if isinstance(spec, MutableMapping)]
    return places
