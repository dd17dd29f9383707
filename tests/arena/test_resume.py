"""Incremental leaderboard fits: a state saved, loaded and resumed equals one pass over all the verdicts (every
method, hand tables and the mirror's llmfao split in two; names that change natural order; bootstrap intervals);
a state of another method refused; a damaged file named; no pickle in the file."""
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from manyjudges.arena import Leaderboard
from manyjudges.arena.leaderboard.state import LeaderboardState
from tests.arena.test_leaderboard import llmfao_verdicts, simulated_verdicts

METHODS = ["bradley_terry", "davidson", "elo", "crowd_bt", "judge_aware"]
NUMBERS = ["score", "ci_low", "ci_high", "win_rate", "win_low", "win_high"]


def same_tables(resumed: pd.DataFrame, one: pd.DataFrame, atol: float = 1e-6) -> None:
    """The same models in the same order, the same ranks, verdict counts and numbers within ``atol``."""
    assert list(resumed["model"]) == list(one["model"])
    for column in ("rank", "rank_low", "rank_high", "verdicts"):
        pd.testing.assert_series_equal(resumed[column], one[column])
    np.testing.assert_allclose(resumed[NUMBERS].to_numpy(float), one[NUMBERS].to_numpy(float), atol=atol, rtol=0)


def resumed_board(method, first, second, tmp_path, **kwargs):
    """Fit ``first``, save and load its state, then take ``second``: the leaderboard of both."""
    Leaderboard(method, **kwargs).fit(first).state_.save(tmp_path / "state.npz")
    state = LeaderboardState.load(tmp_path / "state.npz")
    return Leaderboard(method, **kwargs).partial_fit(second, state=state)


@pytest.mark.parametrize("method", METHODS)
def test_resumed_equals_one_pass_on_a_hand_table(tmp_path, method):
    verdicts = simulated_verdicts(seed=3, n=240)
    first, second = verdicts.iloc[:100], verdicts.iloc[100:]
    one = Leaderboard(method).fit(verdicts)
    resumed = resumed_board(method, first, second, tmp_path)
    same_tables(resumed.table_, one.table_)
    if one.judges_ is not None:
        pd.testing.assert_frame_equal(resumed.judges_, one.judges_, atol=1e-6, rtol=0)
    # without a bootstrap the state keeps the names, cells and counts, not the verdicts (judge_aware's clusters
    # weigh every verdict by all of them: kept)
    assert resumed.state_.units == (method == "judge_aware")
    assert resumed.state_.data.n_verdicts == (len(verdicts) if method == "judge_aware" else 0)
    np.testing.assert_array_equal(resumed.state_.model_verdicts, one.table_.set_index("model").loc[
        one.state_.data.models, "verdicts"])


@pytest.mark.parametrize("method, n_bootstrap", [("crowd_bt", 10), ("judge_aware", 10), ("davidson", 10),
                                                ("crowd_bt", 0), ("davidson", 0), ("elo", 0)])
def test_new_names_extend_the_codes_in_natural_order(tmp_path, method, n_bootstrap):
    """The second table brings a model, a judge and a prompt whose names are not digits, so the digit names of the
    first (models 2, 3, 10, ...; prompts 0, 7, 14, ...) go from numeric to code-point order: pairs swap their
    lower and higher model; the codes, cells and numbers are those of one pass."""
    verdicts = simulated_verdicts(seed=5, n=260, models=("2", "3", "10", "11", "25", "x"))
    verdicts["prompt"] = verdicts["prompt"].str[1:].astype(int).mul(7).astype(str)
    verdicts["judge"] = verdicts["judge"].str[1:].astype(int).mul(6).astype(str)
    new = verdicts["model_a"].eq("x") | verdicts["model_b"].eq("x") | verdicts["judge"].eq("12")
    first, second = verdicts[~new], pd.concat([verdicts[new], verdicts.iloc[:5].assign(prompt="a")])
    kwargs = {"n_bootstrap": n_bootstrap, "resample": "prompts"}
    one = Leaderboard(method, **kwargs).fit(pd.concat([first, second]))
    resumed = resumed_board(method, first, second, tmp_path, **kwargs)
    assert list(Leaderboard(method).fit(first).state_.data.models) == ["2", "3", "10", "11", "25"]
    assert list(one.state_.data.models) == ["10", "11", "2", "25", "3", "x"]
    same_tables(resumed.table_, one.table_)
    for name in ("models", "prompts", "judges"):
        assert list(getattr(resumed.state_.data, name)) == list(getattr(one.state_.data, name))
    for name in ("model_a", "model_b", "winner", "prompt", "judge"):
        np.testing.assert_array_equal(getattr(resumed.state_.data, name), getattr(one.state_.data, name))
    np.testing.assert_array_equal(resumed.state_.model_verdicts, one.state_.model_verdicts)
    for name in ("judge", "lo", "hi", "outcome", "lo_first"):
        np.testing.assert_array_equal(getattr(resumed.state_.cells, name), getattr(one.state_.cells, name))
    np.testing.assert_allclose(resumed.state_.counts, one.state_.counts, atol=1e-12)


@pytest.mark.parametrize("method, resample", [("bradley_terry", "verdicts"), ("davidson", "prompts"),
                                              ("elo", "judges")])
def test_bootstrap_intervals_after_resuming_equal_one_pass(tmp_path, method, resample):
    verdicts = simulated_verdicts(seed=7, n=300)
    kwargs = {"n_bootstrap": 40, "resample": resample, "seed": 3}
    one = Leaderboard(method, **kwargs).fit(verdicts)
    resumed = resumed_board(method, verdicts.iloc[:170], verdicts.iloc[170:], tmp_path, **kwargs)
    same_tables(resumed.table_, one.table_)
    np.testing.assert_allclose(resumed.replicates_, one.replicates_, atol=1e-6)


