"""The argument parser of the command, with a worked example in each subcommand's ``--help``."""
from __future__ import annotations

import argparse
import textwrap
from typing import Any

from manyjudges.cli import commands, truth_commands
from manyjudges.folds import DEFAULT_FOLDS, FOLDS_ABOVE_JUDGES

__all__ = ["build_parser"]

#: tiny example tables, written by the shell commands of the examples (each example runs as shown)
PANEL = ("printf 'set_id\\tjudge\\titem\\trank\\ns1\\ta\\tx\\t1\\ns1\\ta\\ty\\t2\\ns1\\ta\\tz\\t3\\n"
         "s1\\tb\\tx\\t1\\ns1\\tb\\tz\\t2\\ns1\\tb\\ty\\t3\\ns1\\tc\\ty\\t1\\ns1\\tc\\tx\\t2\\n"
         "s1\\tc\\tz\\t3\\n' > panel.tsv")
GRADES = ("printf 'item\\tjudge\\tlabel\\nd1\\ta\\t2\\nd1\\tb\\t2\\nd1\\tc\\t1\\nd2\\ta\\t0\\nd2\\tb\\t0\\n"
          "d2\\tc\\t0\\nd3\\ta\\t1\\nd3\\tb\\t2\\nd3\\tc\\t1\\nd4\\ta\\t0\\nd4\\tb\\t1\\nd4\\tc\\t0\\n"
          "' > grades.tsv")

EXAMPLES = {
    "methods": """\
        example:
          manyjudges methods crowd          # the crowd aggregators, their parameters and defaults""",
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
    "consensus": """\
        RANKINGS has the columns list_set, list_id, item, rank (rank 1 = best; lists may be partial),
        in any order; task is read as item, other columns are ignored with a warning. --duplicates
        first or last keeps one row of a repeated (list_set, list_id, rank) position (keep is refused).

        example (two search engines' top lists, as CSV):
          printf 'list_set,list_id,item,rank\\ng,google,a,1\\ng,google,b,2\\ng,google,c,3\\ng,bing,b,1\\ng,bing,a,2\\n' > rankings.csv
          manyjudges consensus rankings.csv --lambda 0.9 --gamma 0.95
        prints list_set, lambda, gamma, kappa, kappa_by_length (per length, comma-separated), lcs_length.""",
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
    "crowd aggregate": """\
        JUDGMENTS is a preferences table (topic, worker, left, right, outcome with outcome left, right
        or tie) or a ratings table (item, judge, label with item = <topic>:<doc>, label a grade 0..K-1);
        columns in any order, worker and judge naming the same column.

        example (three workers compare items of one topic; w3 answers against the others):
          printf 'topic\\tworker\\tleft\\tright\\toutcome\\nq1\\tw1\\ta\\tb\\tleft\\nq1\\tw1\\tb\\tc\\tleft\\nq1\\tw1\\ta\\tc\\tleft\\nq1\\tw2\\ta\\tb\\tleft\\nq1\\tw2\\tb\\tc\\tleft\\nq1\\tw2\\ta\\tc\\tleft\\nq1\\tw3\\ta\\tb\\tright\\nq1\\tw3\\tb\\tc\\tright\\nq1\\tw3\\ta\\tc\\tright\\n' > prefs.tsv
          manyjudges crowd aggregate prefs.tsv --method crowdagg_ndcg --workers workers.tsv -o ranking.tsv
        writes topic, item, rank, score (rank 1 = best: a, b, c) to ranking.tsv, and topic, worker,
        quality to workers.tsv (w1 and w2 1.0, w3 0.0).""",
    "truth": """\
        LABELS has the columns item, worker (or judge), label: one row per label a worker gave an item;
        labels are class codes 0..K-1, or names with --labels giving the classes in order (lowest first).
        TRUTH (optional) has the columns item, truth.

        example (three workers label three items; w3 disagrees with the others):
          printf 'item\\tworker\\tlabel\\ni1\\tw1\\t1\\ni1\\tw2\\t1\\ni1\\tw3\\t0\\ni2\\tw1\\t0\\ni2\\tw2\\t0\\ni2\\tw3\\t1\\ni3\\tw1\\t1\\ni3\\tw2\\t1\\ni3\\tw3\\t1\\n' > labels.tsv
          printf 'item\\ttruth\\ni1\\t1\\ni2\\t0\\n' > truth.tsv
          manyjudges truth labels.tsv --method dawid_skene --truth truth.tsv --workers workers.tsv -o gold.tsv
        writes item, label and one posterior column per class (p_0, p_1) to gold.tsv (i1 1, i2 0, i3 1),
        worker, skill to workers.tsv, and prints the accuracy on the items of truth.tsv (1.0000 on 2 items).

        manyjudges truth next LABELS --method NAME --budget B: where the next labels should go
        (manyjudges truth next --help).""",
    "truth next": """\
        LABELS as for 'manyjudges truth'. CANDIDATES has the column item and optionally available (how many
        more labels it can still get); WORKERS has the column worker and optionally available.

        example (the labels of 'manyjudges truth --help'):
          manyjudges truth next labels.tsv --method dawid_skene --budget 2 -o next.tsv
        writes item, score: the labels to buy next, best first (an item appears once per label it
        deserves; items already sure, past --stop, get none).""",
}


