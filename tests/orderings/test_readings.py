"""The Readings rows of the ordered-list noise experiment: distances recomputed by hand on small tables."""
import numpy as np
import pandas as pd
import pytest

from manyjudges.orderings.readings import _noise_readings, _support_base_readings, _table1_cells
from manyjudges.reporting.readings import Reading, mean_absolute_difference, readings_markdown

PAPER = pd.DataFrame({
    "table": ["1"] * 6,
    "method": ["ac_tau", "ac_tau", "ac_tau", "frespa", "frespa", "frespa"],
    "noise_ratio": [0.0, 0.5, 1.0, 0.0, 0.5, 1.0],
    "paper_value": [0.4, 0.2, 0.1, 0.8, 0.6, 0.4],
})


def _ed(values: dict[str, list[float]]) -> pd.DataFrame:
    rows = [(r, m, v) for m, vs in values.items() for r, v in zip([0.0, 0.5, 1.0], vs)]
    return pd.DataFrame(rows, columns=["noise_ratio", "method", "ed_mean"]).assign(ed_sd=0.0, replicates=1)


def _write(tmp_path, name, values):
    path = tmp_path / f"{name}.tsv"
    _ed(values).to_csv(path, sep="\t", index=False)
    return path


def test_table1_cells_are_relative_to_noise_zero():
    cells = _table1_cells(_ed({"ac_tau": [0.8, 0.6, 0.2], "frespa_judges": [0.5, 0.5, 0.25]}), PAPER,
                         {"frespa_judges": "frespa"})
    assert cells["ours"].tolist() == pytest.approx([0.75, 0.25, 1.0, 0.5])
    assert cells["paper"].tolist() == pytest.approx([0.5, 0.25, 0.75, 0.5])


def test_noise_readings_compare_the_variant_that_changes_one_choice(tmp_path):
    default = _write(tmp_path, "default", {"ac_tau": [0.8, 0.4, 0.2], "frespa": [0.5, 0.4, 0.2],
                                           "frespa_judges": [0.5, 0.1, 0.1]})
    judges = _write(tmp_path, "judges", {"ac_tau": [0.8, 0.6, 0.4], "frespa": [0.5, 0.45, 0.4]})
    both = _write(tmp_path, "both", {"ac_tau": [0.8, 0.8, 0.8], "frespa": [0.5, 0.5, 0.5]})
    rows = _noise_readings("d", "simulated", default, {"judges_only": judges, "both": both},
                          {"ed_over": "all", "noise_rounding": "floor"},
                          {"judges_only": {"ed_over": "judges"},
                           "both": {"ed_over": "judges", "noise_rounding": "half_up"}},
                          {"frespa_judges": "frespa"}, PAPER)
    ed_over, rounding = rows
    # default: ac_tau 0.5, 0.25 vs paper 0.5, 0.25; frespa 0.8, 0.4 vs 0.75, 0.5 (frespa_judges left out)
    assert ed_over.distances["all"] == pytest.approx((0 + 0 + 0.05 + 0.1) / 4)
    # judges_only: ac_tau 0.75, 0.5 vs 0.5, 0.25; frespa 0.9, 0.8 vs 0.75, 0.5
    assert ed_over.distances["judges"] == pytest.approx((0.25 + 0.25 + 0.15 + 0.3) / 4)
    assert ed_over.cells == 4 and ed_over.default == "all" and ed_over.closest() == "all"
    assert rounding.distances == {"floor": pytest.approx(0.0375), "half_up": None}  # "both" changes two choices
    assert "not computed" in rounding.why()


def test_support_base_reading_pairs_frespa_entries_that_differ_only_in_it(tmp_path):
    default = _write(tmp_path, "default", {"frespa": [0.5, 0.4, 0.2], "frespa_judges": [0.5, 0.35, 0.25],
                                           "frespa_w2": [0.5, 0.1, 0.1]})
    methods = {"frespa": {"params": {"min_sup": 0.75}},
               "frespa_judges": {"method": "frespa", "params": {"min_sup": 0.75, "support_base": "judges"}},
               "frespa_w2": {"method": "frespa", "params": {"min_sup": 0.75, "w_len": 2.0}}}
    (row,) = _support_base_readings("d", "simulated", default, methods, PAPER)
    assert list(row.distances) == ["gold", "judges"] and row.default == "gold"
    assert row.distances["gold"] == pytest.approx((0.05 + 0.1) / 2)
    assert row.distances["judges"] == pytest.approx((0.05 + 0.0) / 2)
    assert row.closest() == "judges" and "not the closest" in row.why()