def test_partial_fit_without_a_state_is_fit_and_takes_its_own_state():
    verdicts = simulated_verdicts(seed=2, n=200)
    board = Leaderboard("davidson").partial_fit(verdicts.iloc[:90])
    board.partial_fit(verdicts.iloc[90:150]).partial_fit(verdicts.iloc[150:])
    same_tables(board.table_, Leaderboard("davidson").fit(verdicts).table_)


def test_a_resumed_row_order_gives_the_same_numbers(tmp_path):
    verdicts = simulated_verdicts(seed=4, n=200)
    a = resumed_board("bradley_terry", verdicts.iloc[:80], verdicts.iloc[80:], tmp_path)
    shuffled = verdicts.iloc[80:].sample(frac=1, random_state=1)
    b = resumed_board("bradley_terry", verdicts.iloc[:80].iloc[::-1], shuffled, tmp_path)
    same_tables(a.table_, b.table_)


def test_a_state_without_its_verdicts_refuses_a_bootstrap():
    verdicts = simulated_verdicts(seed=1, n=100)
    state = Leaderboard("davidson").fit(verdicts).state_
    assert not state.units and state.data.n_verdicts == 0
    with pytest.raises(ValueError, match="kept without its verdicts .* a bootstrap resamples every verdict"):
        Leaderboard("davidson", n_bootstrap=10).partial_fit(verdicts, state=state)
    assert Leaderboard("davidson", n_bootstrap=10).fit(verdicts).state_.units


def test_a_state_of_another_method_or_parameters_is_refused(tmp_path):
    verdicts = simulated_verdicts(seed=1, n=100)
    state = Leaderboard("bradley_terry").fit(verdicts).state_
    with pytest.raises(ValueError, match="fitted by bradley_terry .* not davidson"):
        Leaderboard("davidson").partial_fit(verdicts, state=state)
    with pytest.raises(ValueError, match=r'"reg": 0.01.*"reg": 0.5'):
        Leaderboard("bradley_terry", {"reg": 0.5}).partial_fit(verdicts, state=state)
    with pytest.raises(ValueError, match="bothbad tie, not .* bothbad drop"):
        Leaderboard("bradley_terry", bothbad="drop").partial_fit(verdicts, state=state)
    with pytest.raises(ValueError, match="the same columns"):
        Leaderboard("bradley_terry").partial_fit(verdicts.drop(columns="prompt"), state=state)


def test_the_file_is_numbers_and_json_without_pickle(tmp_path):
    board = Leaderboard("judge_aware").fit(simulated_verdicts(seed=1, n=120))
    board.state_.save(tmp_path / "s.npz")
    with np.load(tmp_path / "s.npz", allow_pickle=False) as archive:
        assert all(archive[name].dtype.kind in "iufbU" for name in archive.files)
        meta = json.loads(str(archive["meta"]))
    assert meta["method"] == "judge_aware" and meta["params"]["clusters"] == "auto"
    assert meta["models"] == list(board.scores_.index)
    loaded = LeaderboardState.load(tmp_path / "s.npz")
    np.testing.assert_array_equal(loaded.counts, board.state_.counts)
    np.testing.assert_array_equal(loaded.fit.extra, board.fit_.extra)


def test_a_foreign_or_damaged_file_is_named(tmp_path):
    (tmp_path / "text.npz").write_text("not a state\n")
    with pytest.raises(ValueError, match="text.npz: not a leaderboard state"):
        LeaderboardState.load(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", meta=np.asarray(json.dumps({"format": "something else"})))
    with pytest.raises(ValueError, match="other.npz: not a leaderboard state of this version"):
        LeaderboardState.load(tmp_path / "other.npz")
    Leaderboard().fit(simulated_verdicts(n=60)).state_.save(tmp_path / "s.npz")
    with zipfile.ZipFile(tmp_path / "s.npz") as archive:
        kept = {name: archive.read(name) for name in archive.namelist() if name != "counts.npy"}
    with zipfile.ZipFile(tmp_path / "cut.npz", "w") as archive:
        for name, data in kept.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="cut.npz: a damaged leaderboard state"):
        LeaderboardState.load(tmp_path / "cut.npz")


@pytest.mark.parametrize("method", METHODS)
def test_llmfao_in_two_halves_equals_one_pass(mirror, tmp_path, method):
    verdicts = llmfao_verdicts(mirror)
    half = len(verdicts) // 2
    kwargs = {"n_bootstrap": 5 if method == "judge_aware" else 20, "n_jobs": 1}
    one = Leaderboard(method, **kwargs).fit(verdicts)
    resumed = resumed_board(method, verdicts.iloc[:half], verdicts.iloc[half:], tmp_path, **kwargs)
    same_tables(resumed.table_, one.table_)


def test_a_controlled_leaderboard_keeps_no_state_and_is_not_resumed():
    verdicts = simulated_verdicts(seed=1, n=100).assign(length_a=1.0, length_b=2.0)
    verdicts.loc[::3, "length_a"] = 3.0
    board = Leaderboard(control=["length"]).fit(verdicts)
    assert board.state_ is None
    plain = Leaderboard().fit(verdicts).state_
    with pytest.raises(ValueError, match="with control is not resumed"):
        Leaderboard(control=["length"]).partial_fit(verdicts, state=plain)
