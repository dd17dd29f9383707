"""Judges that share their errors, grouped into clusters and down-weighted to their effective number.

Several LLM judges are often one model under several prompts, or models trained on the same data:
their errors are correlated, and counting each as an independent judge over-weights what they
share. A **cluster** is a set of judges whose errors are taken to be correlated: given by the user
(a mapping judge -> cluster), or found from the data (``"auto"``: the connected components of the
graph "shrunk error correlation above ``threshold``", single linkage). A judge's two presentation orders
are one judge already (the verdicts carry the order, not the judge id).

Each verdict of a judge in a cluster of n judges whose mean pairwise error correlation is rho gets
the weight n_eff / n with Kish's effective size

    n_eff = n / (1 + (n - 1) rho)

(Kish, L. (1965), Survey Sampling, Wiley, section 5.4: the design effect 1 + (m - 1) rho of a
cluster of m units with intraclass correlation rho; the same formula as the panel's
``effective_judges`` of :func:`~manyjudges.arena.judges.measures.judge_measures`), so the cluster's
verdicts count as n_eff independent judges' verdicts: n copies of one judge (rho = 1) count as
one judge, n independent judges (rho = 0) as n. rho is the mean of the finite error correlations
of the cluster's pairs (:func:`~manyjudges.arena.judges.measures.judge_measures`'s ``pairs``: Pearson's
correlation of the two judges' errors on their common units, against a reference when there is
one, else against the majority of the other judges), clipped to [0, 1] (a negative correlation
does not up-weight), 0 when no pair has a finite correlation; or a fixed ``rho`` for every cluster.

``"auto"`` joins two judges on their correlation shrunk toward 0 by the units behind it,
``error_correlation_shrunk`` = r m / (m + m0) (:func:`~manyjudges.arena.judges.measures._shrunk_correlation`:
the posterior mean of the correlation under a normal prior at 0 worth m0 = ``prior_units`` units,
r having a standard error of about 1 / sqrt(m)). Two judges that share 4 units and agree on them
(r = 1) are not a cluster: 4 / (4 + m0) is far below the threshold; two that share 400 units with
r = 0.9 are. Within a cluster, rho stays the mean of the raw correlations, so that two identical
copies (r = 1 on all their units) still weigh 1/2 each.
"""
from __future__ import annotations

from collections.abc import Mapping
from numbers import Real

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from manyjudges.arena.judges.measures import _PRIOR_UNITS, judge_measures
from manyjudges.arena.verdict_codes import judge_ids
from manyjudges.core.parameters import Constraint, Interval, Options, check_values

__all__ = ["judge_weights"]

#: ``clusters="auto"``: clusters from the error correlations above a threshold
_AUTO = "auto"
_WEIGHT_COLUMNS = ["judge", "cluster", "cluster_size", "rho", "weight"]
#: the pairs' column the clusters and weights use
_SHRUNK = "error_correlation_shrunk"


def _auto_clusters(judges: np.ndarray, pairs: pd.DataFrame, threshold: float, column: str = _SHRUNK
                  ) -> dict[str, str]:
    """Return judge -> cluster: the connected components of the graph of judges' shared errors.

    An edge joins two judges whose ``column`` (a row of ``pairs``: ``judge_a, judge_b, column``;
    default the shrunk error correlation) exceeds ``threshold``; a cluster is named by its first
    judge in ``judges`` order.
    """
    index = {str(j): i for i, j in enumerate(judges)}
    corr = pairs[column].to_numpy(dtype=float)
    edge = np.isfinite(corr) & (corr > threshold)
    rows = np.array([index[str(j)] for j in pairs["judge_a"][edge]], dtype=np.int64)
    cols = np.array([index[str(j)] for j in pairs["judge_b"][edge]], dtype=np.int64)
    n = len(judges)
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    first: dict[int, str] = {}
    for i, c in enumerate(component):
        first.setdefault(int(c), str(judges[i]))
    return {str(j): first[int(component[i])] for i, j in enumerate(judges)}


