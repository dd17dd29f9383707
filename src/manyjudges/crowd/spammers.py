"""Added spammers for the robustness study of Niu et al. (s.6.4, Figures 3-4).

A *random* spammer answers each pair it labels by a coin flip (tau_RandSpam: y or 1 - y
with probability 1/2 each). A *malicious* spammer answers against the truth-derived
preference, tau_MaliSpam = 1 - y(a, b), where y prefers the item with the higher truth grade.
"""
from __future__ import annotations

import math
import re

import numpy as np

from manyjudges.core.random_streams import distinct_draws
from manyjudges.crowd.judgments import TopicJudgments
from manyjudges.crowd.skill import Truth, truth_preference, truth_vector

SPAMMER_KINDS = ("random", "malicious")


def n_spammers(ratio: float, n_judges: int) -> int:
    """Return ``round(ratio * m)``, half up.

    The product is first rounded to 9 decimals so that float noise such as
    ``0.35 * 10 = 3.4999999999999996`` does not move it across the half.
    """
    return math.floor(round(ratio * n_judges, 9) + 0.5)


def judgments_per_spammer(topic: TopicJudgments) -> int:
    """Return a typical annotator's load: the median number of preferences per judge.

    The median is over the judges with at least one preference, rounded half up; at least 1.
    """
    counts = np.bincount(topic.judge, minlength=topic.n_judges)
    counts = counts[counts > 0]
    if counts.size == 0:
        return 1
    return max(1, math.floor(float(np.median(counts)) + 0.5))


def judged_pairs(topic: TopicJudgments) -> tuple[np.ndarray, np.ndarray]:
    """Distinct unordered item pairs the crowd judged, as ``(a, b)`` with ``a < b``.

    A topic without preferences falls back to all ``n (n - 1) / 2`` item pairs.
    """
    a = np.minimum(topic.left, topic.right)
    b = np.maximum(topic.left, topic.right)
    keep = a != b
    if keep.any():
        pairs = np.unique(np.stack([a[keep], b[keep]], axis=1), axis=0)
        return pairs[:, 0], pairs[:, 1]
    if topic.n_items < 2:
        raise ValueError(f"topic {topic.topic!r}: spammers need at least 2 items")
    a, b = np.triu_indices(topic.n_items, k=1)
    return a, b


def _next_number(judges: np.ndarray, prefix: str) -> int:
    pattern = re.compile(re.escape(prefix) + r"(\d+)$")
    found = [int(m.group(1)) for w in judges if (m := pattern.match(str(w)))]
    return max(found, default=0) + 1


def add_spammers(topic: TopicJudgments, truth_grades: Truth, kind: str, ratio: float,
                 rng: np.random.Generator) -> TopicJudgments:
    """Return the topic with ``round(ratio * m)`` added spammers of one kind (m = its number of judges).

    Each spammer labels ``judgments_per_spammer(topic)`` pairs (the median load), drawn
    uniformly without replacement from the distinct item pairs the crowd judged in this
    topic (with replacement when there are fewer distinct pairs than that); each pair is
    shown in a random left/right orientation.

    - ``"random"``: outcome +1 or -1 by a fair coin.
    - ``"malicious"``: outcome ``-y(left, right)``, y = +1 when the left item has the higher
      truth grade; on pairs tied in the truth or with an ungraded item, a fair coin.

    Spammers never answer "tie". Their ids are ``spammer_<kind>_<i>``, numbered on from any
    existing spammer of that kind, appended by ``topic.with_preferences`` (which drops
    ratings). ``ratio`` giving 0 spammers returns ``topic`` itself, unchanged.

    Raises ValueError for an unknown ``kind`` (naming it) or a negative ``ratio``.
    """
    if kind not in SPAMMER_KINDS:
        raise ValueError(f"unknown spammer kind {kind!r}; known: {', '.join(SPAMMER_KINDS)}")
    if not ratio >= 0:
        raise ValueError(f"spammer ratio must be >= 0, got {ratio}")
    n_spam = n_spammers(ratio, topic.n_judges)
    if n_spam == 0:
        return topic
    per = judgments_per_spammer(topic)
    a, b = judged_pairs(topic)
    n_pairs = len(a)
    if n_pairs >= per:  # a uniform subset of size `per` per spammer, all spammers at once
        pick = distinct_draws(rng, n_spam, n_pairs, per)
    else:
        pick = rng.integers(0, n_pairs, size=(n_spam, per))
    pick = pick.ravel()
    flip = rng.random(pick.size) < 0.5
    left = np.where(flip, b[pick], a[pick])
    right = np.where(flip, a[pick], b[pick])
    coin = np.where(rng.random(pick.size) < 0.5, 1, -1).astype(np.int8)
    if kind == "random":
        outcome = coin
    else:
        y = truth_preference(truth_vector(topic, truth_grades), left, right)
        outcome = np.where(y != 0, -y, coin).astype(np.int8)
    prefix = f"spammer_{kind}_"
    first = _next_number(topic.judges, prefix)
    names = np.array([f"{prefix}{first + i}" for i in range(n_spam)], dtype=object)
    judge = topic.n_judges + np.repeat(np.arange(n_spam), per)
    judges = np.concatenate([np.asarray(topic.judges, dtype=object), names])
    return topic.with_preferences(judge, left, right, outcome, judges)