def _parser_kwargs(key: str, summary: str) -> dict[str, Any]:
    return {"help": summary, "description": summary, "formatter_class": argparse.RawDescriptionHelpFormatter,
            "epilog": textwrap.dedent(EXAMPLES[key])}


def _add_method(parser: argparse.ArgumentParser, family: str) -> None:
    parser.add_argument("--method", required=True,
                        help=f"a built-in {family} method (manyjudges methods {family}) or package.module:callable")
    parser.add_argument("--params", metavar="JSON", help="the method's parameters as a JSON object")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the table here (default: stdout)")


def add_duplicates(parser: argparse.ArgumentParser, key: str) -> None:
    """``--duplicates error|keep|first|last``: what a repeated row means, the same flag in every family.
    ``key`` names what a repeat repeats, e.g. ``"(item, worker)"``."""
    parser.add_argument("--duplicates", choices=["error", "keep", "first", "last"], default="error",
                        help=f"a repeated {key} row: an error naming both lines (default), or keep every row, "
                             "the first or the last")


def _set_help(parser: argparse.ArgumentParser, dest: str, text: str) -> None:
    """Replace the help of the option stored in ``dest`` (a family's own reading of a shared option)."""
    for action in parser._actions:
        if action.dest == dest:
            action.help = text


def build_parser() -> argparse.ArgumentParser:
    from manyjudges import FAMILIES, __version__

    parser = argparse.ArgumentParser(prog="manyjudges", description="Aggregate the judgments of many human judges "
                                     "(definitions: docs/methods.md in the repository).")
    parser.add_argument("--version", action="version", version=f"manyjudges {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("methods",
                       **_parser_kwargs("methods", "list the built-in methods, their parameters and defaults"))
    p.add_argument("family", nargs="?", choices=FAMILIES)
    p.add_argument("-o", "--output", metavar="FILE")
    p.set_defaults(run=commands.cmd_methods)

    orderings = sub.add_parser("orderings", help="score ordered lists against several gold orderings")
    verbs = orderings.add_subparsers(dest="verb", required=True, metavar="VERB")
    p = verbs.add_parser("ed", **_parser_kwargs("orderings ed", "evaluation discriminativeness of a method, per set"))
    p.add_argument("orderings", metavar="ORDERINGS")
    _add_method(p, "orderings")
    add_duplicates(p, "(set_id, judge, item)")
    p.set_defaults(run=commands.cmd_orderings_ed)
    p = verbs.add_parser("score", **_parser_kwargs("orderings score",
                                                   "score candidate orderings against the gold orderings"))
    p.add_argument("orderings", metavar="ORDERINGS")
    p.add_argument("candidates", metavar="CANDIDATES")
    _add_method(p, "orderings")
    add_duplicates(p, "(set_id, judge, item)")
    p.set_defaults(run=commands.cmd_orderings_score)

    p = sub.add_parser("consensus", **_parser_kwargs("consensus", "consensus measure of each set of rankings"))
    p.add_argument("rankings", metavar="RANKINGS")
    p.add_argument("--lambda", dest="lam", type=float, default=1.0,
                   help="gap weight lambda: an edge i -> j weighs lambda^(mean position gap) (default 1)")
    p.add_argument("--gamma", type=float, default=1.0,
                   help="spread weight gamma: an item weighs gamma^(sd of its positions) (default 1)")
    p.add_argument("-o", "--output", metavar="FILE")
    add_duplicates(p, "(list_set, list_id, rank) position")
    p.set_defaults(run=commands.cmd_consensus)

    graded = sub.add_parser("graded", help="predict an unseen judge's graded labels")
    verbs = graded.add_subparsers(dest="verb", required=True, metavar="VERB")
    graded_verbs = (("evaluate", "held-out log probability of each judge's labels", commands.cmd_graded_evaluate),
                    ("predict", "P(label | item) for a judge not in the panel", commands.cmd_graded_predict))
    for verb, summary, run in graded_verbs:
        p = verbs.add_parser(verb, **_parser_kwargs(f"graded {verb}", summary))
        p.add_argument("grades", metavar="GRADES")
        _add_method(p, "graded")
        p.add_argument("--n-labels", type=int, metavar="K", help="number of labels K (default: the largest label + 1)")
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

    crowd = sub.add_parser("crowd", help="one ranking per topic from crowd preferences or ratings")
    verbs = crowd.add_subparsers(dest="verb", required=True, metavar="VERB")
    p = verbs.add_parser("aggregate",
                         **_parser_kwargs("crowd aggregate", "a ranking per topic, and a quality per worker"))
    p.add_argument("judgments", metavar="JUDGMENTS")
    _add_method(p, "crowd")
    p.add_argument("--workers", metavar="FILE", help="write topic, worker, quality here")
    p.add_argument("--n-labels", type=int, metavar="K", help="ratings: number of grades (default: the largest + 1)")
    p.add_argument("--labels", metavar="NAMES", help="ratings: the grade names in order 0..K-1, lowest first, "
                                                     "comma-separated; labels may be these names or integer codes")
    add_duplicates(p, "(topic, worker, left, right) or (item, judge)")
    p.set_defaults(duplicates=None)  # each table's own default (below)
    _set_help(p, "duplicates", "a repeated (topic, worker, left, right) preference: keep every row as a judgment "
                               "(default), an error naming both lines, the first or the last; a repeated (item, judge) "
                               "rating: an error (default), the first or the last")
    p.set_defaults(run=commands.cmd_crowd_aggregate)

    p = sub.add_parser("truth", **_parser_kwargs("truth", "one class per item, and a skill per worker, from many "
                                                          "workers' labels"))
    p.add_argument("labels_table", metavar="LABELS")
    _add_method(p, "truth")
    p.add_argument("--truth", metavar="TRUTH", help="item, truth: print the accuracy on these items, and how far the "
                                                     "posteriors can be trusted there (ECE, AUROC: docs/methods.md)")
    p.add_argument("--gold", metavar="GOLD", help=(
        "item, truth: known answers for some items, used in the fit (the EM methods keep their posteriors "
        "fixed and learn the workers from them too; majority_vote and wawa set their labels); the accuracy on "
        "TRUTH leaves them out"))
    p.add_argument("--workers", metavar="FILE", help="write worker, skill here")
    p.add_argument("--report", metavar="FILE", help="auto: write what it weighed here (candidate, "
                                                    "heldout_log_likelihood, tempered_log_likelihood, beta, weight, "
                                                    "seconds)")
    p.add_argument("--labels", metavar="NAMES", help="the class names in order, lowest first, comma-separated "
                                                     "(default: integer class codes 0..K-1); declares the classes "
                                                     "ordered, so auto adds the ordinal model to its candidates")
    add_duplicates(p, "(item, worker)")
    p.add_argument("--strict", action="store_true",
                   help="a TRUTH row whose item has no labels is an error (default: counted and skipped, "
                        "with a warning)")
    p.set_defaults(run=truth_commands.cmd_truth)

    # `manyjudges truth next ...` (main() routes it here: `truth` itself takes LABELS first)
    p = sub.add_parser("truth-next", prog="manyjudges truth next", **_parser_kwargs(
        "truth next", "where the next labels should go: the items (and workers) whose next label is expected "
                      "to fix most"))
    p.add_argument("labels_table", metavar="LABELS")
    _add_method(p, "truth")
    p.add_argument("--budget", type=int, required=True, metavar="B", help="how many labels to buy next")
    p.add_argument("--policy", default="lookahead", choices=["lookahead", "uncertainty", "uniform", "random"],
                   help="lookahead (default): the expected gain in accuracy of the next labels (docs/methods.md); "
                        "uncertainty: lowest top posterior first; uniform: fewest labels first; random")
    p.add_argument("--candidates", metavar="CANDIDATES", help="item[, available]: only these items, each at most "
                                                               "available more labels")
    p.add_argument("--workers-available", metavar="WORKERS", help="worker[, available]: who can label now; the "
                                                                 "table gains a worker column")
    p.add_argument("--stop", type=float, default=0.99, metavar="P",
                   help="items whose top posterior is at least P get no label (default 0.99; 1 to turn it off)")
    p.add_argument("--labels", metavar="NAMES", help="the class names in order, lowest first, comma-separated")
    add_duplicates(p, "(item, worker)")
    p.set_defaults(run=truth_commands.cmd_truth_next)
    return parser
