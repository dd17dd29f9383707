"""The ``manyjudges`` command: one subcommand per family, thin over the library.

Every subcommand reads a canonical table (TSV, or CSV by the ``.csv`` extension; ``-`` reads
a TSV from stdin), writes a TSV to ``-o FILE`` (atomically) or to stdout, takes ``--method``
as a built-in name (``manyjudges methods``) or ``package.module:callable``, and on bad input
exits with status 1 and one line naming the file, line and value (``--debug``: the traceback).
The numbers are those of the pipeline for the same data and settings: both call the same
library functions.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import textwrap
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pandas as pd

__all__ = ["main"]

PROG = "manyjudges"


class CommandError(Exception):
    """A mistake on the command line (not in a data file): printed as one line, exit status 2."""


# ---------------------------------------------------------------------------
# progress, input and output


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str, stream: Any = None) -> None:
        self.label, self.stream = label, stream or sys.stderr
        self.enabled = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total <= 0:
            return
        width = 30
        filled = int(width * done / total)
        elapsed = time.perf_counter() - self.start
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {elapsed:.1f} s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


@contextmanager
def input_path(name: str) -> Iterator[Path]:
    """The path of an input table; ``-`` copies stdin to a temporary ``stdin.tsv``."""
    if name != "-":
        path = Path(name)
        if not path.exists():
            raise CommandError(f"{name}: no such file")
        if path.is_dir():
            raise CommandError(f"{name}: is a directory, not a table")
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="manyjudges-") as tmp:
        path = Path(tmp) / "stdin.tsv"
        path.write_bytes(sys.stdin.buffer.read())
        yield path


def write_output(table: pd.DataFrame, out: str | None) -> None:
    """TSV to ``out`` (atomically: no half-written file is left) or to stdout."""
    from manyjudges.io.tables import write_table

    if out is None or out == "-":
        buffer = io.StringIO()
        table.to_csv(buffer, sep="\t", index=False, lineterminator="\n", float_format="%.10g")
        sys.stdout.write(buffer.getvalue())
        return
    write_table(table, out)


def parse_params(text: str | None) -> dict[str, Any]:
    """``--params`` as a JSON object."""
    if not text:
        return {}
    try:
        params = json.loads(text)
    except json.JSONDecodeError as err:
        raise CommandError(f"--params must be a JSON object, e.g. '{{\"min_sup\": 0.5}}': {err.msg} at "
                           f"character {err.pos}: {text!r}") from None
    if not isinstance(params, dict):
        raise CommandError(f"--params must be a JSON object, got {text!r}")
    return params


def build(registry: Any, method: str, params: dict[str, Any]) -> Any:
    """A method from a family registry; a bad name or parameter is a command-line mistake."""
    try:
        return registry.build(method, params)
    except ValueError as err:
        raise CommandError(str(err)) from None


# ---------------------------------------------------------------------------
# methods


def cmd_methods(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges import FAMILIES

    families = [args.family] if args.family else list(FAMILIES)
    rows = []
    for family in families:
        for entry in registries()[family].describe():
            params = ", ".join(f"{k}={v!r}" for k, v in entry["parameters"].items())
            rows.append({"family": family, "method": entry["method"], "summary": entry["summary"], "parameters": params})
    return pd.DataFrame(rows, columns=["family", "method", "summary", "parameters"])


def registries() -> dict[str, Any]:
    from manyjudges.consensus.aggregators import AGGREGATORS
    from manyjudges.crowd.registry import CROWD_METHODS
    from manyjudges.graded.registry import GRADED_METHODS
    from manyjudges.orderings.registry import ORDERING_SCORERS

    return {"orderings": ORDERING_SCORERS, "consensus": AGGREGATORS, "graded": GRADED_METHODS, "crowd": CROWD_METHODS}


# ---------------------------------------------------------------------------
# orderings


def cmd_orderings_ed(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.io.tables import read_orderings
    from manyjudges.orderings.evaluation import ed_by_set
    from manyjudges.orderings.experiment import panels_from_table
    from manyjudges.orderings.registry import ORDERING_SCORERS

    scorer = build(ORDERING_SCORERS, args.method, parse_params(args.params))
    with input_path(args.orderings) as path:
        panels = panels_from_table(read_orderings(path))
    return ed_by_set(scorer, panels, Progress("ED by set"))


def cmd_orderings_score(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.io.tables import orderings_to_rank_matrices, read_orderings
    from manyjudges.orderings.evaluation import checked_scores
    from manyjudges.orderings.registry import ORDERING_SCORERS

    scorer = build(ORDERING_SCORERS, args.method, parse_params(args.params))
    with input_path(args.orderings) as gold_path:
        gold = orderings_to_rank_matrices(read_orderings(gold_path))
    with input_path(args.candidates) as cand_path:
        candidates = read_orderings(cand_path, min_judges=1)
        shown = args.candidates if args.candidates != "-" else "<stdin>"
        rows = []
        progress = Progress("scoring sets")
        sets = list(dict.fromkeys(candidates["set_id"]))
        for done, set_id in enumerate(sets, 1):
            if set_id not in gold:
                raise CommandError(f"{shown}: set {set_id!r} has no gold orderings in {args.orderings} "
                                   f"(sets there: {', '.join(list(gold)[:10])})")
            _, items, gold_ranks = gold[set_id]
            table = candidates[candidates["set_id"] == set_id]
            names, ranks = candidate_rank_matrix(table, items, shown, set_id)
            scores = checked_scores(scorer, scorer.fit(gold_ranks).score(ranks), len(names))
            rows += [{"set_id": set_id, "candidate": name, "score": float(s)} for name, s in zip(names, scores)]
            progress(done, len(sets))
    return pd.DataFrame(rows, columns=["set_id", "candidate", "score"])


def candidate_rank_matrix(table: pd.DataFrame, items: Sequence[str], path: str, set_id: str):
    """(candidate names, (c, k) rank matrix over the gold items' column order)."""
    import numpy as np

    column = {item: k for k, item in enumerate(items)}
    unknown = sorted(set(table["item"]) - set(column))
    if unknown:
        raise CommandError(f"{path}: set {set_id!r}: candidate items not in the gold orderings: {unknown[:5]}")
    names = list(dict.fromkeys(table["judge"]))
    ranks = np.zeros((len(names), len(items)))
    for c, name in enumerate(names):
        rows = table[table["judge"] == name]
        missing = sorted(set(items) - set(rows["item"]))
        if missing:
            raise CommandError(f"{path}: set {set_id!r}: candidate {name!r} does not rank the gold items {missing[:5]}")
        ranks[c, [column[i] for i in rows["item"]]] = rows["rank"].to_numpy(dtype=float)
    return names, ranks


# ---------------------------------------------------------------------------
# consensus


def cmd_consensus(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.consensus.experiment import search_engine_grid
    from manyjudges.io.rankings import rankings_to_lists, read_rankings

    if args.lam <= 0 or args.gamma <= 0:
        raise CommandError(f"--lambda and --gamma must be positive, got {args.lam:g} and {args.gamma:g}")
    with input_path(args.rankings) as path:
        list_sets = {name: list(lists.values()) for name, lists in rankings_to_lists(read_rankings(path)).items()}
    return search_engine_grid(list_sets, [args.lam], [args.gamma])


# ---------------------------------------------------------------------------
# graded


def read_panel(args: argparse.Namespace):
    """(GradedPanel, label names) from a grades table; K from --labels, --n-labels or the largest label."""
    from manyjudges.graded.panel import GradedPanel
    from manyjudges.io.grades import read_grades_table
    from manyjudges.io.tables import read_tsv_rows

    names = [n.strip() for n in args.labels.split(",")] if args.labels else None
    with input_path(args.grades) as path:
        n_labels = args.n_labels or (len(names) if names else None)
        if n_labels is None:  # the largest integer label + 1; other values are reported by the reader
            rows, _ = read_tsv_rows(path, ["item", "judge", "label"])
            ints = [int(r[2]) for r in rows if r[2].strip().isdigit()]
            n_labels = max(ints, default=0) + 1
        data = read_grades_table(path, n_labels, names, where="--n-labels / --labels or the largest label")
    if data.grades["judge"].nunique() < 2:
        raise CommandError(f"{args.grades}: a graded panel needs at least 2 judges, got "
                           f"{data.grades['judge'].nunique()}")
    return GradedPanel.from_table(data.grades, data.n_labels), data.label_names


def cmd_graded_evaluate(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.graded.experiment import loglik_table, predict_part
    from manyjudges.graded.registry import GRADED_METHODS

    method = build(GRADED_METHODS, args.method, parse_params(args.params))
    method.name = args.method
    panel, _ = read_panel(args)
    if args.protocol == "single_parameter" and not getattr(method, "single_parameter", None):
        raise CommandError(f"method {args.method!r} has no single parameter; use --protocol cross_induction")
    predictions, _ = predict_part(panel, method, args.protocol, 0, 1, args.min_labels, progress=Progress(args.method))
    return loglik_table(predictions, panel.n_labels)


def cmd_graded_predict(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.graded.registry import GRADED_METHODS

    method = build(GRADED_METHODS, args.method, parse_params(args.params))
    panel, names = read_panel(args)
    proba = method.fit(panel).predict_proba()
    table = pd.DataFrame(proba, columns=[str(n) for n in names])
    table.insert(0, "item", list(panel.item_ids))
    return table


# ---------------------------------------------------------------------------
# crowd


def read_topics(name: str, n_labels: int | None) -> dict[str, Any]:
    """Topics from a preferences table (topic, worker, left, right, outcome) or a ratings table
    (item, judge, label with item ``topic:doc``), told apart by the header."""
    from manyjudges.crowd.data import ratings_table
    from manyjudges.crowd.judgments import topics_from_preferences, topics_from_ratings
    from manyjudges.io.errors import DataError
    from manyjudges.io.grades import read_grades_table
    from manyjudges.io.preferences import read_preferences
    from manyjudges.io.tables import read_header, read_tsv_rows

    with input_path(name) as path:
        header = read_header(path)
        if header == ["item", "judge", "label"]:
            if n_labels is None:
                rows, _ = read_tsv_rows(path, header)
                n_labels = max((int(r[2]) for r in rows if r[2].strip().isdigit()), default=0) + 1
            graded = read_grades_table(path, n_labels, where="--n-labels or the largest grade")
            return topics_from_ratings(ratings_table(graded, path))
        if header == ["topic", "worker", "left", "right", "outcome"]:
            return topics_from_preferences(read_preferences(path))
        raise DataError.at(path, 1, "header must be 'topic, worker, left, right, outcome' (preferences) or "
                                    "'item, judge, label' (ratings, item = <topic>:<doc>)", "\t".join(header))


def cmd_crowd_aggregate(args: argparse.Namespace) -> pd.DataFrame:
    from manyjudges.crowd.data import CrowdDataset
    from manyjudges.crowd.experiment import aggregate_dataset
    from manyjudges.crowd.registry import CROWD_METHODS

    params = parse_params(args.params)
    build(CROWD_METHODS, args.method, params)  # a bad name or parameter fails before the data is read
    topics = read_topics(args.judgments, args.n_labels)
    rankings, quality, _ = aggregate_dataset(CrowdDataset(topics, {}), args.method,
                                             {"method": args.method, "params": params}, progress=Progress(args.method))
    if args.workers:
        write_output(quality.drop(columns="method")[["topic", "worker", "quality"]], args.workers)
    return rankings.drop(columns="method")[["topic", "item", "rank", "score"]]


# ---------------------------------------------------------------------------
# the parser


EXAMPLES = {
    "methods": """\
        example:
          manyjudges methods crowd          # the crowd aggregators, their parameters and defaults""",
    "orderings ed": """\
        ORDERINGS has the columns set_id, judge, item, rank (rank 1 = best; tied items share a rank).

        example:
          printf 'set_id\\tjudge\\titem\\trank\\n' > panel.tsv
          for j in a b c; do printf 's1\\t%s\\tx\\t1\\ns1\\t%s\\ty\\t2\\ns1\\t%s\\tz\\t3\\n' $j $j $j >> panel.tsv; done
          manyjudges orderings ed panel.tsv --method frespa --params '{"min_sup": 0.5}'
        prints a table set_id, ed with the mean over sets as the last row (set_id = mean).""",
    "orderings score": """\
        Both tables have the columns set_id, judge, item, rank; in CANDIDATES the judge column names
        the candidate ordering, which must rank the same items as the gold orderings of its set.

        example:
          manyjudges orderings score panel.tsv candidates.tsv --method ac_tau -o scores.tsv""",
    "consensus": """\
        RANKINGS has the columns list_set, list_id, item, rank (rank 1 = best; lists may be partial).

        example:
          manyjudges consensus rankings.tsv --lambda 0.9 --gamma 0.95
        prints list_set, lambda, gamma, kappa, kappa_by_length (per length, comma-separated), lcs_length.""",
    "graded evaluate": """\
        GRADES has the columns item, judge, label (labels 0..K-1; a missing label is a missing row).

        example:
          manyjudges graded evaluate grades.tsv --method m4 --protocol cross_induction
        prints judge, method, protocol, loglik, n_items: the held-out log probability of each judge's
        labels, and the uniform baseline (method = uniform) n log(1/K).""",
    "graded predict": """\
        example:
          manyjudges graded predict grades.tsv --method m1 --labels bad,fair,good -o proba.tsv
        prints item and one column per label: P(label | item) for a judge not in the panel.""",
    "crowd aggregate": """\
        JUDGMENTS is a preferences table (topic, worker, left, right, outcome with outcome left, right
        or tie) or a ratings table (item, judge, label with item = <topic>:<doc>, label a grade 0..K-1).

        example:
          manyjudges crowd aggregate prefs.tsv --method crowdagg_ndcg --workers workers.tsv -o ranking.tsv
        prints topic, item, rank, score (rank 1 = best); workers.tsv gets topic, worker, quality.""",
}


def _parser_kwargs(key: str, summary: str) -> dict[str, Any]:
    return {"help": summary, "description": summary, "formatter_class": argparse.RawDescriptionHelpFormatter,
            "epilog": textwrap.dedent(EXAMPLES[key])}


def _add_method(parser: argparse.ArgumentParser, family: str) -> None:
    parser.add_argument("--method", required=True,
                        help=f"a built-in {family} method (manyjudges methods {family}) or package.module:callable")
    parser.add_argument("--params", metavar="JSON", help="the method's parameters as a JSON object")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the table here (default: stdout)")


def build_parser() -> argparse.ArgumentParser:
    from manyjudges import FAMILIES, __version__

    parser = argparse.ArgumentParser(prog=PROG, description="Aggregate the judgments of many human judges "
                                     "(definitions: docs/methods.md in the repository).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("methods", **_parser_kwargs("methods", "list the built-in methods, their parameters and defaults"))
    p.add_argument("family", nargs="?", choices=FAMILIES)
    p.add_argument("-o", "--output", metavar="FILE")
    p.set_defaults(run=cmd_methods)

    orderings = sub.add_parser("orderings", help="score ordered lists against several gold orderings")
    verbs = orderings.add_subparsers(dest="verb", required=True, metavar="VERB")
    p = verbs.add_parser("ed", **_parser_kwargs("orderings ed", "evaluation discriminativeness of a method, per set"))
    p.add_argument("orderings", metavar="ORDERINGS")
    _add_method(p, "orderings")
    p.set_defaults(run=cmd_orderings_ed)
    p = verbs.add_parser("score", **_parser_kwargs("orderings score", "score candidate orderings against the gold orderings"))
    p.add_argument("orderings", metavar="ORDERINGS")
    p.add_argument("candidates", metavar="CANDIDATES")
    _add_method(p, "orderings")
    p.set_defaults(run=cmd_orderings_score)

    p = sub.add_parser("consensus", **_parser_kwargs("consensus", "consensus measure of each set of rankings"))
    p.add_argument("rankings", metavar="RANKINGS")
    p.add_argument("--lambda", dest="lam", type=float, default=1.0, help="gap weight lambda: an edge i -> j weighs lambda^(mean position gap) (default 1)")
    p.add_argument("--gamma", type=float, default=1.0, help="spread weight gamma: an item weighs gamma^(sd of its positions) (default 1)")
    p.add_argument("-o", "--output", metavar="FILE")
    p.set_defaults(run=cmd_consensus)

    graded = sub.add_parser("graded", help="predict an unseen judge's graded labels")
    verbs = graded.add_subparsers(dest="verb", required=True, metavar="VERB")
    for verb, summary, run in (("evaluate", "held-out log probability of each judge's labels", cmd_graded_evaluate),
                               ("predict", "P(label | item) for a judge not in the panel", cmd_graded_predict)):
        p = verbs.add_parser(verb, **_parser_kwargs(f"graded {verb}", summary))
        p.add_argument("grades", metavar="GRADES")
        _add_method(p, "graded")
        p.add_argument("--n-labels", type=int, metavar="K", help="number of labels K (default: the largest label + 1)")
        p.add_argument("--labels", metavar="NAMES", help="label names in order 0..K-1, comma-separated")
        if verb == "evaluate":
            p.add_argument("--protocol", choices=["cross_induction", "single_parameter"], default="cross_induction")
            p.add_argument("--min-labels", type=int, default=1, metavar="N",
                           help="hold out and score only judges with at least N labels (default 1)")
        p.set_defaults(run=run)

    crowd = sub.add_parser("crowd", help="one ranking per topic from crowd preferences or ratings")
    verbs = crowd.add_subparsers(dest="verb", required=True, metavar="VERB")
    p = verbs.add_parser("aggregate", **_parser_kwargs("crowd aggregate", "a ranking per topic, and a quality per worker"))
    p.add_argument("judgments", metavar="JUDGMENTS")
    _add_method(p, "crowd")
    p.add_argument("--workers", metavar="FILE", help="write topic, worker, quality here")
    p.add_argument("--n-labels", type=int, metavar="K", help="ratings: number of grades (default: the largest + 1)")
    p.set_defaults(run=cmd_crowd_aggregate)
    return parser


def _one_line(err: BaseException, stdin_path: str | None = None) -> str:
    text = " ".join(str(err).split()) or type(err).__name__
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status (0 ok, 1 bad input, 2 bad command line)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        table = args.run(args)
        write_output(table, getattr(args, "output", None))
    except CommandError as err:
        if args.debug:
            raise
        print(f"{PROG}: error: {_one_line(err)}", file=sys.stderr)
        return 2
    except (ValueError, OSError, UnicodeDecodeError, KeyError) as err:
        if args.debug:
            raise
        message = _one_line(err)
        if "stdin.tsv" in message:
            message = _replace_stdin(message)
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return 0


def _replace_stdin(message: str) -> str:
    """A temporary stdin copy is shown as ``<stdin>``."""
    import re

    return re.sub(r"\S*manyjudges-[^/\s]*/stdin\.tsv", "<stdin>", message)


def entry_point() -> None:  # pragma: no cover - the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    entry_point()