def test_mean_absolute_difference_skips_cells_either_lacks():
    mad, n = mean_absolute_difference(pd.Series([0.1, np.nan, 0.5, 0.2]), pd.Series([0.2, 0.3, np.nan, 0.0]))
    assert (mad, n) == (pytest.approx(0.15), 2)


def test_readings_markdown_names_every_option_default_and_reason():
    text = readings_markdown([Reading("a choice", "x.key", "Table 9", {"one": 0.1, "two": 0.3}, "one", 7, "fam")],
                             {"fam": "A note.", "other": "Not this one."})
    assert "## Readings" in text and "A note." in text and "Not this one." not in text
    assert ("| a choice | `x.key` | Table 9 | 7 | `one` 0.1000; `two` 0.3000 | `one` "
            "| closest to the paper (3.0x") in text
    assert readings_markdown([]) == ""


def test_noisy_column_reading_compares_the_papers_own_cells():
    from manyjudges.orderings.readings import DEFAULT_SWEEP_CELLS, _noisy_column_reading

    rows = [("1", "frespa", "", np.nan, r, v) for r, v in ((0.0, 0.7), (0.5, 0.5), (1.0, 0.3))]
    noisy = [0.52, 0.48, 0.5, 0.55, 0.45]
    rows += [(t, "frespa", par, val, 0.5, x) for (t, par, val), x in zip(DEFAULT_SWEEP_CELLS, noisy)]
    rows += [(t, "frespa", par, val, 0.0, 0.7) for t, par, val in DEFAULT_SWEEP_CELLS]  # clean cells: not used
    paper = pd.DataFrame(rows, columns=["table", "method", "parameter", "value", "noise_ratio", "paper_value"])
    reading = _noisy_column_reading(paper, 0.5)
    assert reading.cells == 5 and reading.default == "r = 0.5"
    assert reading.distances["r = 0.5"] == pytest.approx(np.mean(np.abs(np.array(noisy) - 0.5)))
    assert reading.distances["r = 1"] == pytest.approx(np.mean(np.array(noisy) - 0.3))
    assert reading.closest() == "r = 0.5"


def test_min_sup_zero_readings_agree_at_the_default_support_weight():
    """minSup = 0: counting the patterns no gold ordering contains changes nothing when wSup = 1, since
    such a pattern weighs (1 + wLen (|p| - 1)) (1 + wSup (0 - 1)) = 0; with wSup < 1 the readings differ."""
    import itertools

    from reference import brute_force_frespa, random_panel
    from reference.orderings import contains

    from manyjudges.orderings.frespa import FreSPAParams, frespa_score

    def every_pattern(gold, cands, w_len, w_sup):  # support 0 allowed: all sequences of distinct items
        num, den = np.zeros(len(cands)), 0.0
        for length in range(2, gold.shape[1] + 1):
            for p in itertools.permutations(range(gold.shape[1]), length):
                sup = sum(contains(g, p) for g in gold)
                w = (1 + w_len * (length - 1)) * (1 + w_sup * (sup - 1))
                den += w
                num += w * np.array([contains(c, p) for c in cands])
        return num / den

    rng = np.random.default_rng(5)
    gold, cands = random_panel(rng, 4, 5, agreement=0.3), random_panel(rng, 3, 5)
    ours = frespa_score(gold, cands, FreSPAParams(min_sup=0.0))
    assert ours == pytest.approx(brute_force_frespa(gold, cands, min_sup=0.0), abs=1e-12)
    assert ours == pytest.approx(every_pattern(gold, cands, 1.0, 1.0), abs=1e-12)
    half = frespa_score(gold, cands, FreSPAParams(min_sup=0.0, w_sup=0.5))
    assert not np.allclose(half, every_pattern(gold, cands, 1.0, 0.5))


def _sweep(values: dict[tuple[str, float], list[float]]) -> pd.DataFrame:
    """A sweep table: (parameter, value) -> ED at noise 0 and 0.5."""
    rows = [(par, val, r, ed) for (par, val), eds in values.items() for r, ed in zip([0.0, 0.5], eds)]
    return pd.DataFrame(rows, columns=["parameter", "value", "noise_ratio", "ed_mean"]).assign(ed_sd=0.0)


