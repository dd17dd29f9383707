"""``manyjudges toy SCORES --method NAME``: the toy family's subcommand."""
from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from manyjudges.cli.options import add_method, parser_kwargs
from manyjudges.cli.terminal import build, input_path, parse_params

EXAMPLES = {"toy": """\
    SCORES has the columns item, judge, score.

    example:
      printf 'item\\tjudge\\tscore\\na\\tj1\\t1\\na\\tj2\\t3\\nb\\tj1\\t2\\n' > scores.tsv
      manyjudges toy scores.tsv --method mean
    prints item, score (a 2, b 2)."""}


def add_commands(subparsers: Any) -> None:
    """``manyjudges toy``, its help the family's summary."""
    from manyjudges_toy import FAMILY

    p = subparsers.add_parser("toy", **parser_kwargs(FAMILY.summary, EXAMPLES["toy"]))
    p.add_argument("scores", metavar="SCORES")
    add_method(p, "toy")
    p.set_defaults(run=cmd_toy)


def cmd_toy(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges_toy import registry
    from manyjudges_toy.methods import read_scores

    method = build(registry.build, args.method, parse_params(args.params))
    with input_path(args.scores) as path:
        return method.fit_predict(read_scores(path)).reset_index()
