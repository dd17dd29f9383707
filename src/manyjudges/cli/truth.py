"""``manyjudges truth infer`` and ``manyjudges truth next``.

One class per item from crowd labels, and where the next labels go (``manyjudges truth LABELS ...`` is
short for ``manyjudges truth infer LABELS ...``).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from manyjudges.cli.options import _add_judges_file, add_duplicates, add_method, family_verbs, parser_kwargs
from manyjudges.cli.terminal import CommandError, Output, _Stages, build, input_path, parse_params

if TYPE_CHECKING:
    from manyjudges.truth import TruthEstimator
    from manyjudges.truth.active.advice import Advice

__all__ = ["EXAMPLES", "add_commands"]

#: what the default method does, in the help of --method
AUTO_HELP = ("majority vote, Wawa, one-coin and full Dawid-Skene, each fitted without each fold of the labels, "
             "weighed by how well it predicts the withheld labels and anchored to the majority vote; it takes the "
             "classes as unordered, --params '{\"ordered\": true}' adds the ordinal model")
#: the help of infer's --labels
LABELS_HELP = ("the class names in order, lowest first, comma-separated (default: the integer class codes "
               "0..max(label) of the labels, with a warning for codes above a run of unused codes that hold few "
               "labels and for a class under 0.1%% of the labels that only one judge gave; --labels silences it). "
               "The order does not make auto take the classes as ordered: --params '{\"ordered\": true}' does")

EXAMPLES = {
    "truth infer": """\
        LABELS has the columns item, judge (or worker), label: one row per label a judge gave an item;
        labels are class codes 0..K-1, or names with --labels giving the classes in order (lowest first).
        TRUTH (optional) has the columns item, truth.

        example (three judges label three items; w3 disagrees with the others):
          printf 'item\\tjudge\\tlabel\\ni1\\tw1\\t1\\ni1\\tw2\\t1\\ni1\\tw3\\t0\\ni2\\tw1\\t0\\ni2\\tw2\\t0\\ni2\\tw3\\t1\\ni3\\tw1\\t1\\ni3\\tw2\\t1\\ni3\\tw3\\t1\\n' > labels.tsv
          printf 'item\\ttruth\\ni1\\t1\\ni2\\t0\\n' > truth.tsv
          manyjudges truth infer labels.tsv --truth truth.tsv --judges judges.tsv -o labels_inferred.tsv
          manyjudges truth infer labels.tsv --method dawid_skene -o dawid_skene.tsv
        The first runs auto, the default --method: it writes item, label and one posterior column per class
        (p_0, p_1) to labels_inferred.tsv (i1 1, i2 0, i3 1), judge, skill to judges.tsv, prints auto's weights
        (here majority_vote 1.00: on three items its posteriors predict the withheld labels best)
        and the accuracy on the items of truth.tsv (1.0000 on 2 items). The second fits the method it names
        (manyjudges methods truth lists them).

        manyjudges truth next LABELS --budget B: where the next labels should go
        (manyjudges truth next --help). manyjudges truth LABELS ... is short for manyjudges truth infer
        LABELS ...""",
    "truth next": """\
        LABELS as for 'manyjudges truth infer'. CANDIDATES has the column item and optionally available (how many
        more labels it can still get); JUDGES has the column judge and optionally available.

        example (the labels of 'manyjudges truth infer --help'):
          manyjudges truth next labels.tsv --budget 2 -o next.tsv
        writes item, score: the labels to buy next, best first (an item appears once per label it
        deserves; items already sure, past --stop, get none), and prints on stderr the estimated accuracy
        now (the mean top posterior), the expected gain of the 2 labels and, when the expected gain per
        label is below --min-gain, that it is time to stop (the table is then empty: its header only).""",
}


def add_commands(subparsers: Any) -> None:
    """``manyjudges truth infer`` and ``manyjudges truth next``; ``manyjudges truth LABELS ...`` is ``infer``'s."""
    verbs = family_verbs(subparsers, "truth", default="infer", data="LABELS")
    p = verbs.add_parser("infer", **parser_kwargs("one class per item (with its posteriors) and a skill per judge, "
                                                  "from many judges' labels", EXAMPLES["truth infer"]))
    p.add_argument("labels_table", metavar="LABELS")
    add_method(p, "truth", default="auto", why=AUTO_HELP)
    p.add_argument("--truth", metavar="TRUTH", help="item, truth: print the accuracy on these items, and how far the "
                                                     "posteriors can be trusted there (ECE, AUROC: docs/methods.md)")
    p.add_argument("--gold", metavar="GOLD", help=(
        "item, truth: known answers for some items, used in the fit (the EM methods keep their posteriors "
        "fixed and learn the judges from them too; majority_vote and wawa set their labels); the accuracy on "
        "TRUTH leaves them out"))
    _add_judges_file(p, "write judge, skill here")
    p.add_argument("--report", metavar="FILE", help="auto: write what it weighed here (candidate, "
                                                    "majority_agreement, pooled_log_likelihood, gold_accuracy, anchored, "
                                                    "heldout_log_likelihood, tempered_log_likelihood, beta, weight, "
                                                    "seconds, gold_evidence, chosen_by_gold)")
    p.add_argument("--labels", metavar="NAMES", help=LABELS_HELP)
    add_duplicates(p, "(item, judge)")
    p.add_argument("--strict", action="store_true",
                   help="a TRUTH row whose item has no labels is an error (default: counted and skipped, "
                        "with a warning)")
    p.set_defaults(run=_cmd_truth_infer)

    p = verbs.add_parser("next", **parser_kwargs(
        "where the next labels should go: the items (and judges) whose next label is expected to fix most",
        EXAMPLES["truth next"]))
    p.add_argument("labels_table", metavar="LABELS")
    add_method(p, "truth", default="auto", why=AUTO_HELP)
    p.add_argument("--budget", type=int, required=True, metavar="B", help="how many labels to buy next")
    p.add_argument("--policy", default="lookahead", choices=["lookahead", "uncertainty", "uniform", "random"],
                   help="lookahead (default): the expected gain in accuracy of the next labels (docs/methods.md); "
                        "uncertainty: lowest top posterior first; uniform: fewest labels first; random")
    p.add_argument("--candidates", metavar="CANDIDATES", help="item[, available]: only these items, each at most "
                                                               "available more labels")
    p.add_argument("--judges-available", "--workers-available", dest="judges_available", metavar="JUDGES",
                   help="judge[, available]: who can label now; the table gains a judge column; "
                        "--workers-available is the former spelling")
    p.add_argument("--stop", type=float, default=0.99, metavar="P",
                   help="items whose top posterior is at least P get no label (default 0.99; 1 to turn it off)")
    p.add_argument("--min-gain", type=float, default=None, metavar="G",
                   help="name no label when the budget's expected gain per label (the expected number of items "
                        "it sets right, read from the posteriors, divided by B) is below G: at least one item set "
                        "right per 1/G labels (default 0.002; 0: never stop)")
    p.add_argument("--labels", metavar="NAMES", help="the class names in order, lowest first, comma-separated")
    add_duplicates(p, "(item, judge)")
    p.set_defaults(run=_cmd_truth_next)


