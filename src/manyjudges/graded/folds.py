"""How many groups a graded panel's judges are cross-induced in when nobody says.

Whole-panel cross induction (Wilbur and Kim) fits a method once per held-out judge, and the
methods that choose their parameters by refitting per training judge (M4, M5, Dawid-Skene)
refit once per training judge inside each fit: the cost grows with the square of the judges.
A crowd panel of hundreds of judges is cross-induced in groups instead: the held-out judges in
``outer`` folds, the training judges in ``inner`` folds (round-robin over the judges in id order).
"""
from __future__ import annotations

__all__ = ["DEFAULT_FOLDS", "FOLDS_ABOVE_JUDGES", "default_folds"]

#: a panel with more judges with labels than this gets :data:`DEFAULT_FOLDS` by default
FOLDS_ABOVE_JUDGES = 40
#: (outer folds, inner folds) above :data:`FOLDS_ABOVE_JUDGES` judges: the pipeline's crowd-panel settings
DEFAULT_FOLDS = (10, 5)


def default_folds(n_judges: int) -> tuple[int | None, int | None]:
    """Return (outer_folds, inner_folds) for a panel of ``n_judges`` judges with labels.

    (None, None), one judge per fold as in the paper, up to :data:`FOLDS_ABOVE_JUDGES` judges; else
    :data:`DEFAULT_FOLDS` (10 fits of the method, each choosing its parameters with 5 refits).
    """
    return (None, None) if n_judges <= FOLDS_ABOVE_JUDGES else DEFAULT_FOLDS
