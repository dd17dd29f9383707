#!/usr/bin/env python3
"""What known answers buy: each truth method with and without 10% of the truth given as gold items,
accuracy on the other 90%, on the truth sets of the data mirror.

    python benchmarks/truth_gold.py [--datasets rte,dog | --pool] [--methods dawid_skene,...] [--share 0.1]
                                    [--draws 5] [--mirror DIR] [--out benchmarks/results]

For each set and draw d (d = 0..draws-1), ``share`` of the items with a truth are drawn
uniformly (``numpy.random.default_rng(d)``) as gold; both fits (without gold, and with
``fit(labels, gold=...)``) are scored on the same other items. The table gives the mean accuracy
over the draws, the mean gain and the smallest gain of a draw, and the ECE and AUROC of the top-class
posterior on the same items (``manyjudges.truth.calibration``), without and with gold, means over the
draws. Methods: those whose ``gold_use`` is set (default: every such method of the registry). Data
sets as in ``truth_vs_crowdkit.py``, or with ``--pool`` every real set of the development pool
(``truth_pool.pool_sets``). Writes ``<out>/truth_gold.{tsv,md}``.
"""
from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from truth_vs_crowdkit import DATASETS, add_mirror_arguments, load, mirror_root  # noqa: E402

from manyjudges.truth import TRUTH_METHODS, as_crowd_labels, make_truth_estimator  # noqa: E402
from manyjudges.truth.calibration import calibration_scores  # noqa: E402

COLUMNS = ("dataset", "method", "gold_use", "n_gold", "n_scored", "accuracy_without", "accuracy_with", "mean_gain",
           "smallest_gain", "ece_without", "ece_with", "auroc_without", "auroc_with")


def gold_methods() -> list[str]:
    """The registry's methods that take gold items."""
    return [name for name in TRUTH_METHODS if make_truth_estimator(name).gold_use is not None]


def one_set(labels, truth, method: str, share: float, draws: int) -> dict:
    data = as_crowd_labels(labels, duplicates="first")
    truth = truth[truth.index.astype(str).isin(set(map(str, data.items)))]
    fitted = make_truth_estimator(method).fit(data)
    plain = fitted.labels_.copy()
    plain.index = plain.index.astype(str)
    truth.index = truth.index.astype(str)
    without, with_gold, gains, calibration = [], [], [], []
    n_gold = max(1, int(round(share * len(truth))))
    for draw in range(draws):
        picked = np.random.default_rng(draw).choice(len(truth), n_gold, replace=False)
        gold = truth.iloc[np.sort(picked)]
        rest = truth.drop(gold.index)
        helped_fit = make_truth_estimator(method).fit(data, gold=gold)
        helped = helped_fit.labels_.copy()
        helped.index = helped.index.astype(str)
        table = rest.rename("truth").rename_axis("item").reset_index()
        calibration.append((*calibration_scores(fitted.proba_.set_axis(fitted.proba_.index.astype(str)),
                                                plain, table),
                            *calibration_scores(helped_fit.proba_.set_axis(helped_fit.proba_.index.astype(str)),
                                                helped, table)))
        a = float((plain[rest.index].astype(str).to_numpy() == rest.astype(str).to_numpy()).mean())
        b = float((helped[rest.index].astype(str).to_numpy() == rest.astype(str).to_numpy()).mean())
        without.append(a)
        with_gold.append(b)
        gains.append(b - a)
    return {"n_gold": n_gold, "n_scored": len(truth) - n_gold, "accuracy_without": f"{np.mean(without):.4f}",
            "accuracy_with": f"{np.mean(with_gold):.4f}", "mean_gain": f"{np.mean(gains):+.4f}",
            "smallest_gain": f"{np.min(gains):+.4f}",
            **{name: f"{value:.4f}" for name, value in zip(("ece_without", "auroc_without", "ece_with", "auroc_with"),
                                                            np.nanmean(np.array(calibration), axis=0))}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default=",".join(DATASETS), help=f"comma-separated, of {', '.join(DATASETS)}")
    ap.add_argument("--methods", default=None, help="comma-separated (default: every method that takes gold)")
    ap.add_argument("--share", type=float, default=0.1, help="share of the truth items given as gold (0.1)")
    ap.add_argument("--draws", type=int, default=5, help="gold draws per set (5)")
    ap.add_argument("--pool", action="store_true", help="every real set of the development pool")
    add_mirror_arguments(ap)
    args = ap.parse_args(argv)
    mirror = mirror_root(ap, args)
    methods = args.methods.split(",") if args.methods else gold_methods()
    from timing_harness import write_tables

    if args.pool:
        from truth_pool import pool_sets

        sets = [(p.name, p.labels, p.truth.set_index("item")["truth"]) for p in pool_sets(mirror)]
    else:
        sets = [(dataset, *load(mirror, dataset)) for dataset in args.datasets.split(",")]
    rows = []
    for dataset, labels, truth in sets:
        for method in methods:
            row = {"dataset": dataset, "method": method, "gold_use": make_truth_estimator(method).gold_use,
                   **one_set(labels, truth, method, args.share, args.draws)}
            rows.append(row)
            print("\t".join(str(row[c]) for c in COLUMNS), flush=True)
    meta = [f"{args.share:.0%} of each set's truth items as gold, {args.draws} draws (numpy default_rng(draw)); "
            "accuracies on the other items, means over the draws",
            f"python {platform.python_version()}, {platform.platform()}"]
    tsv, md = write_tables(rows, COLUMNS, args.out, "truth_gold", "Truth inference with and without gold items", meta)
    print(f"wrote {tsv} and {md}")


if __name__ == "__main__":
    main()
