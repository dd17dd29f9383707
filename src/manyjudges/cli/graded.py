"""``manyjudges graded evaluate|predict``: the graded family's subcommands."""
from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from manyjudges.cli.options import (
    _add_n_classes,
    _check_n_classes,
    _printf_table,
    _set_help,
    add_duplicates,
    add_method,
    family_verbs,
    label_names,
    parser_kwargs,
    refused,
)
from manyjudges.cli.terminal import CommandError, _Progress, build, input_path, parse_params
from manyjudges.graded.folds import DEFAULT_FOLDS, FOLDS_ABOVE_JUDGES
from manyjudges.io.engine.errors import DataError

__all__ = ["EXAMPLES", "add_commands"]

#: a tiny grades table, written by the shell command of the examples (each example runs as shown)
GRADES = _printf_table("grades.tsv", [("item", "judge", "label"),
                                      *[(f"d{d}", judge, label)
                                        for d, labels in enumerate(("221", "000", "121", "010"), 1)
                                        for judge, label in zip("abc", labels)]])

EXAMPLES = {
    "graded evaluate": """\
        GRADES has the columns item, judge, label (labels 0..K-1, or names with --labels giving them in
        order; a missing label is a missing row); in any order, worker for judge, task for item.

        example (three judges grade four documents 0..2):
          """ + GRADES + """
          manyjudges graded evaluate grades.tsv --method m4 --protocol cross_induction
        prints judge, method, protocol, loglik, n_items: the held-out log probability of each judge's
        labels, and the uniform baseline (method = uniform) n log(1/K).""",
    "graded predict": """\
        example (the grades of 'manyjudges graded evaluate --help'):
          """ + GRADES + """
          manyjudges graded predict grades.tsv --method m1 --labels bad,fair,good -o proba.tsv
        writes item and one column per label: P(label | item) for a judge not in the panel.""",
}


def add_commands(subparsers: Any) -> None:
    """``manyjudges graded evaluate`` and ``manyjudges graded predict``."""
    verbs = family_verbs(subparsers, "graded")
    graded_verbs = (("evaluate", "held-out log probability of each judge's labels", _cmd_graded_evaluate),
                    ("predict", "P(label | item) for a judge not in the panel", _cmd_graded_predict))
    for verb, summary, run in graded_verbs:
        p = verbs.add_parser(verb, **parser_kwargs(summary, EXAMPLES[f"graded {verb}"]))
        p.add_argument("grades", metavar="GRADES")
        add_method(p, "graded")
        _add_n_classes(p, "number of classes K (default: the largest label + 1)")
        p.add_argument("--labels", metavar="NAMES", help="label names in order 0..K-1, comma-separated; labels "
                                                         "in GRADES may be these names or integer codes")
        add_duplicates(p, "(item, judge)")
        _set_help(p, "duplicates", "a repeated (item, judge) row: an error naming both lines (default), or keep the "
                                  "first or the last row (keep is refused: one label per item and judge)")
        if verb == "evaluate":
            p.add_argument("--protocol", choices=["cross_induction", "single_parameter"], default="cross_induction")
            p.add_argument("--min-labels", type=int, default=1, metavar="N",
                           help="hold out and score only judges with at least N labels (default 1)")
            p.add_argument("--outer-folds", metavar="N", help=(
                "hold the scored judges out in N groups, or 'each' one at a time (default: each, or "
                f"{DEFAULT_FOLDS[0]} when the panel has more than {FOLDS_ABOVE_JUDGES} judges with labels: "
                "whole-panel cross induction costs a fit per judge)"))
        p.add_argument("--inner-folds", metavar="N", help=(
            "methods that choose their parameters by refitting without each training judge (m4, m5, dawid_skene) "
            f"refit without each of N groups instead, or 'each' (default: each, or {DEFAULT_FOLDS[1]} when the panel "
            "has more than "
            f"{FOLDS_ABOVE_JUDGES} judges with labels)"))
        p.set_defaults(run=run)