def _truth_method(args: argparse.Namespace) -> tuple[TruthEstimator, list[str] | None]:
    """Return (the method of ``--method`` and ``--params``, built once; the class names of ``--labels``).

    The method is built once: the one the command fits; a bad name or value fails before any data is read.
    """
    from manyjudges.truth.registry import make_truth_estimator

    classes = [c.strip() for c in args.labels.split(",")] if args.labels else None
    return build(make_truth_estimator, args.method, parse_params(args.params)), classes


def _cmd_truth_infer(args: argparse.Namespace) -> Output:
    """Run ``manyjudges truth infer``: one class per item, and the judges and report tables when asked for."""
    from manyjudges.io.tables.labels import read_crowd_labels, read_truth
    from manyjudges.truth.auto.estimator import Auto
    from manyjudges.truth.results import fit_method, judges_table, labels_table, truth_scores, without_gold

    estimator, classes = _truth_method(args)
    for flag, value in (("--judges", args.judges), ("--report", args.report)):
        if value == "-" or (value and value == args.output):
            raise CommandError(f"{flag} needs a file of its own (the labels go to -o or stdout)")
    if args.report and not hasattr(estimator, "candidate_names"):
        raise CommandError(f"--report: {args.method} has nothing to report (the method that does: auto)")
    for flag, value in (("--truth", args.truth), ("--gold", args.gold)):
        if value == "-":
            raise CommandError(f"{flag} must name a file (standard input can only be LABELS)")
    stages = _Stages(3 + bool(args.truth) + bool(args.gold))
    with input_path(args.labels_table) as path, stages(f"reading {args.labels_table}"):
        # sorted as the fit will sort them, in the sort that looks for repeated pairs (unless the method reads
        # the rows in file order)
        data = read_crowd_labels(path, classes=classes, duplicates=args.duplicates,
                                 sort=not estimator.uses_row_order())
    truth = None
    if args.truth:
        with input_path(args.truth) as path, stages(f"reading {args.truth}"):
            truth = read_truth(path, labels=data, classes=classes, strict=args.strict)
    gold = None
    if args.gold:
        with input_path(args.gold) as path, stages(f"reading {args.gold}"):
            gold = read_truth(path, labels=data, classes=classes, strict=args.strict)
    with stages(f"fitting {args.method} on {data.n_labels:,} labels ({data.n_items:,} items, "
                f"{data.n_judges:,} judges)" + (f", {len(gold):,} gold items" if gold is not None else "")):
        try:
            estimator, seconds = fit_method(estimator, data, gold)
        except ValueError as err:
            if gold is not None and "does not use gold items" in str(err):
                raise CommandError(f"--gold: {err}") from None
            raise
    with stages("tabulating"):
        table = labels_table(estimator)
    files = [(args.judges, judges_table(estimator))] if args.judges else []
    if args.report:
        assert isinstance(estimator, Auto)  # the one method with candidate_names (checked above)
        files.append((args.report, estimator.report_))
    notes = []
    choice = getattr(estimator, "choice_", None)
    if choice is not None:
        assert isinstance(estimator, Auto)  # the one method that sets choice_
        weights = ", ".join(f"{name} {w:.2f}" for name, w in estimator.weights_.items() if w > 0)
        notes.append(f"{args.method}: weights {weights} (largest: {choice})")
        gold_note = estimator.gold_note()
        if gold_note is not None:
            notes.append(f"{args.method}: {gold_note}")
    truth = without_gold(truth, gold)
    result = None
    if truth is not None:
        acc, n, ece, roc = truth_scores(estimator, truth)
        left_out = " that are not gold items" if gold is not None else ""
        result = (f"accuracy {acc:.4f} on {n} items with a truth{left_out}; ECE {ece:.4f}, AUROC {roc:.4f} "
                  f"({args.method}, {seconds:.2f} s)")
    return Output(table, tuple(files), tuple(notes), result)


