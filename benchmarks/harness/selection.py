"""Choosing a default without fooling ourselves: leave one group of data sets out.

A default (a candidate list, a criterion, a threshold) is one of several configurations, each scored on
every data set of a development pool. :func:`leave_one_group_out` holds each group of sets out in turn
(sets that share items or labels form one group), chooses a configuration on the other groups' sets
alone with ``choose``, and reports the held-out sets' scores under that choice: the figure a default
earns on data it was not chosen on. :func:`choose_safe_best` is the rule: among the configurations that
fall more than ``-floor`` below a baseline (0.02 below majority vote, say) on the fewest training sets,
the one of highest mean score. Ties go to the configuration listed first.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np
import pandas as pd

__all__ = ["choose_safe_best", "leave_one_group_out"]


def choose_safe_best(scores: pd.DataFrame, metric: str = "accuracy", baseline: str | None = "baseline",
                     floor: float = -0.02, config: str = "config") -> Hashable:
    """Choose the configuration that falls below ``floor`` on the fewest sets, then of highest mean ``metric``.

    The configuration with the fewest sets of ``scores`` (one row per set and configuration) on which
    ``metric - baseline`` falls below ``floor``, and among those the highest mean ``metric``. Without
    ``baseline``: the highest mean. Ties: the first configuration in the order of ``scores``.
    """
    order = list(dict.fromkeys(scores[config]))
    mean = scores.groupby(config, sort=False)[metric].mean().reindex(order).to_numpy()
    if baseline is None:
        return order[int(np.argmax(mean))]
    below = (((scores[metric] - scores[baseline]) < floor - 1e-12).groupby(scores[config], sort=False).sum()
             .reindex(order).to_numpy())
    best = below == below.min()
    return order[int(np.argmax(np.where(best, mean, -np.inf)))]


def leave_one_group_out(scores: pd.DataFrame, choose: Callable[[pd.DataFrame], Hashable] = choose_safe_best,
                        config: str = "config", group: str = "group") -> pd.DataFrame:
    """Each group's rows under the configuration chosen on the other groups' rows.

    ``scores``: one row per data set and configuration (columns ``config``, ``group`` and the scores);
    ``choose(training rows) -> configuration``. Returns the held-out rows of the chosen configuration of
    each group, in the order of ``scores``, with a column ``chosen`` (the same as ``config``).
    """
    groups = list(dict.fromkeys(scores[group]))
    if len(groups) < 2:
        raise ValueError(f"leave-one-group-out needs two or more groups, got {groups}")
    held = []
    for name in groups:
        out = (scores[group] == name).to_numpy()
        chosen = choose(scores[~out])
        rows = scores[out & (scores[config] == chosen).to_numpy()]
        held.append(rows.assign(chosen=chosen))
    return pd.concat(held).sort_index()
