"""The `truth` and `truth next` commands: one class per item from crowd labels, and where the next labels go."""
from __future__ import annotations

import argparse

import pandas as pd

from manyjudges.cli.terminal import CommandError, Stages, build, input_path, parse_params, write_output

__all__ = ["cmd_truth", "cmd_truth_next", "truth_method"]


def truth_method(args: argparse.Namespace) -> tuple[dict, list[str] | None, object]:
    """(parameters, class names, the built method) of ``--method``, ``--params`` and ``--labels``: classes given
    in order tell a method that can use the order (auto) so; a bad name or value fails before any data is read."""
    from manyjudges.truth.experiment import with_ordered
    from manyjudges.truth.registry import make_truth_estimator

    params = parse_params(args.params)
    classes = [c.strip() for c in args.labels.split(",")] if args.labels else None
    if classes is not None:
        params = with_ordered(args.method, params)
    return params, classes, build(make_truth_estimator, args.method, params)


def cmd_truth(args: argparse.Namespace) -> pd.DataFrame | None:
    import sys

    from manyjudges.io.labels import read_crowd_labels, read_truth
    from manyjudges.truth.auto import Auto
    from manyjudges.truth.calibration import calibration_scores
    from manyjudges.truth.experiment import accuracy, fit_method, labels_table, without_gold, workers_table

    params, classes, estimator = truth_method(args)
    for flag, value in (("--workers", args.workers), ("--report", args.report)):
        if value == "-" or (value and value == args.output):
            raise CommandError(f"{flag} needs a file of its own (the labels go to -o or stdout)")
    if args.report and not hasattr(estimator, "candidate_names"):
        raise CommandError(f"--report: {args.method} has nothing to report (the method that does: auto)")
    for flag, value in (("--truth", args.truth), ("--gold", args.gold)):
        if value == "-":
            raise CommandError(f"{flag} must name a file (standard input can only be LABELS)")
    to_file = args.output not in (None, "-")
    stages = Stages(2 + bool(args.truth) + bool(args.gold) + bool(args.workers) + bool(args.report) + to_file)
    with input_path(args.labels_table) as path, stages(f"reading {args.labels_table}"):
        data = read_crowd_labels(path, classes=classes, duplicates=args.duplicates)
    truth = None
    if args.truth:
        with input_path(args.truth) as path, stages(f"reading {args.truth}"):
            truth = read_truth(path, labels=data, classes=classes, strict=args.strict)
    gold = None
    if args.gold:
        with input_path(args.gold) as path, stages(f"reading {args.gold}"):
            gold = read_truth(path, labels=data, classes=classes, strict=args.strict)
    with stages(f"fitting {args.method} on {data.n_labels:,} labels ({data.n_items:,} items, "
                f"{data.n_workers:,} workers)" + (f", {len(gold):,} gold items" if gold is not None else "")):
        try:
            estimator, seconds = fit_method(data, args.method, params, gold)
        except ValueError as err:
            if gold is not None and "does not use gold items" in str(err):
                raise CommandError(f"--gold: {err}") from None
            raise
    truth = without_gold(truth, gold)
    if args.workers:
        with stages(f"writing {args.workers}"):
            write_output(workers_table(estimator), args.workers)
    if args.report:
        assert isinstance(estimator, Auto)  # the one method with candidate_names (checked above)
        with stages(f"writing {args.report}"):
            write_output(estimator.report_, args.report)
    if to_file:
        with stages(f"writing {args.output}"):
            write_output(labels_table(estimator), args.output)
    choice = getattr(estimator, "choice_", None)
    if choice is not None:
        assert isinstance(estimator, Auto)  # the one method that sets choice_
        weights = ", ".join(f"{name} {w:.2f}" for name, w in estimator.weights_.items() if w > 0)
        print(f"{args.method}: weights {weights} (largest: {choice})", file=sys.stderr)
    if truth is not None:  # after the stages, so that the line does not run into a progress bar
        acc, n = accuracy(estimator.labels_, truth)
        ece, roc = calibration_scores(estimator.proba_, estimator.labels_, truth)
        # on stdout when the labels go to a file, else beside them on stderr
        left_out = " that are not gold items" if gold is not None else ""
        print(f"accuracy {acc:.4f} on {n} items with a truth{left_out}; ECE {ece:.4f}, AUROC {roc:.4f} "
              f"({args.method}, {seconds:.2f} s)", file=sys.stdout if to_file else sys.stderr)
    return None if to_file else labels_table(estimator)


def cmd_truth_next(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.io.id_counts import read_id_counts
    from manyjudges.io.labels import read_crowd_labels
    from manyjudges.truth.active import fitted_confusions, next_labels
    from manyjudges.truth.registry import make_truth_estimator

    if args.budget < 1:
        raise CommandError(f"--budget must be a positive integer, got {args.budget}")
    if not 0 < args.stop <= 1:
        raise CommandError(f"--stop must be in (0, 1], got {args.stop:g}")
    params, classes, _ = truth_method(args)
    for flag, value in (("--candidates", args.candidates), ("--workers-available", args.workers_available)):
        if value == "-":
            raise CommandError(f"{flag} must name a file (standard input can only be LABELS)")
    stages = Stages(3 + bool(args.candidates) + bool(args.workers_available))
    with input_path(args.labels_table) as path, stages(f"reading {args.labels_table}"):
        data = read_crowd_labels(path, classes=classes, duplicates=args.duplicates)
    candidates = workers = None
    if args.candidates:
        with stages(f"reading {args.candidates}"):
            candidates = read_id_counts(args.candidates, "item")
    if args.workers_available:
        with stages(f"reading {args.workers_available}"):
            workers = read_id_counts(args.workers_available, "worker")
    with stages(f"fitting {args.method} on {data.n_labels:,} labels"):
        estimator = make_truth_estimator(args.method, params).fit(data)
        posteriors, confusions = estimator.proba_.to_numpy(), fitted_confusions(estimator, data)
    with stages(f"choosing {args.budget:,} labels ({args.policy})"):
        return next_labels(data, posteriors, args.budget, policy=args.policy, confusions=confusions,
                           candidates=candidates, workers_available=workers,
                           stop=None if args.stop >= 1 else args.stop)
