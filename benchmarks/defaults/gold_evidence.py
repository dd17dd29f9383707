#!/usr/bin/env python3
"""Gold that counts: auto without and with 10% of the truth given as gold items, on the development pool and
the simulated suite, the gold's threshold chosen leave one group out.

    python -m benchmarks.defaults.gold_evidence [--mirror DIR] [--share 0.1] [--draws 0,1] [--sets NAME,...]
                                                [--cache DIR] [--out benchmarks/results]

Sets: every real set of the development pool (``harness.pool.pool_sets``, its groups) and every panel of
``simulated_suite(0)`` (each its own group). Per set and draw (``--draws``: 0 and 1), ``share`` of the items
with a truth are drawn as gold (``numpy.random.default_rng([draw, crc32(set name)])``, without replacement);
every fit is scored on the other
items with a truth. Fits: majority vote; Dawid-Skene without and with the gold; auto (default parameters,
``ordered`` left False) without gold, and with the gold once, its answers kept (``Auto.gold_answers_``): for
each configuration of ``CONFIGS`` (a ``gold_evidence`` of ``EVIDENCE``, None: the gold never overrules the
labels; and a rank of ``gold_choice.GOLD_RANKS``, accuracy or log score) the answer ``gold_choice.gold_choice`` takes,
calibrated on the held-out gold (``gold_choice.calibrate_on_gold``), is scored: accuracy, and the ECE and AUROC of its
posteriors (``manyjudges.truth.calibration``); ``ece_uncalibrated`` is the same answer's ECE without that
calibration. On LLM-judge panels (sets
named llmjudge*, prd*, pandalm*, whose judges label every item), the best single judge chosen with the truth:
the highest accuracy of one judge's own labels on the scored items (an item it did not label counts as wrong).

The configuration: leave one group out (``benchmarks.harness.selection.leave_one_group_out``), each group's sets
(every draw) scored under the configuration chosen on the other groups' sets and draws by ``choose_safe_best``
with auto without gold as the baseline and a floor of -0.005 (the fewest set draws where the gold costs more
than 0.005, then the highest mean accuracy). Writes ``<out>/truth_gold.{tsv,md}`` (the held-out rows) and
``<out>/truth_gold_evidence.tsv`` (every set and draw under every configuration). ``--cache DIR`` keeps each
set's rows (a pickle per set and draw).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import pickle
import platform
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness.selection import choose_safe_best, leave_one_group_out
from manyjudges.core.coded_labels import as_crowd_labels, gold_codes
from manyjudges.truth import make_truth_estimator
from manyjudges.truth.auto.estimator import DEFAULT_GOLD_EVIDENCE
from manyjudges.truth.auto.gold_choice import _GOLD_RANK, _GOLD_RANKS, _LABEL_ANSWER, _calibrate_on_gold, gold_choice
from manyjudges.truth.calibration import _calibration_scores
from manyjudges.truth.scenarios import simulated_suite

REPO = Path(__file__).resolve().parents[2]

#: the thresholds of ``Auto(gold_evidence=...)`` compared (None: the gold never overrules the labels)
EVIDENCE: tuple[float | None, ...] = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, None)
#: the configurations compared: a threshold and how the answers that pass it are ranked (``gold_choice``)
CONFIGS = [(evidence, rank) for evidence in EVIDENCE for rank in _GOLD_RANKS
           if evidence is not None or rank == _GOLD_RANK]
#: the sets whose judges label every item: the best single judge is reported there
LLM_PANELS = ("llmjudge", "prd", "pandalm")
#: the floor of ``choose_safe_best``: a set where the gold costs auto more than this counts against a threshold
FLOOR = -0.005
COLUMNS = ("set", "group", "draw", "n_gold", "n_scored", "majority_vote", "dawid_skene", "dawid_skene_gold", "auto",
           "auto_gold", "gain", "gold_evidence", "answer", "best_judge", "ece", "ece_gold", "auroc", "auroc_gold")


def gold_draw(truth: pd.Series, name: str, share: float, draw: int) -> pd.Series:
    """``share`` of the truth items (at least 1), drawn without replacement by a generator seeded by set and draw."""
    rng = np.random.default_rng([draw, zlib.crc32(name.encode())])
    n_gold = max(1, int(round(share * len(truth))))
    return truth.iloc[np.sort(rng.choice(len(truth), n_gold, replace=False))]


def scores(proba: pd.DataFrame, rest: pd.Series) -> tuple[float, float, float]:
    """(accuracy, ECE, AUROC) of posteriors (items x classes) on the items of ``rest`` (a Series of classes)."""
    labels = pd.Series(proba.columns.to_numpy()[proba.to_numpy().argmax(axis=1)], index=proba.index)
    acc = float((labels[rest.index].astype(str).to_numpy() == rest.astype(str).to_numpy()).mean())
    table = rest.rename("truth").rename_axis("item").reset_index()
    return (acc, *_calibration_scores(proba, labels, table))


def best_judge(data, rest: pd.Series) -> float:
    """The highest accuracy of one judge's own labels on the items of ``rest`` (a missing label counts wrong).

    ``data`` is the coded labels; ``rest`` a Series of classes by item, matched to the codes as the gold is.
    """
    items, classes, _ = gold_codes(data, rest)
    truth = np.full(data.n_items, -1)
    truth[items] = classes
    right = truth[data.item] == data.label
    return float(np.bincount(data.judge, weights=right, minlength=data.n_judges).max() / len(items))


def quiet_fit(method: str, data, gold=None):
    """A registry method fitted with its warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_truth_estimator(method).fit(data, gold=gold)


