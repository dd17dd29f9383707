"""Agreement among the judges of a labels table: Krippendorff's alpha and a summary of the panel.

Krippendorff's alpha (Krippendorff, *Content Analysis*, 2004/2011; "Computing Krippendorff's
alpha-reliability", 2011) in its coincidence-matrix form. With ``n_uc`` the number of labels
of class ``c`` that item ``u`` received and ``m_u = sum_c n_uc``, only the pairable items
(``m_u >= 2``) count; the coincidences are

    o_ck = sum_u n_uc (n_uk - [c == k]) / (m_u - 1),   n_c = sum_k o_ck,   n = sum_c n_c,

and alpha = 1 - (n - 1) sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck, with the difference
function d2 of the level of measurement: nominal ``[c != k]``; ordinal, on the class ranks,
``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2``; interval ``(v_c - v_k)^2`` on the class values
(the classes themselves when they are numbers, else their ranks 0..K-1). Every label is one
value: a judge who labelled an item twice (``duplicates="keep"``) contributes two values.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from manyjudges.core.coded_labels import CrowdLabels, as_crowd_labels
from manyjudges.core.coincidences import alpha_from_coincidences
from manyjudges.core.coincidences import coincidence_matrix as coincidences_of_units

__all__ = ["coincidence_matrix", "summarise_labels"]

#: the levels of measurement of :func:`_krippendorff_alpha`
_ALPHA_LEVELS = ("nominal", "ordinal", "interval")


def coincidence_matrix(labels: CrowdLabels | pd.DataFrame) -> np.ndarray:
    """(K, K) coincidences ``o_ck`` of the pairable items (two labels or more), classes in code order."""
    return coincidences_of_units(as_crowd_labels(labels).class_counts)


def _class_values(classes: np.ndarray) -> np.ndarray:
    """Return the classes as numbers for the interval metric, or their ranks if they are not all numbers."""
    try:
        values = np.asarray(classes, dtype=float)
    except (TypeError, ValueError):
        return np.arange(len(classes), dtype=float)
    return values if np.isfinite(values).all() else np.arange(len(classes), dtype=float)


def _squared_differences(level: str, totals: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """(K, K) d2_ck of the level of measurement; ``totals`` are the marginals n_c."""
    k = len(totals)
    if level == "nominal":
        return 1.0 - np.eye(k)
    if level == "interval":
        values = _class_values(classes)
        return (values[:, None] - values[None, :]) ** 2
    cumulative = np.cumsum(totals)
    low = np.minimum.outer(np.arange(k), np.arange(k))
    high = np.maximum.outer(np.arange(k), np.arange(k))
    between = cumulative[high] - cumulative[low] + totals[low]
    return (between - (totals[:, None] + totals[None, :]) / 2.0) ** 2


def _krippendorff_alpha(labels: CrowdLabels | pd.DataFrame, level: str = "nominal") -> float:
    """Krippendorff's alpha of the judges' labels.

    Parameters
    ----------
    labels : CrowdLabels or pandas.DataFrame
        The labels (a long table is encoded with :func:`~manyjudges.core.coded_labels.as_crowd_labels`).
    level : {"nominal", "ordinal", "interval"}
        Level of measurement: the difference function between two classes (module docstring).

    Returns
    -------
    float
        alpha, 1 for perfect agreement, 0 for agreement at chance; NaN when it is undefined
        (fewer than two pairable values, or every pairable value in one class).
    """
    if level not in _ALPHA_LEVELS:
        raise ValueError(f"level must be one of {', '.join(_ALPHA_LEVELS)}, got {level!r}")
    data = as_crowd_labels(labels)
    coincidences = coincidence_matrix(data)
    return alpha_from_coincidences(coincidences, _squared_differences(level, coincidences.sum(axis=1), data.classes))


def _spread(counts: np.ndarray, name: str) -> dict[str, float]:
    return {f"{name}_mean": float(np.mean(counts)), f"{name}_median": float(np.median(counts)),
            f"{name}_min": int(np.min(counts)), f"{name}_max": int(np.max(counts))}


def summarise_labels(labels: CrowdLabels | pd.DataFrame, ordinal: bool = False) -> dict[str, float]:
    """Size, density and agreement of a labels table.

    Parameters
    ----------
    labels : CrowdLabels or pandas.DataFrame
        The labels.
    ordinal : bool
        Whether the classes are ordered (code order, lowest first): adds ``alpha_ordinal``.

    Returns
    -------
    dict
        ``items``, ``judges``, ``labels``, ``classes`` (K, counting a class nobody used when
        the classes say so), ``pairable_items`` (items with two labels or more);
        ``labels_per_item_{mean,median,min,max}``, ``judges_per_item_{mean,median,min,max}``
        (distinct judges), ``labels_per_judge_{mean,median,min,max}``; ``alpha_nominal``
        and, if ``ordinal``, ``alpha_ordinal`` (:func:`_krippendorff_alpha`).
    """
    data = as_crowd_labels(labels)
    per_item = np.bincount(data.item, minlength=data.n_items)
    pairs = np.unique(data.item.astype(np.int64) * data.n_judges + data.judge)
    judges_per_item = np.bincount(pairs // data.n_judges, minlength=data.n_items)
    per_judge = np.bincount(data.judge, minlength=data.n_judges)
    summary: dict[str, float] = {
        "items": data.n_items,
        "judges": data.n_judges,
        "labels": data.n_labels,
        "classes": data.n_classes,
        "pairable_items": int((per_item >= 2).sum()),
        **_spread(per_item, "labels_per_item"),
        **_spread(judges_per_item, "judges_per_item"),
        **_spread(per_judge, "labels_per_judge"),
        "alpha_nominal": _krippendorff_alpha(data, "nominal"),
    }
    if ordinal:
        summary["alpha_ordinal"] = _krippendorff_alpha(data, "ordinal")
    return summary
