"""A panel of graded judgments in long (COO) form: one entry per (item, judge) label.

Dense panels (every judge labels every item, as in Wilbur and Kim's MEDLINE data) and
sparse crowd panels (each judge labels a few items) share one representation, so every
method costs O(labels), never O(items x judges).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class GradedPanel:
    """Labels ``label[e]`` given by judge ``judge[e]`` to item ``item[e]`` (0-based indices).

    A sub-panel (:meth:`without`) keeps the full index spaces (``n_items``, ``n_judges``)
    and drops entries, so arrays indexed by item or judge line up across folds. ``n_classes``: the
    number of classes K (labels are 0..K-1); its former name ``n_labels`` still reads, deprecated.
    """

    item: np.ndarray
    judge: np.ndarray
    label: np.ndarray
    n_items: int
    n_judges: int
    n_classes: int
    item_ids: tuple[str, ...] = ()
    judge_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("item", "judge", "label"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.int64))
        e = len(self.item)
        if len(self.judge) != e or len(self.label) != e:
            raise ValueError("item, judge and label must have the same length")
        if self.n_classes < 2:
            raise ValueError(f"a graded panel needs at least 2 classes, got n_classes={self.n_classes}")
        if e:
            if self.item.min() < 0 or self.item.max() >= self.n_items:
                raise ValueError(f"item index outside 0..{self.n_items - 1}")
            if self.judge.min() < 0 or self.judge.max() >= self.n_judges:
                raise ValueError(f"judge index outside 0..{self.n_judges - 1}")
            bad = (self.label < 0) | (self.label >= self.n_classes)
            if bad.any():
                raise ValueError(f"label {int(self.label[bad][0])} outside 0..{self.n_classes - 1}")
            key = self.item * self.n_judges + self.judge
            # entries in canonical order (from_table, and every sub-panel of one) are strictly increasing
            # keys, which is the check done in one pass; any other order is checked by sorting
            if not (key[1:] > key[:-1]).all() and len(np.unique(key)) != e:
                raise ValueError("a judge labels the same item twice")

    @property
    def n_entries(self) -> int:
        """Number of entries (labels) in the panel."""
        return len(self.item)

    @property
    def n_labels(self) -> int:
        """The former name of :attr:`n_classes`; deprecated (``n_labels`` is a number of labels elsewhere)."""
        warnings.warn("GradedPanel.n_labels is now n_classes (the number of classes)", DeprecationWarning, stacklevel=2)
        return self.n_classes

    @classmethod
    def from_table(cls, grades: pd.DataFrame, n_classes: int | None = None, *, n_labels: int | None = None
                   ) -> GradedPanel:
        """Panel from a canonical grades table (``item, judge, label``), in canonical order.

        Items and judges are coded in sorted id order and the entries sorted by (item, judge), so
        the same judgments in any row order give the same panel, bit for bit: every sum a fit
        makes runs in one order, and so does every fit's path to where it stops. ``n_labels``: the
        former name of ``n_classes``, still read.
        """
        n_classes = classes_count(n_classes, n_labels)
        if grades.empty:
            raise ValueError("empty panel: the grades table has no rows")
        items, item = np.unique(grades["item"].astype(str).to_numpy(), return_inverse=True)
        judges, judge = np.unique(grades["judge"].astype(str).to_numpy(), return_inverse=True)
        labels = _integer_labels(grades["label"].to_numpy())
        order = np.lexsort((judge, item))
        return cls(item[order], judge[order], labels[order], len(items), len(judges), int(n_classes), tuple(items),
                   tuple(judges))

    @classmethod
    def from_matrix(cls, labels: np.ndarray, n_classes: int | None = None, *, n_labels: int | None = None
                    ) -> GradedPanel:
        """Panel from an (items x judges) matrix; negative values are missing labels.

        ``n_labels``: the former name of ``n_classes``, still read.
        """
        n_classes = classes_count(n_classes, n_labels)
        labels = np.asarray(labels)
        if labels.ndim != 2:
            raise ValueError("labels must be an (items x judges) matrix")
        labels = _integer_labels(labels)
        item, judge = np.nonzero(labels >= 0)
        return cls(item, judge, labels[item, judge], labels.shape[0], labels.shape[1], int(n_classes),
                   tuple(str(i) for i in range(labels.shape[0])), tuple(str(j) for j in range(labels.shape[1])))

    def to_matrix(self) -> np.ndarray:
        """(items x judges) matrix with -1 for missing labels."""
        out = np.full((self.n_items, self.n_judges), -1, dtype=np.int64)
        out[self.item, self.judge] = self.label
        return out

    def select(self, mask: np.ndarray) -> GradedPanel:
        """Return the panel restricted to the entries where ``mask`` is true (same index spaces).

        A subset of a valid panel is valid, so a boolean mask is not validated again (the check that
        no judge labels an item twice sorts every entry, and folds select many times); any other
        index is.
        """
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != self.item.shape:
            return GradedPanel(self.item[mask], self.judge[mask], self.label[mask], self.n_items, self.n_judges,
                               self.n_classes, self.item_ids, self.judge_ids)
        sub = object.__new__(GradedPanel)
        values = {"item": self.item[mask], "judge": self.judge[mask], "label": self.label[mask],
                  "n_items": self.n_items, "n_judges": self.n_judges, "n_classes": self.n_classes,
                  "item_ids": self.item_ids, "judge_ids": self.judge_ids}
        for name, value in values.items():
            object.__setattr__(sub, name, value)
        return sub

    def without(self, judges: np.ndarray | list[int] | int) -> GradedPanel:
        """Return the panel with every label of ``judges`` removed."""
        return self.select(~np.isin(self.judge, np.atleast_1d(judges)))

    def of(self, judges: np.ndarray | list[int] | int) -> GradedPanel:
        """Only the labels of ``judges``."""
        return self.select(np.isin(self.judge, np.atleast_1d(judges)))

    def labels_per_judge(self) -> np.ndarray:
        """Count the labels of each judge, shape (n_judges,)."""
        return np.bincount(self.judge, minlength=self.n_judges)

    def judges_present(self) -> np.ndarray:
        """Return the indices of the judges with at least one label."""
        return np.flatnonzero(self.labels_per_judge())


def _integer_labels(values: np.ndarray) -> np.ndarray:
    """Labels as int64; a missing or non-integer label is an error, never truncated."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    try:
        as_float = values.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"labels must be integers, got {values.ravel()[0]!r}") from None
    missing = ~np.isfinite(as_float)
    if missing.any():
        raise ValueError(f"missing (non-finite) label: {values.ravel()[np.flatnonzero(missing.ravel())[0]]!r}")
    fractional = as_float != np.round(as_float)
    if fractional.any():
        raise ValueError(f"labels must be integers, got {as_float.ravel()[np.flatnonzero(fractional.ravel())[0]]!r}")
    return as_float.astype(np.int64)