def with_str_index(proba: pd.DataFrame) -> pd.DataFrame:
    """``proba`` indexed by its items as text."""
    return proba.set_axis(proba.index.astype(str))


def set_rows(name: str, group: str, labels: pd.DataFrame, truth: pd.Series, share: float, draw: int) -> list[dict]:
    """One row per threshold of ``EVIDENCE`` for one set (the fits without gold repeated on each)."""
    data = as_crowd_labels(labels, duplicates="first")
    truth = truth.set_axis(truth.index.astype(str))
    truth = truth[truth.index.isin(set(map(str, data.items)))]
    gold = gold_draw(truth, name, share, draw)
    rest = truth.drop(gold.index)
    mv, ds, ds_gold, plain = (quiet_fit(m, data, g) for m, g in (("majority_vote", None), ("dawid_skene", None),
                                                                 ("dawid_skene", gold), ("auto", None)))
    helped = quiet_fit("auto", data, gold)
    items, _, _ = gold_codes(data, gold)
    base = {"set": name, "group": group, "draw": draw, "n_gold": len(items), "n_scored": len(rest),
            "majority_vote": scores(with_str_index(mv.proba_), rest)[0],
            "dawid_skene": scores(with_str_index(ds.proba_), rest)[0],
            "dawid_skene_gold": scores(with_str_index(ds_gold.proba_), rest)[0],
            "best_judge": best_judge(data, rest) if name.startswith(LLM_PANELS) else float("nan")}
    acc, ece, auroc = scores(with_str_index(plain.proba_), rest)
    base.update(auto=acc, ece=ece, auroc=auroc)
    rows = []
    for evidence, rank in CONFIGS:
        chosen = gold_choice(helped.gold_answers_, evidence, rank)
        confidence = _calibrate_on_gold(helped.gold_answers_[chosen], helped.gold_split_)
        proba = confidence.apply(helped.gold_answers_[chosen].full)
        proba[items] = np.eye(data.n_classes)[gold_codes(data, gold)[1]]  # as fit() sets the gold items
        frame = pd.DataFrame(proba, index=pd.Index(data.items.astype(str)), columns=data.classes)
        if (evidence, rank) == (DEFAULT_GOLD_EVIDENCE, _GOLD_RANK):  # the default's answer is the fit's own
            np.testing.assert_allclose(frame.to_numpy(), helped.proba_.to_numpy(), atol=1e-9)
        acc, ece, auroc = scores(frame, rest)
        raw = helped.gold_answers_[chosen].full.copy()
        raw[items] = np.eye(data.n_classes)[gold_codes(data, gold)[1]]
        _, ece_raw, _ = scores(pd.DataFrame(raw, index=frame.index, columns=data.classes), rest)
        rows.append({**base, "ece_uncalibrated": ece_raw, "beta": confidence.beta, "floor": confidence.floor,
                     "config": "never" if evidence is None else f"{evidence:g}/{rank}",
                     "answer": helped.gold_answers_[chosen].name if chosen else _LABEL_ANSWER,
                     "auto_gold": acc, "gain": acc - base["auto"], "ece_gold": ece, "auroc_gold": auroc})
    return rows


def cached_rows(name: str, group: str, labels, truth, draw: int, args: argparse.Namespace) -> list[dict]:
    """:func:`set_rows`, from ``args.cache`` when there."""
    path = None if args.cache is None else Path(args.cache) / f"gold_{name}_{draw}_{args.share:g}.pkl"
    if path is not None and path.exists():
        with path.open("rb") as handle:
            return pickle.load(handle)
    rows = set_rows(name, group, labels, truth, args.share, draw)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            pickle.dump(rows, handle)
    return rows


