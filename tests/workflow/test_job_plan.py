"""How work is split into jobs: job_count / job_share (noise ratios, spammer ratios), ed_jobs
(ED per method, or several methods in the batch job) and planned_jobs (the same for graded parts)."""
import pytest

from manyjudges.pipeline.config_checks import check_config_references
from manyjudges.pipeline.workflow_support import (
    BATCH_JOB,
    ed_jobs,
    job_count,
    job_share,
    method_units,
    planned_jobs,
)

RATIOS = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3]


@pytest.mark.parametrize("jobs", [1, 2, 3, 4, 7, 9])
def test_job_shares_cover_the_values_once_in_order_and_near_equally(jobs):
    n = job_count(RATIOS, jobs)
    assert n == min(jobs, len(RATIOS))
    shares = [job_share(RATIOS, jobs, c) for c in range(n)]
    assert [v for share in shares for v in share] == RATIOS
    sizes = [len(share) for share in shares]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_a_job_that_does_not_exist_is_an_error():
    with pytest.raises(ValueError, match="no such job"):
        job_share(RATIOS, 3, 3)


def _section(m5_jobs, batch=None):
    return {"datasets": {"d": {"source": "table", "path": "x"}}, "protocols": ["cross_induction", "single_parameter"],
            "methods": {"m1": {}, "dawid_skene": {}, "m5": {"jobs": m5_jobs}}, "batch": batch or []}


def test_graded_parts_are_one_job_per_method_unless_the_cross_induction_is_split():
    plan = planned_jobs(_section(1), "d")
    assert plan["m1"] == [[("m1", "cross_induction", 0), ("m1", "single_parameter", 0)]]
    assert plan["dawid_skene"] == [[("dawid_skene", "cross_induction", 0)]]  # no single parameter
    assert plan["m5"] == [[("m5", "cross_induction", 0), ("m5", "single_parameter", 0)]]
    split = planned_jobs(_section(3), "d")["m5"]
    assert split == [[("m5", "cross_induction", 0)], [("m5", "cross_induction", 1)], [("m5", "cross_induction", 2)],
                     [("m5", "single_parameter", 0)]]


def test_batched_methods_share_one_job_and_the_others_keep_theirs():
    plan = planned_jobs(_section(2, batch=["m1", "dawid_skene"]), "d")
    assert list(plan) == [BATCH_JOB, "m5"]
    assert plan[BATCH_JOB] == [[("m1", "cross_induction", 0), ("m1", "single_parameter", 0),
                                ("dawid_skene", "cross_induction", 0)]]
    assert len(plan["m5"]) == 3
    every = sorted(part for jobs in plan.values() for job in jobs for part in job)
    assert every == sorted(part for jobs in planned_jobs(_section(2), "d").values() for job in jobs for part in job)


@pytest.mark.parametrize("batch, methods, fragment", [
    (["m9"], None, "graded.batch names methods ['m9']"),
    (["m5"], None, "split into several jobs"),
    (["m1"], {"batch": {"method": "m1"}, "m1": {}}, "graded.methods.batch"),
])
def test_a_bad_batch_is_a_config_error(batch, methods, fragment):
    graded = _section(2, batch=batch)
    if methods is not None:
        graded["methods"] = methods
    with pytest.raises(ValueError, match="config: ") as err:
        check_config_references({"graded": graded})
    assert fragment in str(err.value)


def test_ed_jobs_split_a_method_s_ratios_and_batch_the_listed_methods():
    section = {"noise_ratios": [0, 0.5, 1], "methods": {"ac_tau": {}, "frespa": {"jobs": 2}, "rba_tau": {}}}
    assert ed_jobs(section) == {"ac_tau": [(["ac_tau"], [0, 0.5, 1])],
                                "frespa": [(["frespa"], [0, 0.5]), (["frespa"], [1])],
                                "rba_tau": [(["rba_tau"], [0, 0.5, 1])]}
    batched = ed_jobs({**section, "batch": ["ac_tau", "rba_tau"]})
    assert batched == {BATCH_JOB: [(["ac_tau", "rba_tau"], [0, 0.5, 1])],
                       "frespa": [(["frespa"], [0, 0.5]), (["frespa"], [1])]}
    with pytest.raises(ValueError, match="orderings.batch: \\['frespa'\\] split"):
        check_config_references({"orderings": {**section, "batch": ["frespa"]}})


def test_crowd_units_are_one_job_per_method_but_one_for_the_batch():
    section = {"methods": {"borda": {}, "mpm": {}, "crowd_bt": {}}, "batch": ["borda", "crowd_bt"]}
    assert method_units(section) == {BATCH_JOB: ["borda", "crowd_bt"], "mpm": ["mpm"]}
    assert method_units({**section, "batch": []}) == {"borda": ["borda"], "mpm": ["mpm"], "crowd_bt": ["crowd_bt"]}
    with pytest.raises(ValueError, match="crowd.batch names methods \\['nope'\\]"):
        check_config_references({"crowd": {**section, "batch": ["nope"]}})