def _cmd_truth_next(args: argparse.Namespace) -> Output:
    """Run ``manyjudges truth next``: where the next labels go, at most ``--budget`` of them, or none (the stop)."""
    from manyjudges.io.engine.id_counts import read_id_counts
    from manyjudges.io.tables.labels import read_crowd_labels
    from manyjudges.truth.active.advice import DEFAULT_MIN_GAIN, advise, fitted_confusions

    if args.budget < 1:
        raise CommandError(f"--budget must be a positive integer, got {args.budget}")
    if not 0 < args.stop <= 1:
        raise CommandError(f"--stop must be in (0, 1], got {args.stop:g}")
    min_gain = DEFAULT_MIN_GAIN if args.min_gain is None else args.min_gain
    if min_gain is not None and not min_gain >= 0:
        raise CommandError(f"--min-gain must be at least 0, got {min_gain:g}")
    estimator, classes = _truth_method(args)
    for flag, value in (("--candidates", args.candidates), ("--judges-available", args.judges_available)):
        if value == "-":
            raise CommandError(f"{flag} must name a file (standard input can only be LABELS)")
    stages = _Stages(3 + bool(args.candidates) + bool(args.judges_available))
    with input_path(args.labels_table) as path, stages(f"reading {args.labels_table}"):
        data = read_crowd_labels(path, classes=classes, duplicates=args.duplicates)
    candidates = judges = None
    if args.candidates:
        with stages(f"reading {args.candidates}"):
            candidates = read_id_counts(args.candidates, "item")
    if args.judges_available:
        with stages(f"reading {args.judges_available}"):
            judges = read_id_counts(args.judges_available, "judge")
    with stages(f"fitting {args.method} on {data.n_labels:,} labels"):
        estimator.fit(data)
        posteriors, confusions = estimator.proba_.to_numpy(), fitted_confusions(estimator, data)
    with stages(f"choosing {args.budget:,} labels ({args.policy})"):
        advice = advise(data, posteriors, args.budget, policy=args.policy, confusions=confusions,
                        candidates=candidates, judges_available=judges,
                        stop=None if args.stop >= 1 else args.stop, min_gain=min_gain)
    return Output(advice.table, notes=advice_notes(advice))


def advice_notes(advice: Advice) -> tuple[str, ...]:
    """Return the stderr lines of ``truth next``: the estimated accuracy, the budget's expected gain, and the stop."""
    notes = [f"estimated accuracy now: {advice.accuracy:.4f} (the mean top posterior over {advice.n_items:,} items)",
             f"expected gain of the next {advice.budget:,} labels: {advice.gain_accuracy:+.4f} accuracy, "
             f"{advice.gain:.2f} items, {advice.per_label:.4f} items per label"]
    if advice.stopped:
        notes.append(f"stop: the expected gain per label, {advice.per_label:.4f}, is below --min-gain "
                     f"{advice.min_gain:g}; no label is worth buying (the table is empty)")
    return tuple(notes)
