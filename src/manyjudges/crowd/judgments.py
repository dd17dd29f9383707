"""One topic's crowd judgments, as integer arrays: the input of every crowd aggregator.

Preferences (the canonical ``preferences`` table: ``topic, judge, left, right, outcome``)
are stored one row per judgment with ``outcome`` +1 (left preferred), -1 (right preferred)
or 0 (tie / "same"). Ratings (the canonical ``grades`` table) are kept as they are and also
turned into preferences by eq (5) of Niu et al. (WSDM 2015): a higher grade wins, equal
grades give a tie (the paper's Null).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from manyjudges.core.length import LengthOf
from manyjudges.core.natural_order import natural_sort

OUTCOME_CODES = {"left": 1, "right": -1, "tie": 0}


@dataclass(frozen=True)
class TopicJudgments:
    """Judgments of one topic.

    Attributes
    ----------
    topic : str
    items : numpy.ndarray of str, shape (n,)
        The topic's items (index i everywhere means ``items[i]``).
    judges : numpy.ndarray of str, shape (m,)
    judge, left, right : numpy.ndarray of int, shape (p,)
        One preference each (judge and item indices).
    outcome : numpy.ndarray of int8, shape (p,)
        +1 left preferred, -1 right preferred, 0 tie.
    rating_judge, rating_item, rating_grade : numpy.ndarray of int or None
        Shape (q,), set when the input was ratings, else None.
    """

    topic: str
    items: np.ndarray
    judges: np.ndarray
    judge: np.ndarray
    left: np.ndarray
    right: np.ndarray
    outcome: np.ndarray
    rating_judge: np.ndarray | None = None
    rating_item: np.ndarray | None = None
    rating_grade: np.ndarray | None = None
    _strict: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)

    #: number of items
    n_items = LengthOf("items")
    #: number of judges
    n_judges = LengthOf("judges")

    @property
    def has_ratings(self) -> bool:
        """Whether the input was ratings (the rating arrays are set)."""
        return self.rating_grade is not None

    def strict(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return ``(judge, winner, loser)`` of the non-tie preferences (ties dropped).

        Computed once per topic (several aggregators ask for them) and read-only.
        """
        if self._strict is None:
            keep = self.outcome != 0
            win = np.where(self.outcome > 0, self.left, self.right)[keep]
            lose = np.where(self.outcome > 0, self.right, self.left)[keep]
            arrays = (self.judge[keep], win, lose)
            for a in arrays:
                a.setflags(write=False)
            object.__setattr__(self, "_strict", arrays)
            return arrays
        return self._strict

    def win_matrix(self) -> np.ndarray:
        """(n, n) float array: W[a, b] = number of judgments preferring a over b (ties ignored)."""
        _, win, lose = self.strict()
        w = np.zeros((self.n_items, self.n_items))
        np.add.at(w, (win, lose), 1.0)
        return w

    def tie_matrix(self) -> np.ndarray:
        """(n, n) symmetric float array: number of tie judgments between a and b."""
        t = np.zeros((self.n_items, self.n_items))
        ties = self.outcome == 0
        np.add.at(t, (self.left[ties], self.right[ties]), 1.0)
        return t + t.T

    def with_preferences(self, judge: np.ndarray, left: np.ndarray, right: np.ndarray,
                         outcome: np.ndarray, judges: np.ndarray) -> TopicJudgments:
        """Return a copy with extra preference rows (e.g. spammers) and the enlarged judge list.

        Ratings are dropped: the copy is preference data only.
        """
        return TopicJudgments(
            topic=self.topic, items=self.items, judges=np.asarray(judges),
            judge=np.concatenate([self.judge, np.asarray(judge, dtype=np.int64)]),
            left=np.concatenate([self.left, np.asarray(left, dtype=np.int64)]),
            right=np.concatenate([self.right, np.asarray(right, dtype=np.int64)]),
            outcome=np.concatenate([self.outcome, np.asarray(outcome, dtype=np.int8)]),
        )


