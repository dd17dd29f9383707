"""``manyjudges consensus measure``: the consensus measure of each set of rankings.

``manyjudges consensus RANKINGS ...`` is short for it.
"""
from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from manyjudges.cli.options import add_duplicates, family_verbs, parser_kwargs, refused
from manyjudges.cli.terminal import CommandError, input_path

__all__ = ["EXAMPLES", "add_commands"]

EXAMPLES = {
    "consensus measure": """\
        RANKINGS has the columns list_set, list_id, item, rank (rank 1 = best; lists may be partial),
        in any order; task is read as item, other columns are ignored with a warning. --duplicates
        first or last keeps one row of a repeated (list_set, list_id, rank) position (keep is refused).

        example (two search engines' top lists, as CSV):
          printf 'list_set,list_id,item,rank\\ng,google,a,1\\ng,google,b,2\\ng,google,c,3\\ng,bing,b,1\\ng,bing,a,2\\n' > rankings.csv
          manyjudges consensus measure rankings.csv --lambda 0.9 --gamma 0.95
        prints list_set, lambda, gamma, kappa, kappa_by_length (per length, comma-separated), lcs_length.
        manyjudges consensus RANKINGS ... is short for manyjudges consensus measure RANKINGS ...""",
}


def add_commands(subparsers: Any) -> None:
    """``manyjudges consensus measure``; ``manyjudges consensus RANKINGS ...`` is its shorthand."""
    verbs = family_verbs(subparsers, "consensus", default="measure", data="RANKINGS")
    p = verbs.add_parser("measure", **parser_kwargs("consensus measure of each set of rankings",
                                                    EXAMPLES["consensus measure"]))
    p.add_argument("rankings", metavar="RANKINGS")
    p.add_argument("--lambda", dest="lam", type=float, default=1.0,
                   help="gap weight lambda: an edge i -> j weighs lambda^(mean position gap) (default 1)")
    p.add_argument("--gamma", type=float, default=1.0,
                   help="spread weight gamma: an item weighs gamma^(sd of its positions) (default 1)")
    p.add_argument("-o", "--output", metavar="FILE")
    add_duplicates(p, "(list_set, list_id, rank) position")
    p.set_defaults(run=_cmd_consensus_measure)


def _cmd_consensus_measure(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges consensus measure``: the consensus measure of each set of rankings of ``RANKINGS``."""
    from manyjudges.consensus.experiment import search_engine_grid
    from manyjudges.io.engine.checks import check_duplicate_rule
    from manyjudges.io.tables.rankings import rankings_to_lists, read_rankings

    if not (args.lam > 0 and args.gamma > 0):  # before the data is read (the measure checks it too)
        raise CommandError(f"--lambda and --gamma must be positive, got {args.lam:g} and {args.gamma:g}")
    refused(check_duplicate_rule, args.duplicates, "(list_set, list_id, rank) position", "a rankings table")
    with input_path(args.rankings) as path:
        lists = rankings_to_lists(read_rankings(path, duplicates=args.duplicates))
        list_sets = {name: list(by_id.values()) for name, by_id in lists.items()}
    return search_engine_grid(list_sets, [args.lam], [args.gamma])