def all_sets(mirror: str | None, wanted: set[str] | None) -> list[tuple[str, str, pd.DataFrame, pd.Series]]:
    """(name, group, labels, truth) of the pool's sets (when ``mirror``) and the simulated suite's panels."""
    sets = []
    if mirror:
        from benchmarks.harness.pool import pool_sets

        with contextlib.redirect_stderr(io.StringIO()):
            sets += [(p.name, p.group, p.labels, p.truth.set_index("item")["truth"]) for p in pool_sets(mirror)]
    suite = simulated_suite(0)
    sets += [(name, name, labels, truth.set_index("item")["truth"]) for name, (labels, truth) in suite.items()]
    return [s for s in sets if wanted is None or s[0] in wanted]


def choose(rows: pd.DataFrame) -> object:
    """The threshold with the fewest sets where gold costs more than ``FLOOR``, then the highest mean accuracy."""
    return choose_safe_best(rows, metric="auto_gold", baseline="auto", floor=FLOOR)


def summary(every: pd.DataFrame, held: pd.DataFrame) -> list[str]:
    """Lines on the thresholds in sample and the held-out choice against the targets."""
    lines = []
    for config, part in every.groupby("config", sort=False):
        lines.append(f"gold_evidence {config}: mean accuracy {part['auto_gold'].mean():.4f}, mean gain "
                     f"{part['gain'].mean():+.4f}, worst gain {part['gain'].min():+.4f}, sets below {FLOOR}: "
                     f"{int((part['gain'] < FLOOR - 1e-12).sum())} of {len(part)} set draws")
    llm = held[held["set"].str.startswith(LLM_PANELS)]
    crowd = held[~held["set"].str.startswith(LLM_PANELS) & ~held["set"].str.startswith("sim_")]
    lines.append(f"ECE of the held-out rows' answers: {held['ece_gold'].mean():.4f} calibrated on the held-out "
                 f"gold, {held['ece_uncalibrated'].mean():.4f} not (worse calibrated on "
                 f"{int((held['ece_gold'] > held['ece_uncalibrated']).sum())} of {len(held)} set draws); auto without "
                 f"gold {held['ece'].mean():.4f}")
    lines.append(f"held out: mean accuracy {held['auto_gold'].mean():.4f} with gold, {held['auto'].mean():.4f} "
                 f"without; mean gain {held['gain'].mean():+.4f}")
    lines.append(f"LLM-judge panels ({len(llm)} set draws): auto with gold at least the best judge on "
                 f"{int((llm['auto_gold'] >= llm['best_judge'] - 1e-12).sum())}; mean auto with gold "
                 f"{llm['auto_gold'].mean():.4f}, best judge {llm['best_judge'].mean():.4f}")
    lines.append(f"crowd sets ({len(crowd)} set draws): worst gain {crowd['gain'].min():+.4f} "
                 f"({crowd.loc[crowd['gain'].idxmin(), 'set'] if len(crowd) else ''}); set draws with a gain >= 0: "
                 f"{int((crowd['gain'] >= 0).sum())}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=os.environ.get("MANYJUDGES_MIRROR"),
                    help="the data mirror root (default: $MANYJUDGES_MIRROR; without it the simulated suite only)")
    ap.add_argument("--share", type=float, default=0.1, help="share of the truth items given as gold (0.1)")
    ap.add_argument("--draws", default="0,1", help="comma-separated gold draws (0,1)")
    ap.add_argument("--sets", default=None, help="comma-separated set names (default: all)")
    ap.add_argument("--cache", default=None, help="a directory for each set's rows")
    ap.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = ap.parse_args(argv)
    rows = []
    for name, group, labels, truth in all_sets(args.mirror, set(args.sets.split(",")) if args.sets else None):
        for draw in map(int, args.draws.split(",")):
            rows += cached_rows(name, group, labels, truth, draw, args)
        print(name, "done", flush=True, file=sys.stderr)
    every = pd.DataFrame(rows)
    held = leave_one_group_out(every, choose).rename(columns={"chosen": "gold_evidence"})
    from benchmarks.harness.timing import write_tables

    out_rows = [{c: (f"{v:.4f}" if isinstance(v, float) else v) for c, v in r.items()}
                for r in held.to_dict("records")]
    lines = summary(every, held)
    meta = [f"{args.share:.0%} of each set's truth items as gold (draws {args.draws}); scores on the other items with "
            "a truth; auto_gold under the gold_evidence chosen leave one group out", *lines,
            f"python {platform.python_version()}, {platform.platform()}"]
    tsv, md = write_tables(out_rows, COLUMNS, args.out, "truth_gold", "Auto with and without gold items", meta)
    every.to_csv(args.out / "truth_gold_evidence.tsv", sep="\t", index=False, float_format="%.4f")
    print("\n".join(lines))
    print(f"wrote {tsv}, {md} and {args.out / 'truth_gold_evidence.tsv'}")


if __name__ == "__main__":
    main()