def read_panel(args: argparse.Namespace, min_labels: int | None = None, outer_folds: str | None = None):
    """(GradedPanel, label names) from a grades table; K from --labels, --n-classes or the largest label.

    With ``min_labels`` (evaluate) the panel must allow cross induction (in ``--outer-folds``), else a
    plain fit (predict): too few judges is a data error saying how many it has and needs.
    """
    from manyjudges.graded.panel import GradedPanel
    from manyjudges.graded.protocols import panel_problem, too_few_judges
    from manyjudges.io.tables.grades import check_grades_duplicates, read_grades_table

    names = label_names(args.labels)
    _check_n_classes(args.n_classes)
    refused(check_grades_duplicates, args.duplicates)
    with input_path(args.grades) as path:
        data = read_grades_table(path, args.n_classes, names, duplicates=args.duplicates, names_in_data=True,
                                 where="--n-classes / --labels" if names else "--n-classes or the largest label")
        counts = data.grades["judge"].value_counts().to_numpy()
        folds = None if outer_folds is None else folds_value(outer_folds)
        problem = (too_few_judges(len(counts), 0) if min_labels is None
                   else panel_problem(counts, min_labels, folds))
        if problem:
            raise DataError.at(path, None, problem)
    return GradedPanel.from_table(data.grades, data.n_classes), data.label_names


def graded_method(args: argparse.Namespace, panel):
    """Return (the method of ``--method``/``--params``, its outer folds).

    The folds are those of ``--outer-folds`` and ``--inner-folds``, each defaulting to
    :func:`~manyjudges.graded.folds.default_folds` of the panel's judges; a default that groups the judges
    is said on stderr.
    """
    import sys

    from manyjudges.graded.experiment import method_for
    from manyjudges.graded.folds import FOLDS_ABOVE_JUDGES, default_folds

    n_judges = len(panel.judges_present())
    outer, inner = default_folds(n_judges)
    given_outer = getattr(args, "outer_folds", None)
    if given_outer is not None:
        outer = folds_value(given_outer)
    if args.inner_folds is not None:
        inner = folds_value(args.inner_folds)
    method = build(lambda m, p: method_for({"method": m, "params": p}, m, {"inner_folds": inner}), args.method,
                   parse_params(args.params))
    defaulted = []
    if hasattr(args, "outer_folds") and given_outer is None and outer is not None:
        defaulted.append(f"{outer} outer folds")
    if args.inner_folds is None and inner is not None and hasattr(method, "inner_folds"):
        defaulted.append(f"{inner} inner folds")
    if defaulted:
        print(f"manyjudges: {n_judges} judges, more than {FOLDS_ABOVE_JUDGES}: {' and '.join(defaulted)} by default "
              "(--outer-folds / --inner-folds N or each)", file=sys.stderr)
    return method, outer


def folds_value(text: str) -> int | None:
    """``--outer-folds`` / ``--inner-folds``: an integer >= 2, or ``each`` (one judge per fold: None)."""
    if text == "each":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise CommandError(f"folds must be an integer >= 2 or 'each' (one judge per fold), got {text!r}")
    return value


def check_folds(args: argparse.Namespace) -> None:
    """``--outer-folds`` / ``--inner-folds`` checked before any file is read."""
    for value in (getattr(args, "outer_folds", None), args.inner_folds):
        if value is not None:
            folds_value(value)


def _cmd_graded_evaluate(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges graded evaluate``: the held-out log probability of each judge's labels."""
    from manyjudges.graded.experiment import loglik_table, predict_part, protocols_for

    check_folds(args)
    panel, _ = read_panel(args, args.min_labels, args.outer_folds)
    method, outer = graded_method(args, panel)
    if not protocols_for(method, [args.protocol]):
        raise CommandError(f"method {args.method!r} has no single parameter; use --protocol cross_induction")
    predictions, _ = predict_part(panel, method, args.protocol, 0, 1, args.min_labels, outer,
                                  progress=_Progress(f"{args.method} cross-induction folds"))
    return loglik_table(predictions, panel.n_classes)


def _cmd_graded_predict(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges graded predict``: P(label | item) for a judge not in the panel, one column per label."""
    check_folds(args)
    panel, names = read_panel(args)
    method, _ = graded_method(args, panel)
    from manyjudges.graded.base import proba_frame

    proba = proba_frame(panel, method.fit(panel).predict_proba())
    proba.columns = [str(n) for n in names]
    return proba.reset_index()