def ratings_to_preferences(judge: np.ndarray, item: np.ndarray, grade: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """All pairs of items rated by the same judge, as preferences (eq 5 of Niu et al.).

    Returns ``(judge, left, right, outcome)`` with ``left < right`` (item indices) and
    outcome ``sign(grade_left - grade_right)``. Vectorised: pairs are built per group of
    judges with the same number of ratings.
    """
    judge = np.asarray(judge, dtype=np.int64)
    item = np.asarray(item, dtype=np.int64)
    grade = np.asarray(grade, dtype=np.int64)
    order = np.lexsort((item, judge))
    w, it, g = judge[order], item[order], grade[order]
    starts = np.flatnonzero(np.r_[True, w[1:] != w[:-1]])
    counts = np.diff(np.r_[starts, len(w)])
    out_w, out_l, out_r, out_o = [], [], [], []
    for c in np.unique(counts):
        if c < 2:
            continue
        group_starts = starts[counts == c]
        a, b = np.triu_indices(c, k=1)
        ia = (group_starts[:, None] + a[None, :]).ravel()
        ib = (group_starts[:, None] + b[None, :]).ravel()
        out_w.append(w[ia])
        out_l.append(it[ia])
        out_r.append(it[ib])
        out_o.append(np.sign(g[ia] - g[ib]).astype(np.int8))
    if not out_w:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, np.zeros(0, dtype=np.int8)
    return (np.concatenate(out_w), np.concatenate(out_l), np.concatenate(out_r), np.concatenate(out_o))


def _index(values: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    labels = np.asarray(sorted_unique(values), dtype=object)
    lookup = {label: i for i, label in enumerate(labels)}
    return labels, values.astype(str).map(lookup).to_numpy(dtype=np.int64)


def topics_from_preferences(table: pd.DataFrame) -> dict[str, TopicJudgments]:
    """Canonical ``preferences`` table -> {topic: TopicJudgments}. Items are the topic's judged items.

    Items and judges are coded in natural order and the judgments sorted by (judge, left, right,
    outcome), so the same judgments in any row order give the same topics, bit for bit.
    """
    out: dict[str, TopicJudgments] = {}
    for topic, rows in table.groupby(table["topic"].astype(str), sort=False):
        both = pd.concat([rows["left"], rows["right"]], ignore_index=True).astype(str)
        items = np.asarray(sorted_unique(both), dtype=object)
        lookup = {label: i for i, label in enumerate(items)}
        judges, judge_idx = _index(rows["judge"])
        left = rows["left"].astype(str).map(lookup).to_numpy(dtype=np.int64)
        right = rows["right"].astype(str).map(lookup).to_numpy(dtype=np.int64)
        outcome = rows["outcome"].map(OUTCOME_CODES).to_numpy(dtype=np.int8)
        order = np.lexsort((outcome, right, left, judge_idx))  # canonical: the same in any row order
        out[str(topic)] = TopicJudgments(
            topic=str(topic), items=items, judges=judges, judge=judge_idx[order], left=left[order],
            right=right[order], outcome=outcome[order],
        )
    return {t: out[t] for t in sorted_unique(pd.Series(list(out)))}


def topics_from_ratings(table: pd.DataFrame) -> dict[str, TopicJudgments]:
    """Ratings ``topic, judge, item, grade`` -> {topic: TopicJudgments} with eq (5) preferences.

    Ratings are sorted by (judge, item) in natural id order: the same in any row order.
    """
    out: dict[str, TopicJudgments] = {}
    repeated = table.duplicated(["topic", "judge", "item"])
    if repeated.any():
        first = table[repeated].iloc[0]
        raise ValueError(f"ratings: judge {first['judge']!r} rates item {first['item']!r} of topic "
                         f"{first['topic']!r} more than once ({int(repeated.sum())} repeated ratings)")
    for topic, rows in table.groupby(table["topic"].astype(str), sort=False):
        items, item_idx = _index(rows["item"])
        judges, judge_idx = _index(rows["judge"])
        grade = rows["grade"].to_numpy(dtype=np.int64)
        order = np.lexsort((item_idx, judge_idx))  # canonical: the same in any row order
        judge_idx, item_idx, grade = judge_idx[order], item_idx[order], grade[order]
        pw, pl, pr, po = ratings_to_preferences(judge_idx, item_idx, grade)
        out[str(topic)] = TopicJudgments(
            topic=str(topic), items=items, judges=judges, judge=pw, left=pl, right=pr, outcome=po,
            rating_judge=judge_idx, rating_item=item_idx, rating_grade=grade,
        )
    return {t: out[t] for t in sorted_unique(pd.Series(list(out)))}


def sorted_unique(values: pd.Series) -> list[str]:
    """Return the unique string values in natural order (``d2`` before ``d10``)."""
    return list(natural_sort(pd.unique(values.astype(str))))
