"""Stray classes: classes read from the labels that look more like mistakes in the labels than like classes.

When no classes are declared, every distinct label is a class, and integer labels give the classes
``0 .. max(label)``, each with its own posterior column. A stray label then silently adds classes:
three labels 5, 5 and 10 among 10,000 grades 0-3 make eleven classes, five of them unused. Two kinds
of class are warned about (:class:`StrayClassesWarning`, a :class:`~manyjudges.core.data_warning.DataWarning`;
the rules are ours); declaring the classes (``classes=`` in Python, ``--labels`` on the command line)
silences both.

* **Outside codes** (integer labels only): the codes above a run of unused codes, when together they hold
  at most ``_OUTSIDE_SHARE`` (1%) of the labels. Of the gaps that qualify, the lowest is taken, so that
  every code above it is named: among grades 0-3, labels 5, 5 and 10 are the outside codes 5 and 10.
* **Rare classes**: a class that holds fewer than ``_RARE_SHARE`` (0.1%) of the labels, all of them from
  one judge (no other judge ever gave it): a typo, or one judge's private code. A rare class that
  several judges gave is left alone: a real grade can be rare (on the LLMJudge runs of one team,
  grade 3 of 0-3 holds 6 of 26,538 labels, from three judges that agree on both items).

Every count is over the labels as coded, so the same labels in any row order give the same warning.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from manyjudges.core.data_warning import DataWarning
from manyjudges.core.label_keys import _CHUNK

__all__ = ["StrayClassesWarning", "class_counts", "warn_stray_classes"]

#: the largest share of the labels that the codes above a run of unused codes may hold and be called outside
_OUTSIDE_SHARE = 0.01
#: a class holding fewer than this share of the labels, all from one judge, is rare
_RARE_SHARE = 0.001
#: the stray classes a message names, at most (then "and N more")
_MAX_NAMED = 5
#: what the messages tell the user to do
_REMEDY = "give the classes with --labels (or classes=) if {they} real, or fix those labels"


class StrayClassesWarning(DataWarning):
    """Classes read from the labels that look like mistakes: codes outside the others, or rare classes."""


def _outside_codes(counts: np.ndarray, share: float = _OUTSIDE_SHARE) -> np.ndarray:
    """Return the codes above the lowest run of unused codes whose codes above hold at most ``share`` of the labels.

    Parameters
    ----------
    counts : ndarray of int, shape (K,)
        The labels of each code 0..K-1.
    share : float
        The largest share of the labels the codes above the run may hold.

    Returns
    -------
    ndarray of int64
        The used codes above that run, ascending; empty when no run qualifies (a run of unused codes below the
        lowest used code, e.g. the 0 of grades 1-5, is no gap between used codes).
    """
    used = np.flatnonzero(counts > 0)
    if len(used) < 2:
        return np.zeros(0, dtype=np.int64)
    above = np.cumsum(counts[used][::-1])[::-1]  # above[j]: the labels of the used codes from used[j] on
    gap = np.diff(used) > 1  # gap[j]: unused codes between used[j] and used[j + 1]
    qualifies = np.flatnonzero(gap & (above[1:] <= share * counts.sum()))
    if not len(qualifies):
        return np.zeros(0, dtype=np.int64)
    return used[qualifies[0] + 1:].astype(np.int64)


def _rare_classes(counts: np.ndarray, label: np.ndarray, judge: np.ndarray, share: float = _RARE_SHARE
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Return (the rare classes, the one judge of each): used, under ``share`` of the labels, from one judge.

    Parameters
    ----------
    counts : ndarray of int, shape (K,)
        The labels of each class.
    label, judge : ndarray of int
        Each label's class and judge codes.
    share : float
        A class under this share of the labels may be rare.

    Returns
    -------
    tuple of ndarray of int64
        The rare classes, ascending, and the judge code of each.
    """
    few = np.flatnonzero((counts > 0) & (counts < share * counts.sum()))
    if not len(few):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    is_few = np.zeros(len(counts), dtype=bool)
    is_few[few] = True
    lowest = np.full(len(counts), np.iinfo(np.int64).max)
    highest = np.full(len(counts), -1)
    for start in range(0, len(label), _CHUNK):  # in chunks: no temporary of the size of the labels
        rows = slice(start, start + _CHUNK)
        mask = is_few[label[rows]]
        np.minimum.at(lowest, label[rows][mask], judge[rows][mask])
        np.maximum.at(highest, label[rows][mask], judge[rows][mask])
    one = few[lowest[few] == highest[few]]
    return one.astype(np.int64), lowest[one].astype(np.int64)


