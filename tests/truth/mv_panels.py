"""Small simulated label tables and crowd-kit adapters for the majority-vote, Wawa and Dawid-Skene tests."""
from __future__ import annotations

import numpy as np
import pandas as pd


def simulated_table(seed: int, n_items: int, n_judges: int, k: int, per_item: int, accuracy=(0.55, 0.9),
                    prior=None) -> tuple[pd.DataFrame, np.ndarray]:
    """Each item labelled by ``per_item`` distinct judges; judge w right with probability acc[w]
    (drawn uniformly in ``accuracy``), otherwise a uniformly chosen wrong class. Rows shuffled."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(k, n_items, p=prior)
    acc = rng.uniform(*accuracy, n_judges)
    judge = np.argsort(rng.random((n_items, n_judges)), axis=1)[:, :per_item].ravel()
    item = np.repeat(np.arange(n_items), per_item)
    wrong = (truth[item] + rng.integers(1, k, item.size)) % k
    label = np.where(rng.random(item.size) < acc[judge], truth[item], wrong)
    order = rng.permutation(item.size)
    table = pd.DataFrame({"item": item[order], "judge": judge[order], "label": label[order]})
    return table, truth


def for_crowdkit(table: pd.DataFrame) -> pd.DataFrame:
    return table.rename(columns={"item": "task", "judge": "worker"})[["task", "worker", "label"]]


def crowdkit_wawa(table: pd.DataFrame):
    """crowd-kit's Wawa: ``Wawa.fit`` (majority vote, agreement skills) then the skill-weighted
    ``MajorityVote``, which is what ``Wawa.predict`` runs; called directly because ``Wawa.predict``'s
    ``check_is_fitted`` fails under scikit-learn >= 1.6 (crowd-kit's classes define no ``__sklearn_tags__``)."""
    from crowdkit.aggregation import MajorityVote, Wawa

    data = for_crowdkit(table)
    skills = Wawa().fit(data).skills_
    vote = MajorityVote().fit(data, skills=skills)
    return vote.labels_, vote.probas_, skills
