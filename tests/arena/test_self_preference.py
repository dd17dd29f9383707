"""Self-preference of judges that are also contestants: a hand table worked out by hand, and the mirror's PRD
(its LLM judges are its contestants) against a direct pandas groupby count."""
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena.judges.self_preference import SELF_PREFERENCE_COLUMNS, self_preference

HAND = pd.DataFrame(
    [("p1", "A", "A", "B", "model_a"), ("p1", "A", "B", "A", "model_b"), ("p1", "j", "A", "B", "model_b"),
     ("p2", "A", "C", "A", "tie"), ("p2", "j", "A", "C", "model_a"), ("p3", "A", "B", "C", "model_a"),
     ("p1", "B", "A", "B", "model_a")],
    columns=["prompt", "judge", "model_a", "model_b", "winner"])


def test_a_hand_table():
    """A scores its own answer 1 on p1 (both orders) and 1/2 on p2; j, the only judge that is not a contestant
    in those units, 0 and 1: A's differences are 1 and -1/2. B scores its answer 0 on p1, j 1 (A, a contestant
    there, left out). j is not a contestant."""
    got = self_preference(HAND, ci=0.9).set_index("judge")
    z = NormalDist().inv_cdf(0.95)
    d = np.array([1.0, -0.5])
    half = z * d.std(ddof=1) / np.sqrt(2)
    np.testing.assert_allclose(got.loc["A", ["self_preference", "self_low", "self_high"]].to_numpy(float),
                               [0.25, 0.25 - half, 0.25 + half], atol=1e-12)
    assert got.loc["A", "self_units"] == 2
    assert got.loc["B", "self_preference"] == -1.0 and np.isnan(got.loc["B", "self_low"])
    assert got.loc["B", "self_units"] == 1
    assert got.loc["j", SELF_PREFERENCE_COLUMNS[:3]].isna().all() and pd.isna(got.loc["j", "self_units"])


def test_judge_models_names_a_judge_s_model():
    """With j the contestant C, j is left out of A's others on (A, C): A keeps p1 only."""
    got = self_preference(HAND, {"j": "C"}).set_index("judge")
    assert got.loc["A", "self_preference"] == 1.0 and got.loc["A", "self_units"] == 1
    assert np.isnan(got.loc["j", "self_preference"])  # no other judge judged C's units
    with pytest.raises(ValueError, match="no verdict: k"):
        self_preference(HAND, {"k": "C"})
    with pytest.raises(ValueError, match="in no verdict: j=D"):
        self_preference(HAND, {"j": "D"})


def test_the_row_order_does_not_matter():
    shuffled = HAND.sample(frac=1, random_state=3)
    pd.testing.assert_frame_equal(self_preference(shuffled), self_preference(HAND))


def direct_self_preference(verdicts: pd.DataFrame, own: dict[str, str], ci: float) -> pd.DataFrame:
    """The definition, as a pandas groupby over (prompt, unordered pair) for each contestant judge."""
    pair = [tuple(sorted(p)) for p in zip(verdicts["model_a"], verdicts["model_b"])]
    table = verdicts.assign(pair=pair)
    rows = []
    for judge, model in own.items():
        on = table[[model in p for p in table["pair"]]]
        named = np.where(on["winner"] == "model_a", on["model_a"], np.where(on["winner"] == "model_b",
                                                                           on["model_b"], "tie"))
        on = on.assign(score=np.where(named == "tie", 0.5, (named == model).astype(float)))
        contestant = [own.get(j) in p for j, p in zip(on["judge"], on["pair"])]
        mine = on[on["judge"] == judge].groupby(["prompt", "pair"])["score"].mean()
        others = on[(on["judge"] != judge) & ~np.array(contestant)].groupby(["prompt", "pair"])["score"].mean()
        d = (mine - others).dropna()
        half = NormalDist().inv_cdf((1 + ci) / 2) * d.std(ddof=1) / np.sqrt(len(d))
        rows.append((judge, d.mean(), d.mean() - half, d.mean() + half, len(d)))
    return pd.DataFrame(rows, columns=["judge", *SELF_PREFERENCE_COLUMNS]).set_index("judge")


def test_prd_against_a_direct_count(mirror):
    from manyjudges.io.sources.published import read_published

    folder, = mirror.glob("bcdnlp/PRD/*/data/vicuna80")
    verdicts = read_published([folder], "prd", "keep", None)
    verdicts = verdicts[~verdicts["judge"].str.startswith("human")].reset_index(drop=True)
    judges = sorted(set(verdicts["judge"]))
    assert set(judges) <= set(verdicts["model_a"]) | set(verdicts["model_b"])  # every LLM judge is a contestant
    got = self_preference(verdicts).set_index("judge")
    expected = direct_self_preference(verdicts, {j: j for j in judges}, 0.95)
    np.testing.assert_allclose(got.loc[judges, SELF_PREFERENCE_COLUMNS[:3]].to_numpy(float),
                               expected.loc[judges, SELF_PREFERENCE_COLUMNS[:3]].to_numpy(float), atol=1e-12)
    assert got.loc[judges, "self_units"].tolist() == expected.loc[judges, "self_units"].tolist()
    assert got.loc[judges, "self_units"].min() > 100
