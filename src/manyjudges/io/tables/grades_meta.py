"""The YAML sidecar of a grades table: ``n_labels``, ``label_names`` and ``dropped``, nothing else.

Its key ``n_labels`` is the number of classes (``n_classes`` in the code): a file format, kept as written.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from manyjudges.io.engine.errors import DataError, _read_utf8

_META_KEYS = ("n_labels", "label_names", "dropped")


def _grades_meta_text(n_classes: int, label_names: Sequence[str], dropped: Mapping[str, int]) -> str:
    """Return the sidecar's YAML text: the three keys in that order.

    Nothing is time-dependent: the same data, the same bytes.
    """
    meta = {
        "n_labels": int(n_classes),
        "label_names": [str(n) for n in label_names],
        "dropped": {str(k): int(v) for k, v in dropped.items()},
    }
    return yaml.safe_dump(meta, sort_keys=False, default_flow_style=False, allow_unicode=True)


def _key_lines(text: str) -> dict[str, int]:
    """1-based line of each top-level key of a YAML mapping (best effort)."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(node, yaml.MappingNode):
        return {}
    return {
        key.value: value.start_mark.line + 1
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode)
    }


def _read_grades_meta(path: str | os.PathLike[str]) -> tuple[int, list[str], dict[str, int]]:
    """Read ``n_labels`` (the number of classes), ``label_names`` and ``dropped`` from a grades metadata file.

    A DataError names the file, the key's line and the value for YAML that does not parse, an unknown or
    missing key, or a bad value.
    """
    path = Path(path)
    text = _read_utf8(path)
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise DataError.at(path, line, "not valid YAML", str(exc).splitlines()[0]) from exc
    if meta is None:
        raise DataError.at(path, 1, "empty metadata file", "(empty file)")
    if not isinstance(meta, dict):
        raise DataError.at(path, 1, "metadata must be a YAML mapping", meta)
    lines = _key_lines(text)
    for key in meta:
        if key not in _META_KEYS:
            raise DataError.at(
                path, lines.get(key), f"unknown key (known: {', '.join(_META_KEYS)})", key
            )
    for key in _META_KEYS[:2]:
        if key not in meta:
            raise DataError.at(path, None, "missing key", key)

    n_classes = meta["n_labels"]
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 1:
        raise DataError.at(
            path, lines.get("n_labels"), "n_labels must be a positive integer", n_classes
        )
    names = meta["label_names"]
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise DataError.at(
            path, lines.get("label_names"), "label_names must be a list of non-empty strings", names
        )
    if len(names) != n_classes or len(set(names)) != len(names):
        raise DataError.at(
            path,
            lines.get("label_names"),
            f"label_names must be {n_classes} distinct names (n_labels)",
            names,
        )
    dropped = meta.get("dropped") or {}
    if not isinstance(dropped, dict) or not all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
        for k, v in dropped.items()
    ):
        raise DataError.at(
            path,
            lines.get("dropped"),
            "dropped must map reasons to non-negative integer counts",
            dropped,
        )
    return n_classes, names, dict(dropped)