#: a tiny Table 3: maxLen / k at 0.5 and 1 (the default), minLen / k at 0 (the default) and 0.5
TABLE3_PAPER = pd.DataFrame(
    [("3", "frespa", par, val, r, x) for (par, val), xs in {("max_len_ratio", 0.5): (0.6, 0.3),
                                                          ("max_len_ratio", 1.0): (0.8, 0.6),
                                                          ("min_len_ratio", 0.0): (0.8, 0.5),
                                                          ("min_len_ratio", 0.5): (0.4, 0.1)}.items()
     for r, x in zip([0.0, 0.5], xs)]
    + [("2", "frespa", "w_len", 1.0, 0.0, 0.8), ("1", "frespa", "", np.nan, 0.0, 0.8)],
    columns=["table", "method", "parameter", "value", "noise_ratio", "paper_value"])


def test_table3_cells_are_relative_to_the_default_length_at_the_same_noise_ratio():
    from manyjudges.orderings.readings import _table3_cells

    sweep = _sweep({("max_len_ratio", 0.5): [0.5, 0.2], ("max_len_ratio", 1.0): [0.5, 0.4],
                    ("min_len_ratio", 0.0): [0.5, 0.4], ("min_len_ratio", 0.5): [0.25, 0.0],
                    ("w_len", 1.0): [0.5, 0.4]})  # not Table 3: left out
    cells = _table3_cells(sweep, TABLE3_PAPER)
    assert list(zip(cells["parameter"], cells["value"], cells["noise_ratio"])) == [
        ("max_len_ratio", 0.5, 0.0), ("max_len_ratio", 0.5, 0.5), ("min_len_ratio", 0.5, 0.0),
        ("min_len_ratio", 0.5, 0.5)]  # the default cells (1 = 1) left out
    assert cells["ours"].tolist() == pytest.approx([1.0, 0.5, 0.5, 0.0])
    assert cells["paper"].tolist() == pytest.approx([0.75, 0.5, 0.5, 0.2])


def test_length_rounding_reading_measures_each_rounding_on_table3(tmp_path):
    from manyjudges.orderings.readings import _length_rounding_reading

    floor, half_up, other = tmp_path / "floor.tsv", tmp_path / "half_up.tsv", tmp_path / "other.tsv"
    defaults = {("max_len_ratio", 1.0): [0.5, 0.4], ("min_len_ratio", 0.0): [0.5, 0.4]}
    for path, values in [(floor, {("max_len_ratio", 0.5): [0.5, 0.2], ("min_len_ratio", 0.5): [0.25, 0.0]}),
                         (half_up, {("max_len_ratio", 0.5): [0.4, 0.2], ("min_len_ratio", 0.5): [0.25, 0.1]}),
                         (other, {("max_len_ratio", 0.5): [0.0, 0.0]})]:
        _sweep({**values, **defaults}).to_csv(path, sep="\t", index=False)
    reading = _length_rounding_reading("d", "simulated", floor, {"half": half_up, "two": other},
                                      {"half": {"length_rounding": "half_up"},
                                       "two": {"length_rounding": "half_up", "w_len": 2}},  # changes two things
                                      "floor", TABLE3_PAPER)
    # floor: ours 1, 0.5, 0.5, 0 vs paper 0.75, 0.5, 0.5, 0.2
    assert reading.distances["floor"] == pytest.approx((0.25 + 0 + 0 + 0.2) / 4)
    # half_up: ours 0.8, 0.5, 0.5, 0.25 vs paper 0.75, 0.5, 0.5, 0.2
    assert reading.distances["half_up"] == pytest.approx((0.05 + 0 + 0 + 0.05) / 4)
    assert list(reading.distances) == ["floor", "half_up"] and reading.cells == 4
    assert reading.closest() == "half_up" and reading.config_key == "frespa: length_rounding"
    assert reading.tested_on == "Table 3, `d` (simulated)"
    missing = _length_rounding_reading("d", "simulated", floor, {}, {}, "floor", TABLE3_PAPER)
    assert missing.distances["half_up"] is None and "not computed" in missing.why()