def _cluster_weights(judges: np.ndarray, clusters: Mapping[str, str], pairs: pd.DataFrame,
                    rho: float | None = None, column: str = "error_correlation") -> pd.DataFrame:
    """Kish's weight n_eff / n = 1 / (1 + (n - 1) rho) of every judge (module docstring).

    Parameters
    ----------
    judges : array of str
        The judges, in the order of the output rows.
    clusters : mapping judge -> cluster name
        A judge that is not a key is a cluster of its own.
    pairs : pandas.DataFrame
        ``judge_a, judge_b`` and ``column`` (:func:`~manyjudges.arena.judges.measures.judge_measures`).
    rho : float, optional
        The error correlation of every cluster; None: each cluster's mean pair correlation, clipped
        to [0, 1] (0 without a finite one).
    column : str
        The pairs' correlation whose mean is rho (default the raw ``error_correlation``: the clusters
        found from the shrunk one are judges with enough shared units for it).

    Returns
    -------
    pandas.DataFrame
        ``judge, cluster, cluster_size, rho, weight`` (rho 0 and weight 1 for a cluster of one).
    """
    names = [str(j) for j in judges]
    cluster = np.array([str(clusters.get(j, f"\0{j}")) for j in names], dtype=object)
    labels, code = np.unique(cluster, return_inverse=True)
    size = np.bincount(code, minlength=len(labels))
    if rho is None:
        where = {j: i for i, j in enumerate(names)}
        a = np.array([where.get(str(j), -1) for j in pairs["judge_a"]], dtype=np.int64)
        b = np.array([where.get(str(j), -1) for j in pairs["judge_b"]], dtype=np.int64)
        corr = pairs[column].to_numpy(dtype=float)
        same = (a >= 0) & (b >= 0) & np.isfinite(corr)
        same[same] = code[a[same]] == code[b[same]]
        total = np.bincount(code[a[same]], weights=corr[same], minlength=len(labels))
        count = np.bincount(code[a[same]], minlength=len(labels))
        with np.errstate(invalid="ignore", divide="ignore"):
            cluster_rho = np.clip(np.where(count > 0, total / np.maximum(count, 1), 0.0), 0.0, 1.0)
    else:
        cluster_rho = np.full(len(labels), float(rho))
    cluster_rho = np.where(size > 1, cluster_rho, 0.0)
    weight = 1.0 / (1.0 + (size - 1) * cluster_rho)
    shown = np.array([c[1:] if c.startswith("\0") else c for c in cluster], dtype=object)
    return pd.DataFrame({"judge": np.asarray(names, dtype=object), "cluster": shown,
                         "cluster_size": size[code].astype(np.int64), "rho": cluster_rho[code],
                         "weight": weight[code]}, columns=_WEIGHT_COLUMNS)


#: what the clusters' parameters may be (the judge-aware models declare them; :func:`judge_weights` checks them)
CLUSTER_CONSTRAINTS: dict[str, list[Constraint]] = {
    "clusters": [None, Options((_AUTO,)), Mapping],
    "cluster_threshold": [Interval(Real, -1, 1)],
    "rho": [Interval(Real, 0, 1), None],
    "prior_units": [Interval(Real, 0, None)],
}


def judge_weights(verdicts: pd.DataFrame, clusters: Mapping[str, str] | str | None = _AUTO,
                  threshold: float = 0.5, rho: float | None = None,
                  reference: pd.DataFrame | None = None, prior_units: float = _PRIOR_UNITS) -> pd.DataFrame:
    """Return the clusters and Kish weights of the judges of a verdicts table (module docstring).

    Parameters
    ----------
    verdicts : pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``.
    clusters : None, "auto" or mapping
        A mapping judge -> cluster, or ``"auto"``, or None. None: every judge its own cluster (every
        weight 1); ``"auto"``: :func:`_auto_clusters` at ``threshold``; a mapping: those clusters (every
        key must be a judge of the table).
    threshold : float
        The error correlation above which ``"auto"`` joins two judges.
    rho : float, optional
        A fixed within-cluster error correlation (None: estimated per cluster).
    reference : pandas.DataFrame, optional
        Verdicts of a reference, against which the errors are counted (default: each pair of judges
        against the majority of the other judges).
    prior_units : float
        m0 of the shrunk error correlations (:func:`~manyjudges.arena.judges.measures._shrunk_correlation`).

    Returns
    -------
    pandas.DataFrame
        :data:`_WEIGHT_COLUMNS`, one row per judge in natural order
        (:func:`~manyjudges.arena.verdict_codes.judge_ids`).
    """
    check_values("judge_weights", CLUSTER_CONSTRAINTS,
                 {"clusters": clusters, "cluster_threshold": threshold, "rho": rho, "prior_units": prior_units})
    judges = judge_ids(verdicts)
    if isinstance(clusters, Mapping):
        unknown = sorted(set(map(str, clusters)) - set(judges))
        if unknown:
            raise ValueError(f"clusters: {unknown[0]!r} is not a judge of the verdicts (judges: "
                             f"{', '.join(judges[:5])}{', ...' if len(judges) > 5 else ''})")
    if clusters is None or len(judges) < 2:
        return _cluster_weights(judges, {}, pd.DataFrame(columns=["judge_a", "judge_b", _SHRUNK]), 0.0)
    pairs = judge_measures(verdicts, reference, prior_units=prior_units).pairs
    if isinstance(clusters, Mapping):
        mapping = {str(k): str(v) for k, v in clusters.items()}
    else:
        mapping = _auto_clusters(judges, pairs, threshold)
    return _cluster_weights(judges, mapping, pairs, rho)