def background_prior(panel: GradedPanel) -> np.ndarray:
    """pi_c: share of label c among the panel's labels, add-1/2 smoothed so no label gets 0.

    pi_c = (N_c + 1/2) / (N + K/2) (docs/methods.md, graded section: the background prior; the half count
    keeps a label no training judge used possible).
    """
    counts = np.bincount(panel.label, minlength=panel.n_classes).astype(float)
    return (counts + 0.5) / (counts.sum() + 0.5 * panel.n_classes)


def prior_without_own(panel: GradedPanel) -> np.ndarray:
    """Per entry e: the background prior computed without entry e's judge, pi^(-i) (E x K)."""
    k = panel.n_classes
    total = np.bincount(panel.label, minlength=k).astype(float)
    own = np.bincount(panel.judge * k + panel.label, minlength=panel.n_judges * k).reshape(panel.n_judges, k)
    rest = total[None, :] - own
    prior = (rest + 0.5) / (rest.sum(1, keepdims=True) + 0.5 * k)
    return prior[panel.judge]


def judge_groups(judges: np.ndarray, n_folds: int | None) -> list[np.ndarray]:
    """Split judges into folds: one per judge (``None``), else ``n_folds`` round-robin groups."""
    judges = np.asarray(judges)
    if n_folds is None or n_folds >= len(judges):
        return [np.array([j]) for j in judges]
    if n_folds < 2:
        raise ValueError(f"n_folds must be at least 2, got {n_folds}")
    return [judges[f::n_folds] for f in range(n_folds)]


def inner_folds(train: GradedPanel, n_folds: int | None) -> Iterator[tuple[np.ndarray, GradedPanel]]:
    """Yield (mask of the fold's entries, the panel without them) per fold of training judges.

    The folds are :func:`judge_groups`. A fold whose removal leaves no labels is skipped.
    """
    for group in judge_groups(train.judges_present(), n_folds):
        mask = np.isin(train.judge, group)
        rest = train.select(~mask)
        if rest.n_entries:
            yield mask, rest


def log_uniform(panel: GradedPanel) -> float:
    """Return the uniform baseline: |labels| log(1/K) (paper eq. 11: 5000 log(1/5) = -8047.19)."""
    return float(panel.n_entries * np.log(1.0 / panel.n_classes))


def classes_count(n_classes: int | None, n_labels: int | None) -> int:
    """``n_classes``, or its former name ``n_labels`` where a caller still gives that (not both; one is needed)."""
    if n_labels is not None:
        if n_classes is not None:
            raise TypeError("give n_classes or its former name n_labels, not both")
        warnings.warn("n_labels (the number of classes) is now n_classes", DeprecationWarning, stacklevel=3)
        return int(n_labels)
    if n_classes is None:
        raise TypeError("n_classes (the number of classes) is required")
    return int(n_classes)
