"""``manyjudges orderings ed|score``: the orderings family's subcommands."""
from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import pandas as pd

from manyjudges.cli.options import _printf_table, add_duplicates, add_method, family_verbs, parser_kwargs, refused
from manyjudges.cli.terminal import CommandError, _Progress, build, input_path, parse_params
from manyjudges.io.engine.errors import DataError

__all__ = ["EXAMPLES", "add_commands"]

#: a tiny panel, written by the shell command of the examples (each example runs as shown)
PANEL = _printf_table("panel.tsv", [("set_id", "judge", "item", "rank"),
                                    *[("s1", judge, item, rank)
                                      for judge, order in (("a", "xyz"), ("b", "xzy"), ("c", "yxz"))
                                      for rank, item in enumerate(order, 1)]])

EXAMPLES = {
    "orderings ed": """\
        ORDERINGS has the columns set_id, judge, item, rank (rank 1 = best; tied items share a rank),
        in any order; worker is read as judge, task as item, other columns are ignored with a warning.
        --duplicates first or last keeps one row of a repeated (set_id, judge, item) (keep is refused).

        example (three judges order x, y, z):
          """ + PANEL + """
          manyjudges orderings ed panel.tsv --method frespa --params '{"min_sup": 0.5}'
        prints a table set_id, ed with the mean over sets as the last row (set_id = mean).""",
    "orderings score": """\
        Both tables have the columns set_id, judge, item, rank; in CANDIDATES the judge column names
        the candidate ordering, which must rank the same items as the gold orderings of its set.
        Column habits and --duplicates as in 'manyjudges orderings ed --help' (for both tables).

        example (the panel of 'manyjudges orderings ed --help', and one candidate ordering):
          """ + PANEL + """
          printf 'set_id\\tjudge\\titem\\trank\\ns1\\tmine\\tx\\t1\\ns1\\tmine\\ty\\t2\\ns1\\tmine\\tz\\t3\\n' > candidates.tsv
          manyjudges orderings score panel.tsv candidates.tsv --method ac_tau -o scores.tsv
        writes set_id, candidate, score.""",
}


def add_commands(subparsers: Any) -> None:
    """``manyjudges orderings ed`` and ``manyjudges orderings score``."""
    verbs = family_verbs(subparsers, "orderings")
    p = verbs.add_parser("ed", **parser_kwargs("evaluation discriminativeness of a method, per set",
                                               EXAMPLES["orderings ed"]))
    p.add_argument("orderings", metavar="ORDERINGS")
    add_method(p, "orderings")
    add_duplicates(p, "(set_id, judge, item)")
    p.set_defaults(run=_cmd_orderings_ed)
    p = verbs.add_parser("score", **parser_kwargs("score candidate orderings against the gold orderings",
                                                  EXAMPLES["orderings score"]))
    p.add_argument("orderings", metavar="ORDERINGS")
    p.add_argument("candidates", metavar="CANDIDATES")
    add_method(p, "orderings")
    add_duplicates(p, "(set_id, judge, item)")
    p.set_defaults(run=_cmd_orderings_score)


def _cmd_orderings_ed(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges orderings ed``: the evaluation discriminativeness of a method, per set."""
    from manyjudges.io.engine.checks import check_duplicate_rule
    from manyjudges.io.tables.orderings import read_orderings
    from manyjudges.orderings.evaluation import ed_by_set
    from manyjudges.orderings.experiment import panels_from_table
    from manyjudges.orderings.registry import make_ordering_scorer

    scorer = build(make_ordering_scorer, args.method, parse_params(args.params))
    refused(check_duplicate_rule, args.duplicates, "(set_id, judge, item)", "an orderings table")
    with input_path(args.orderings) as path:
        panels = panels_from_table(read_orderings(path, duplicates=args.duplicates))
    return ed_by_set(scorer, panels, _Progress("ED by set"))


def _cmd_orderings_score(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges orderings score``: score candidate orderings against the gold orderings."""
    from manyjudges.io.engine.checks import check_duplicate_rule
    from manyjudges.io.tables.orderings import orderings_to_rank_matrices, read_orderings
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
        progress = _Progress("scoring sets")
        sets = candidates.groupby("set_id", sort=False)  # one pass; rows keep their file order
        for done, (key, table) in enumerate(sets, 1):
            set_id = str(key)  # read_orderings gives str set ids
            if set_id not in gold:
                raise DataError.at(cand_path, candidates.attrs["lines"][table.index[0]],
                                   f"set has no gold orderings in {args.orderings}", set_id)
            _, items, gold_ranks = gold[set_id]
            names, ranks = candidate_rank_matrix(table, set_id, items, cand_path, candidates.attrs["lines"])
            scores = checked_scores(scorer, scorer.fit(gold_ranks).score(ranks), len(names))
            rows += [{"set_id": set_id, "candidate": name, "score": float(s)} for name, s in zip(names, scores)]
            progress(done, sets.ngroups)
    return pd.DataFrame(rows, columns=["set_id", "candidate", "score"])


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