def class_counts(label: np.ndarray, n_classes: int) -> np.ndarray:
    """Return the labels of each class, (n_classes,) int64, counted in chunks of ``_CHUNK`` labels.

    ``np.bincount`` of the whole array would make an int64 copy of int32 codes (8 bytes a label); a chunk's
    copy is 8 MB whatever the number of labels.
    """
    counts = np.zeros(n_classes, dtype=np.int64)
    for start in range(0, len(label), _CHUNK):
        counts += np.bincount(label[start:start + _CHUNK], minlength=n_classes)
    return counts


def _name(value: object) -> str:
    """Return a class name or judge id as a message shows it: a number as it is, text quoted."""
    value = value.item() if isinstance(value, np.generic) else value
    return str(value) if isinstance(value, (int, np.integer)) else repr(value)


def _listed(parts: list[str]) -> str:
    """Return ``a``, ``a and b``, ``a, b and c``; past MAX_NAMED, the first ones and ``N more``."""
    if len(parts) > _MAX_NAMED:
        parts = [*parts[:_MAX_NAMED - 1], f"{len(parts) - _MAX_NAMED + 1} more"]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _labels(count: int) -> str:
    return f"{count:,} label" + ("" if count == 1 else "s")


def _outside_message(counts: np.ndarray, outside: np.ndarray) -> str:
    """Return the sentence about the outside codes (see the module docstring)."""
    n = int(counts.sum())
    inside = np.flatnonzero(counts[:outside[0]] > 0)
    low, high = int(inside[0]), int(inside[-1])
    span = f"{low}-{high}" if high > low else f"{low}"
    unused = int((counts == 0).sum())
    several = len(outside) > 1
    return (f"code{'s' if several else ''} {_listed([f'{c} ({_labels(int(counts[c]))})' for c in outside])} "
            f"lie{'' if several else 's'} outside {span}, which hold{'' if high > low else 's'} "
            f"{int(counts[:outside[0]].sum()):,} of the {n:,} labels; the classes are 0-{len(counts) - 1}, and the "
            f"{unused} of them that no label uses still get a posterior column; "
            + _REMEDY.format(they="these are" if several else "it is"))


def _rare_message(counts: np.ndarray, rare: np.ndarray, their_judge: np.ndarray, classes: Sequence | np.ndarray,
                  judges: Sequence | pd.Index) -> str:
    """Return the sentence about the rare classes (see the module docstring)."""
    several = len(rare) > 1
    named = [f"{_name(classes[k])} ({_labels(int(counts[k]))}, all from judge {_name(judges[j])})"
             for k, j in zip(rare, their_judge)]
    return (f"class{'es' if several else ''} {_listed(named)} {'each hold' if several else 'holds'} under "
            f"{_RARE_SHARE:.1%} of the {int(counts.sum()):,} labels and no other judge gave "
            f"{'them' if several else 'it'}; " + _REMEDY.format(they="these are" if several else "it is"))


def _stray_class_messages(label: np.ndarray, judge: np.ndarray, classes: Sequence | np.ndarray,
                         judges: Sequence | pd.Index, codes: bool) -> list[str]:
    """Return the messages about the stray classes of labels whose classes were read from them (none: ``[]``).

    Parameters
    ----------
    label, judge : ndarray of int
        Each label's class and judge codes (indexing ``classes`` and ``judges``).
    classes, judges : sequence
        The class names and judge ids.
    codes : bool
        The classes are the integer codes ``0 .. max(label)`` (outside codes are looked for too).

    Returns
    -------
    list of str
        One message for the outside codes and one for the rare classes, where there are any.
    """
    counts = class_counts(label, len(classes))
    outside = _outside_codes(counts) if codes else np.zeros(0, dtype=np.int64)
    messages = [_outside_message(counts, outside)] if len(outside) else []
    rare, their_judge = _rare_classes(counts, label, judge)
    keep = ~np.isin(rare, outside)
    if keep.any():
        messages.append(_rare_message(counts, rare[keep], their_judge[keep], classes, judges))
    return messages


def warn_stray_classes(label: np.ndarray, judge: np.ndarray, classes: Sequence | np.ndarray,
                       judges: Sequence | pd.Index, codes: bool, source: str, stacklevel: int = 3) -> None:
    """Warn (:class:`StrayClassesWarning`) with each of :func:`_stray_class_messages`, each after ``source: ``.

    ``stacklevel`` 3 names the line that called the caller (the user's call of the reader or the coder).
    """
    for message in _stray_class_messages(label, judge, classes, judges, codes):
        warnings.warn(f"{source}: {message}", StrayClassesWarning, stacklevel=stacklevel)
