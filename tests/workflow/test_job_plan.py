"""How work is split into jobs: job_count / job_share (noise ratios, spammer ratios) and
planned_jobs (graded parts packed per method)."""
import pytest

from manyjudges.workflow_support import job_count, job_share, planned_jobs

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


def _section(m5_jobs):
    return {"datasets": {"d": {"source": "table", "path": "x"}}, "protocols": ["cross_induction", "single_parameter"],
            "methods": {"m1": {}, "dawid_skene": {}, "m5": {"jobs": m5_jobs}}}


def test_graded_parts_are_one_job_per_method_unless_the_cross_induction_is_split():
    plan = planned_jobs(_section(1), "d")
    assert plan["m1"] == [[("cross_induction", 0), ("single_parameter", 0)]]
    assert plan["dawid_skene"] == [[("cross_induction", 0)]]  # no single parameter
    assert plan["m5"] == [[("cross_induction", 0), ("single_parameter", 0)]]
    split = planned_jobs(_section(3), "d")["m5"]
    assert split == [[("cross_induction", 0)], [("cross_induction", 1)], [("cross_induction", 2)],
                     [("single_parameter", 0)]]
