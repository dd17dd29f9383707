"""Rank distributions of one annotator (Niu et al., WSDM 2015, Algorithms 1 and 2) and CrowdAgg on trec_rf10.

For n = 50, 200, 1000 items: the rank distributions of all n items of one annotator
(n rows of n - 1 success probabilities, drawn uniformly at random), by
``bernoulli_sum_pmf`` (FFT divide and conquer, Algorithm 2) and by
``bernoulli_sum_pmf_direct`` (sequential convolution, Algorithm 1; vectorised over the
rows), best of 3, and the largest absolute difference between the two.

Then, when the mirror is present, CrowdAgg (ndcg, skill=True, margin) fitted on each of
the 100 topics of trec_rf10 (ratings -> eq 5 preferences): total fit seconds, best of 3.

Writes ``benchmarks/runs/rank_distribution.tsv`` (and ``.md``) and prints the table.

    python -m benchmarks.speed.rank_distribution
"""
from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np

from benchmarks.harness.timing import best_of_n, trec_rf10_file, write_tables
from manyjudges.crowd.rank_distribution import (
    bernoulli_sum_pmf,
    bernoulli_sum_pmf_direct,
)

BENCHMARKS = Path(__file__).resolve().parents[1]
TREC = trec_rf10_file()
SIZES = (50, 200, 1000)
REPEATS = 3
COLUMNS = ("n", "method", "seconds", "max_abs_diff")


def rank_rows() -> list[dict]:
    rows = []
    rng = np.random.default_rng(0)
    for n in SIZES:
        q = rng.random((n, n - 1))
        fft, t_fft = best_of_n(lambda q=q: bernoulli_sum_pmf(q), REPEATS)
        direct, t_direct = best_of_n(lambda q=q: bernoulli_sum_pmf_direct(q), REPEATS)
        diff = f"{np.abs(fft - direct).max():.2e}"
        rows.append({"n": n, "method": "fft_divide_conquer", "seconds": f"{t_fft:.4f}", "max_abs_diff": diff})
        rows.append({"n": n, "method": "direct_sequential", "seconds": f"{t_direct:.4f}", "max_abs_diff": diff})
        print(f"n={n}: fft {t_fft:.4f} s, direct {t_direct:.4f} s, max |diff| {diff}", flush=True)
    return rows


def crowdagg_row() -> dict | None:
    if not TREC.is_file():
        print(f"trec-rf10-data.txt not found at {TREC} (set MANYJUDGES_MIRROR): CrowdAgg timing skipped")
        return None
    from manyjudges.crowd.crowdagg import CrowdAgg
    from manyjudges.crowd.data import ratings_table
    from manyjudges.crowd.judgments import topics_from_ratings
    from manyjudges.io.sources.trec_rf10 import parse_trec_rf10

    topics = topics_from_ratings(ratings_table(parse_trec_rf10(TREC)))
    n_pairs = sum(len(t.outcome) for t in topics.values())
    n_strict = sum(int((t.outcome != 0).sum()) for t in topics.values())

    def fit_all():
        return [CrowdAgg(measure="ndcg", skill=True).fit(t).n_iter_ for t in topics.values()]

    n_iter, seconds = best_of_n(fit_all, REPEATS)
    print(f"CrowdAgg ndcg skill=True on trec_rf10: {len(topics)} topics, {n_pairs} rating pairs "
          f"({n_strict} strict), {seconds:.3f} s, passes per topic mean {np.mean(n_iter):.2f} max {max(n_iter)}")
    return {"n": f"trec_rf10 ({len(topics)} topics)", "method": "crowdagg_ndcg_quality_fit_all",
            "seconds": f"{seconds:.4f}", "max_abs_diff": ""}


def main() -> None:
    rows = rank_rows()
    row = crowdagg_row()
    if row is not None:
        rows.append(row)
    meta = [f"best of {REPEATS}; q ~ U(0, 1), numpy.random.default_rng(0)",
            (f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
             f"{os.cpu_count()} CPUs")]
    tsv, _ = write_tables(rows, COLUMNS, BENCHMARKS / "runs", "rank_distribution",
                          "Rank distributions: FFT divide and conquer vs direct convolution", meta)
    print(tsv.read_text(), end="")


if __name__ == "__main__":
    main()
