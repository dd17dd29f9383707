"""The subcommands: each reads its table, calls the library function the pipeline calls, and
returns the table to print."""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from manyjudges.cli.terminal import CommandError, Progress, build, input_path, parse_params, write_output
from manyjudges.io.errors import DataError

# ---------------------------------------------------------------------------
# methods


def cmd_methods(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges import FAMILIES, family_registry

    families = [args.family] if args.family else list(FAMILIES)
    rows = []
    for family in families:
        for entry in family_registry(family).describe():
            params = ", ".join(f"{k}={v!r}" for k, v in entry["parameters"].items())
            rows.append({"family": family, "method": entry["method"], "summary": entry["summary"],
                         "parameters": params})
    return pd.DataFrame(rows, columns=["family", "method", "summary", "parameters"])


# ---------------------------------------------------------------------------
# orderings


def cmd_orderings_ed(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.io.tables import check_duplicate_rule, read_orderings
    from manyjudges.orderings.evaluation import ed_by_set
    from manyjudges.orderings.experiment import panels_from_table
    from manyjudges.orderings.registry import make_ordering_scorer

    scorer = build(make_ordering_scorer, args.method, parse_params(args.params))
    refused(check_duplicate_rule, args.duplicates, "(set_id, judge, item)", "an orderings table")
    with input_path(args.orderings) as path:
        panels = panels_from_table(read_orderings(path, duplicates=args.duplicates))
    return ed_by_set(scorer, panels, Progress("ED by set"))


def cmd_orderings_score(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.io.tables import check_duplicate_rule, orderings_to_rank_matrices, read_orderings
    from manyjudges.orderings.evaluation import checked_scores
    from manyjudges.orderings.registry import make_ordering_scorer

    scorer = build(make_ordering_scorer, args.method, parse_params(args.params))
    if args.orderings == "-" and args.candidates == "-":
        raise CommandError("only one of ORDERINGS and CANDIDATES can be read from stdin")
    refused(check_duplicate_rule, args.duplicates, "(set_id, judge, item)", "an orderings table")
    with input_path(args.orderings) as gold_path:
        gold = orderings_to_rank_matrices(read_orderings(gold_path, duplicates=args.duplicates))
    with input_path(args.candidates) as cand_path:
        candidates = read_orderings(cand_path, min_judges=1, duplicates=args.duplicates)
        rows = []
        progress = Progress("scoring sets")
        sets = candidates.groupby("set_id", sort=False)  # one pass; rows keep their file order
        for done, (set_id, table) in enumerate(sets, 1):
            if set_id not in gold:
                raise DataError.at(cand_path, candidates.attrs["lines"][table.index[0]],
                                   f"set has no gold orderings in {args.orderings}", set_id)
            _, items, gold_ranks = gold[set_id]
            names, ranks = candidate_rank_matrix(table, set_id, items, cand_path, candidates.attrs["lines"])
            scores = checked_scores(scorer, scorer.fit(gold_ranks).score(ranks), len(names))
            rows += [{"set_id": set_id, "candidate": name, "score": float(s)} for name, s in zip(names, scores)]
            progress(done, sets.ngroups)
    return pd.DataFrame(rows, columns=["set_id", "candidate", "score"])


def refused(check: Callable[..., None], *args: Any) -> None:
    """A library check of ``--duplicates`` (a ValueError) as a command-line mistake naming the flag."""
    try:
        check(*args)
    except ValueError as err:
        raise CommandError(str(err).replace("duplicates='keep'", "--duplicates keep")) from None


def candidate_rank_matrix(table: pd.DataFrame, set_id: str, items: Sequence[str], path: Any, lines: Sequence[int]):
    """(candidate names, (c, k) rank matrix over the gold items' column order) of one set."""
    import numpy as np

    column = {item: k for k, item in enumerate(items)}
    by_candidate = list(table.groupby("judge", sort=False))  # candidates in file order
    ranks = np.zeros((len(by_candidate), len(items)))
    for c, (name, rows) in enumerate(by_candidate):
        for label, item in zip(rows.index, rows["item"]):
            if item not in column:
                raise DataError.at(path, lines[label], f"candidate {name!r} ranks an item that no gold ordering of "
                                   f"set {set_id!r} ranks", item)
        if len(rows) < len(items):  # every ranked item is a gold item and appears once (read_orderings)
            ranked = set(rows["item"])
            missing = [i for i in items if i not in ranked]
            raise DataError.at(path, lines[rows.index[0]], f"candidate {name!r} does not rank the gold items "
                               f"{missing[:5]} of set {set_id!r}", name)
        ranks[c, [column[i] for i in rows["item"]]] = rows["rank"].to_numpy(dtype=float)
    return [name for name, _ in by_candidate], ranks


# ---------------------------------------------------------------------------
# consensus


def cmd_consensus(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.consensus.experiment import search_engine_grid
    from manyjudges.io.rankings import rankings_to_lists, read_rankings
    from manyjudges.io.tables import check_duplicate_rule

    if not (args.lam > 0 and args.gamma > 0):  # before the data is read (the measure checks it too)
        raise CommandError(f"--lambda and --gamma must be positive, got {args.lam:g} and {args.gamma:g}")
    refused(check_duplicate_rule, args.duplicates, "(list_set, list_id, rank) position", "a rankings table")
    with input_path(args.rankings) as path:
        lists = rankings_to_lists(read_rankings(path, duplicates=args.duplicates))
        list_sets = {name: list(by_id.values()) for name, by_id in lists.items()}
    return search_engine_grid(list_sets, [args.lam], [args.gamma])


# ---------------------------------------------------------------------------
# graded


def read_panel(args: argparse.Namespace, min_labels: int | None = None, outer_folds: str | None = None):
    """(GradedPanel, label names) from a grades table; K from --labels, --n-labels or the largest label.

    With ``min_labels`` (evaluate) the panel must allow cross induction (in ``--outer-folds``), else a
    plain fit (predict): too few judges is a data error saying how many it has and needs."""
    from manyjudges.graded.panel import GradedPanel
    from manyjudges.graded.protocols import panel_problem, too_few_judges
    from manyjudges.io.grades import check_grades_duplicates, read_grades_table

    names = label_names(args.labels)
    check_n_labels(args.n_labels)
    refused(check_grades_duplicates, args.duplicates)
    with input_path(args.grades) as path:
        data = read_grades_table(path, args.n_labels, names, duplicates=args.duplicates, names_in_data=True,
                                 where="--n-labels / --labels" if names else "--n-labels or the largest label")
        counts = data.grades["judge"].value_counts().to_numpy()
        folds = None if outer_folds is None else folds_value(outer_folds)
        problem = (too_few_judges(len(counts), 0) if min_labels is None
                   else panel_problem(counts, min_labels, folds))
        if problem:
            raise DataError.at(path, None, problem)
    return GradedPanel.from_table(data.grades, data.n_labels), data.label_names


def check_n_labels(n_labels: int | None) -> None:
    if n_labels is not None and n_labels < 2:
        raise CommandError(f"--n-labels must be at least 2, got {n_labels}")


def label_names(text: str | None) -> list[str] | None:
    """``--labels G,P,R,X``: the label names in order 0..K-1 (None without the option)."""
    return [n.strip() for n in text.split(",")] if text else None


def graded_method(args: argparse.Namespace, panel):
    """(the method of ``--method``/``--params``, its outer folds): the folds of ``--outer-folds`` and
    ``--inner-folds``, each defaulting to :func:`~manyjudges.folds.default_folds` of the
    panel's judges; a default that groups the judges is said on stderr."""
    import sys

    from manyjudges.folds import FOLDS_ABOVE_JUDGES, default_folds
    from manyjudges.graded.experiment import method_for

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


def cmd_graded_evaluate(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.graded.experiment import loglik_table, predict_part, protocols_for

    check_folds(args)
    panel, _ = read_panel(args, args.min_labels, args.outer_folds)
    method, outer = graded_method(args, panel)
    if not protocols_for(method, [args.protocol]):
        raise CommandError(f"method {args.method!r} has no single parameter; use --protocol cross_induction")
    predictions, _ = predict_part(panel, method, args.protocol, 0, 1, args.min_labels, outer,
                                  progress=Progress(f"{args.method} cross-induction folds"))
    return loglik_table(predictions, panel.n_labels)


def cmd_graded_predict(args: argparse.Namespace) -> pd.DataFrame:
    check_folds(args)
    panel, names = read_panel(args)
    method, _ = graded_method(args, panel)
    proba = method.fit(panel).predict_proba()
    table = pd.DataFrame(proba, columns=[str(n) for n in names])
    table.insert(0, "item", list(panel.item_ids))
    return table


# ---------------------------------------------------------------------------
# crowd


def read_topics(name: str, n_labels: int | None, duplicates: str | None = None,
                names: list[str] | None = None) -> dict[str, Any]:
    """Topics from a preferences table (topic, worker, left, right, outcome) or a ratings table
    (item, judge, label with item ``topic:doc``), told apart by the columns the header names (in
    any order; judge or worker, task for item).

    ``duplicates`` None takes each table's own default: a repeated preference is one more
    judgment (keep), a repeated rating an error. ``names``: the grade names of a ratings table, lowest first."""
    from manyjudges.crowd.data import ratings_table
    from manyjudges.crowd.judgments import topics_from_preferences, topics_from_ratings
    from manyjudges.io.columnar import read_header
    from manyjudges.io.grades import GRADES_LAYOUT, check_grades_duplicates, read_grades_table
    from manyjudges.io.preferences import PREFERENCES_LAYOUT, read_preferences

    def names_all(layout) -> bool:
        fields = {field.strip() for field in header}
        return all(fields & set(layout.accepted(column)) for column in layout.columns)

    with input_path(name) as path:
        header = read_header(path)
        if names_all(PREFERENCES_LAYOUT):
            return topics_from_preferences(read_preferences(path, duplicates=duplicates or "keep"))
        if names_all(GRADES_LAYOUT):
            if duplicates is not None:
                refused(check_grades_duplicates, duplicates)
            graded = read_grades_table(path, n_labels, names, duplicates=duplicates or "error", names_in_data=True,
                                       where="--n-labels / --labels" if names else "--n-labels or the largest grade")
            return topics_from_ratings(ratings_table(graded, path))
        raise DataError.at(path, 1, "header must be 'topic, worker, left, right, outcome' (preferences) or "
                                    "'item, judge, label' (ratings, item = <topic>:<doc>), in any order (worker or "
                                    "judge; task for item)", "\t".join(header))


def cmd_crowd_aggregate(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.crowd.data import CrowdDataset
    from manyjudges.crowd.experiment import aggregate_dataset
    from manyjudges.crowd.registry import make_crowd_aggregator

    params = parse_params(args.params)
    build(make_crowd_aggregator, args.method, params)  # a bad name or value fails before the data is read
    check_n_labels(args.n_labels)
    if args.workers == "-" or (args.workers and args.workers == args.output):
        raise CommandError("--workers needs a file of its own (the ranking goes to -o or stdout)")
    topics = read_topics(args.judgments, args.n_labels, args.duplicates, label_names(args.labels))
    rankings, quality, _ = aggregate_dataset(CrowdDataset(topics, {}), args.method,
                                             {"method": args.method, "params": params}, progress=Progress(args.method))
    if args.workers:
        write_output(quality.drop(columns="method")[["topic", "worker", "quality"]], args.workers)
    return rankings.drop(columns="method")[["topic", "item", "rank", "score"]]
