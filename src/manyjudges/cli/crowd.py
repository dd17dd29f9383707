"""The crowd family's subcommand ``aggregate``: one ranking per topic from crowd preferences or ratings.

``manyjudges crowd leaderboard|judges|verdicts`` are kept as former spellings of the arena family's verbs
(:mod:`manyjudges.cli.arena`).
"""
from __future__ import annotations

import argparse
from typing import Any

from manyjudges.cli import options
from manyjudges.cli.terminal import CommandError, Output, _Progress, build, input_path, parse_params
from manyjudges.io.engine.errors import DataError

__all__ = ["EXAMPLES", "add_commands"]

EXAMPLES = {
    "crowd aggregate": """\
        JUDGMENTS is a preferences table (topic, judge, left, right, outcome with outcome left, right
        or tie) or a ratings table (item, judge, label with item = <topic>:<doc>, label a grade 0..K-1);
        columns in any order, worker read as judge.

        example (three judges compare items of one topic; w3 answers against the others):
          printf 'topic\\tjudge\\tleft\\tright\\toutcome\\nq1\\tw1\\ta\\tb\\tleft\\nq1\\tw1\\tb\\tc\\tleft\\nq1\\tw1\\ta\\tc\\tleft\\nq1\\tw2\\ta\\tb\\tleft\\nq1\\tw2\\tb\\tc\\tleft\\nq1\\tw2\\ta\\tc\\tleft\\nq1\\tw3\\ta\\tb\\tright\\nq1\\tw3\\tb\\tc\\tright\\nq1\\tw3\\ta\\tc\\tright\\n' > prefs.tsv
          manyjudges crowd aggregate prefs.tsv --method crowdagg_ndcg --judges judges.tsv -o ranking.tsv
        writes topic, item, rank, score (rank 1 = best: a, b, c) to ranking.tsv, and topic, judge,
        skill to judges.tsv (w1 and w2 1.0, w3 0.0).""",
}


def add_commands(subparsers: Any) -> None:
    """``manyjudges crowd aggregate``."""
    verbs = options.family_verbs(subparsers, "crowd")
    p = verbs.add_parser("aggregate", **options.parser_kwargs("a ranking per topic, and a skill per judge",
                                                              EXAMPLES["crowd aggregate"]))
    p.add_argument("judgments", metavar="JUDGMENTS")
    options.add_method(p, "crowd")
    options._add_judges_file(p, "write topic, judge, skill here")
    options._add_n_classes(p, "ratings: number of grades K (default: the largest + 1)")
    p.add_argument("--labels", metavar="NAMES", help="ratings: the grade names in order 0..K-1, lowest first, "
                                                     "comma-separated; labels may be these names or integer codes")
    options.add_duplicates(p, "(topic, judge, left, right) or (item, judge)")
    p.set_defaults(duplicates=None)  # each table's own default (read_topics)
    options._set_help(p, "duplicates", "a repeated (topic, judge, left, right) preference: keep every row as a "
                                      "judgment (default), an error naming both lines, the first or the last; a "
                                      "repeated (item, judge) rating: an error (default), the first or the last")
    p.set_defaults(run=_cmd_crowd_aggregate)

    from manyjudges.cli.arena import _add_verbs

    _add_verbs(verbs, former="crowd")


def _read_topics(name: str, n_classes: int | None, duplicates: str | None = None,
                names: list[str] | None = None) -> dict[str, Any]:
    """Read the topics of a preferences table or a ratings table, told apart by the columns of the header.

    A preferences table has topic, judge, left, right, outcome; a ratings table item, judge, label with item
    ``topic:doc`` (in any order; judge or worker, task for item).

    ``duplicates`` None takes each table's own default: a repeated preference is one more
    judgment (keep), a repeated rating an error. ``names``: the grade names of a ratings table, lowest first.
    """
    from manyjudges.crowd.data import ratings_table
    from manyjudges.crowd.judgments import topics_from_preferences, topics_from_ratings
    from manyjudges.io.engine.columnar import read_header
    from manyjudges.io.tables.grades import GRADES_LAYOUT, check_grades_duplicates, read_grades_table
    from manyjudges.io.tables.preferences import PREFERENCES_LAYOUT, read_preferences

    def names_all(layout) -> bool:
        fields = {field.strip() for field in header}
        return all(fields & set(layout.accepted(column)) for column in layout.columns)

    with input_path(name) as path:
        header = read_header(path)
        if names_all(PREFERENCES_LAYOUT):
            return topics_from_preferences(read_preferences(path, duplicates=duplicates or "keep"))
        if names_all(GRADES_LAYOUT):
            if duplicates is not None:
                options.refused(check_grades_duplicates, duplicates)
            graded = read_grades_table(path, n_classes, names, duplicates=duplicates or "error", names_in_data=True,
                                       where="--n-classes / --labels" if names else "--n-classes or the largest grade")
            return topics_from_ratings(ratings_table(graded, path))
        raise DataError.at(path, 1, "header must be 'topic, judge, left, right, outcome' (preferences) or "
                                    "'item, judge, label' (ratings, item = <topic>:<doc>), in any order (judge or "
                                    "judge; task for item)", "\t".join(header))


def _cmd_crowd_aggregate(args: argparse.Namespace) -> Output:
    """Run ``manyjudges crowd aggregate``: one ranking per topic, and the judges' skills for ``--judges``."""
    from manyjudges.crowd.data import CrowdDataset
    from manyjudges.crowd.experiment import aggregate_dataset
    from manyjudges.crowd.registry import make_crowd_aggregator

    params = parse_params(args.params)
    build(make_crowd_aggregator, args.method, params)  # a bad name or value fails before the data is read
    options._check_n_classes(args.n_classes)
    if args.judges == "-" or (args.judges and args.judges == args.output):
        raise CommandError("--judges needs a file of its own (the ranking goes to -o or stdout)")
    topics = _read_topics(args.judgments, args.n_classes, args.duplicates, options.label_names(args.labels))
    rankings, skill, _ = aggregate_dataset(CrowdDataset(topics, {}), args.method,
                                             {"method": args.method, "params": params}, progress=_Progress(args.method))
    files = ((args.judges, skill.drop(columns="method")[["topic", "judge", "skill"]]),) if args.judges else ()
    return Output(rankings.drop(columns="method")[["topic", "item", "rank", "score"]], files)


