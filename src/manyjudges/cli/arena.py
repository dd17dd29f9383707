"""The arena family's subcommands: ``leaderboard``, ``judges``, ``verdicts`` and ``winrate``.

``manyjudges arena leaderboard``: one score per model from judges' pairwise verdicts, with bootstrap
intervals; ``manyjudges arena judges``: position bias, agreement and shared errors of the judges;
``manyjudges arena verdicts``: one verdict per (prompt, model pair) from a panel of judges, each judge's
skill and position bias fitted; ``manyjudges arena winrate``: each model's win rate against a baseline model
(:mod:`manyjudges.cli.arena_winrate`). ``manyjudges crowd leaderboard|judges|verdicts`` are the former
spellings of the first three (:func:`_add_verbs` adds them to the crowd family's group too).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.cli import options
from manyjudges.cli.arena_examples import EXAMPLES
from manyjudges.cli.arena_human import _add_human_options, _cmd_human_leaderboard, _human_requested
from manyjudges.cli.arena_resume import (
    _add_resume_options,
    _add_self_preference_options,
    _fitted_verdicts,
    _judge_models_option,
    _load_resume,
    _save_state,
    _with_self_preference,
)
from manyjudges.cli.arena_show import (
    _add_show_options,
    _check_show_options,
    _judges_page,
    _judges_read,
    _leaderboard_page,
    _position_bias_figure,
    _scores_figure,
    _show_summary,
    _write_shown,
)
from manyjudges.cli.arena_style import (
    _add_control_options,
    _add_length_option,
    _check_control_options,
    _fit_controlled,
    with_length_preference,
)
from manyjudges.cli.arena_winrate import _add_winrate_options, _cmd_arena_winrate
from manyjudges.cli.terminal import CommandError, Output, _Progress, build, input_path, parse_params
from manyjudges.io.engine.errors import DataError

__all__ = ["EXAMPLES", "add_commands"]


def add_commands(subparsers: Any) -> None:
    """``manyjudges arena leaderboard|judges|verdicts|convert``."""
    verbs = options.family_verbs(subparsers, "arena")
    _add_verbs(verbs)
    _add_convert(verbs)


def _add_verbs(verbs: Any, former: str | None = None) -> None:
    """Add the arena's verbs to a family's ``verbs`` (subparsers).

    ``former``: the family whose group keeps them as former spellings (their help says so), or None.
    """
    def parser(verb: str, summary: str, run: Callable[[argparse.Namespace], Output]) -> argparse.ArgumentParser:
        """Add the verb's parser: VERDICTS and their options first (:func:`_add_input_options`), run by ``run``."""
        if former is not None:
            summary = f"former spelling of `manyjudges arena {verb}`: {summary}"
        p = verbs.add_parser(verb, **options.parser_kwargs(summary, EXAMPLES[f"arena {verb}"]))
        _add_input_options(p)
        p.set_defaults(run=run)
        return p

    p = parser("judges", "position bias, agreement and shared errors of the judges from their pairwise verdicts "
                         "(model_a is the answer shown first)", _cmd_arena_judges)
    p.add_argument("--reference", metavar="FILE", help="verdicts of human votes or gold, read as VERDICTS are (--from, "
                                                        "--duplicates; a file or a folder): adds n_matched, "
                                                        "accuracy and kappa per judge, and the judges' errors are "
                                                        "errors against it (default: against the majority of the "
                                                        "other judges)")
    p.add_argument("--ci", type=float, default=0.95, metavar="LEVEL",
                   help="level of the Wilson interval of the first-win rates (default 0.95)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the judges table here (default: stdout)")
    p.add_argument("--pairs", metavar="FILE", help="write judge_a, judge_b, n_common, agreement, n_error_units, "
                                                    "error_correlation, error_correlation_shrunk here")
    p.add_argument("--summary", metavar="FILE", help="write n_judges, n_units, alpha, error_reference, "
                                                      "mean_error_correlation, effective_judges here")
    _add_length_option(p)
    _add_show_options(p, "each judge's position bias (first-win rate) with its Wilson interval",
                     "the judges table, the position bias and the agreement heatmap")
    _add_self_preference_options(p)

    p = parser("leaderboard", "one score per model from pairwise verdicts (model_a shown first), with bootstrap "
                              "intervals", _cmd_arena_leaderboard)
    p.add_argument("--method", default="bradley_terry",
                   help="bradley_terry (default; a tie is half a win each way), davidson, elo, crowd_bt or "
                        "judge_aware (both need a judge column), or package.module:callable")
    p.add_argument("--params", metavar="JSON", help='the method\'s parameters as a JSON object, e.g. \'{"reg": 0}\'')
    p.add_argument("--ci", type=float, default=0.95, help="coverage of the intervals (default 0.95)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap replicates (default 1000; 0: no intervals)")
    p.add_argument("--resample", choices=["verdicts", "prompts", "judges"], default="verdicts",
                   help="what the bootstrap resamples: verdicts (default), whole prompts or whole judges")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap draws (default 0)")
    p.add_argument("--bothbad", choices=["tie", "drop"], default="tie",
                   help="a 'tie (bothbad)' verdict: a tie (default) or left out")
    p.add_argument("-o", "--output", metavar="FILE", help="write the table here (default: stdout)")
    p.add_argument("--judges", metavar="FILE", help="judge_aware and crowd_bt: write the judges' table here (judge, "
                                                     "skill, and for judge_aware position_bias, cluster, "
                                                     "cluster_size, rho, weight)")
    p.add_argument("--baseline", metavar="MODEL",
                   help="win_rate is the expected win rate against MODEL (its own row 0.5), not against the "
                        "pool's average model")
    _add_control_options(p)
    _add_human_options(p)
    _add_show_options(p, "the scores with their intervals, best at the top",
                     "the table, the scores figure and, with a judge column, the judges' position bias and "
                     "agreement heatmap")
    _add_resume_options(p)

    p = parser("verdicts", "one verdict per (prompt, model pair) from a panel of judges, each judge's skill and "
                           "position bias fitted and judges that share errors down-weighted", _cmd_arena_verdicts)
    p.add_argument("--params", metavar="JSON", help="JudgeAwareVerdicts's parameters as a JSON object, e.g. "
                                                     "'{\"clusters\": null, \"prior\": \"flat\"}'")
    p.add_argument("--judges", metavar="FILE", help="write judge, eta, gamma, cluster, weight here")
    p.add_argument("-o", "--output", metavar="FILE", help="write the units table here (default: stdout)")

    if former is None:  # a new verb: no former spelling
        p = parser("winrate", "each model's win rate against a baseline model (AlpacaEval's), length-controlled "
                              "with --control", _cmd_arena_winrate)
        _add_winrate_options(p)


def _add_convert(verbs: Any) -> None:
    """Add ``manyjudges arena convert``: published verdicts written as the canonical verdicts table."""
    p = verbs.add_parser("convert", **options.parser_kwargs(
        "read pairwise verdicts as a project published them (--from) and write the canonical verdicts table "
        "prompt, judge, model_a, model_b, winner", EXAMPLES["arena convert"]))
    _add_input_options(p)
    p.add_argument("-o", "--output", metavar="FILE", help="write the verdicts table here: a TSV, or a CSV when the "
                                                          "name ends in .csv (default: a TSV on stdout)")
    p.set_defaults(run=_cmd_arena_convert)


#: what ``--from`` says of each published format (the readers are :mod:`manyjudges.io.sources.published`'s)
_FROM_HELP = ("arena (default): the canonical verdicts table (TSV, or CSV by the .csv name; - reads stdin) or "
             "Chatbot Arena's JSON battles; llmfao: crowd-comparisons.csv and gpt4-/gpt3-crowd-comparisons.csv; "
             "prd: PRD's data/vicuna80/ratings-*/*.jsonl; pandalm: testset-v1.json and *-testset-v1.json; "
             "mt_bench: FastChat's model_judgment/*_pair.jsonl; arena_hard: model_judgment/<judge>/<model>.jsonl; "
             "alpaca_eval: annotations.json (docs/data.md 9.9)")


def _add_input_options(p: argparse.ArgumentParser) -> None:
    """Add VERDICTS (one or more files or folders), ``--from``, ``--duplicates`` and ``--arena-hard-baseline``."""
    from manyjudges.io.sources.arena_hard import ARENA_HARD_BASELINE
    from manyjudges.io.sources.published import FORMATS

    p.add_argument("verdicts", metavar="VERDICTS", nargs="+",
                   help="one or more files or folders, read together as one table; a folder stands for the files "
                        "in it and below that --from reads (a PRD ratings folder, an Arena-Hard "
                        "model_judgment/<judge>/ folder); - reads a canonical table from stdin")
    p.add_argument("--from", dest="source", choices=FORMATS, default="arena", metavar="FORMAT", help=_FROM_HELP)
    p.add_argument("--duplicates", choices=["error", "keep", "first", "last"], default="keep",
                   help="a row repeating an earlier row's (prompt, judge, model_a, model_b): one more verdict "
                        "(keep, the default: a judge may be asked twice), an error naming where both were read, "
                        "or only the first or the last counts")
    p.add_argument("--arena-hard-baseline", metavar="MODEL", default=ARENA_HARD_BASELINE,
                   help=f"--from arena_hard: the baseline model of lines that name none (default {ARENA_HARD_BASELINE})")


def _canonical_file(args: argparse.Namespace, names: list[str]) -> bool:
    """Whether ``names`` is one canonical verdicts table (read as it is, ``-`` from stdin), not a published format."""
    if "-" in names and (len(names) > 1 or args.source != "arena"):
        raise CommandError("- (standard input) can only be a single canonical verdicts table (--from arena)")
    for name in names:
        if name != "-" and not Path(name).exists():
            raise CommandError(f"{name}: no such file or folder")
    return args.source == "arena" and len(names) == 1 and (names[0] == "-" or (
        Path(names[0]).is_file() and Path(names[0]).suffix != ".json"))


def _read_verdicts_table(args: argparse.Namespace, names: list[str], extras: bool = False) -> pd.DataFrame:
    """Read the verdicts ``names`` by ``args.source`` (``--from``), ``--duplicates`` and ``--arena-hard-baseline``.

    One canonical table is :func:`manyjudges.io.tables.verdicts.read_verdicts` (``-`` is standard input); otherwise
    :func:`manyjudges.io.sources.published.read_published`. Returns ``prompt, judge, model_a, model_b, winner``,
    and with ``extras`` the numbers read beside them (:func:`~manyjudges.io.tables.verdicts.extra_columns`: ``p_b``,
    answer features ``NAME_a, NAME_b``).
    """
    from manyjudges.io.sources.published import read_published
    from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, extra_columns, read_verdicts

    if _canonical_file(args, names):
        with input_path(names[0]) as path:
            return read_verdicts(path, args.duplicates, extras)
    table = read_published(names, args.source, args.duplicates, args.arena_hard_baseline)
    return table[VERDICT_COLUMNS + (extra_columns(list(table.columns)) if extras else [])]


def _named(names: list[str]) -> str:
    """Return the input files as an error names them: the one name, or all of them comma-separated."""
    return ", ".join("<stdin>" if name == "-" else name for name in names)


def _cmd_arena_convert(args: argparse.Namespace) -> pd.DataFrame:
    """Run ``manyjudges arena convert``: the verdicts as read (``--from``), as a canonical verdicts table."""
    return _read_verdicts_table(args, args.verdicts, extras=True)


def _cmd_arena_judges(args: argparse.Namespace) -> Output:
    """Run ``manyjudges arena judges``: the judges table, and the pairs and summary tables when asked for."""
    from manyjudges.arena.judges.measures import judge_measures

    if not 0.0 < args.ci < 1.0:
        raise CommandError(f"--ci must be between 0 and 1, got {args.ci}")
    if args.reference == "-":
        raise CommandError("--reference must name a file (standard input can only be VERDICTS)")
    for flag, value in (("--pairs", args.pairs), ("--summary", args.summary)):
        if value == "-" or (value and value == args.output):
            raise CommandError(f"{flag} needs a file of its own (the judges table goes to -o or stdout)")
    if args.pairs and args.pairs == args.summary:
        raise CommandError("--pairs and --summary need a file each")
    _check_show_options(args)
    judge_models = _judge_models_option(args.judge_models)
    verdicts = _read_verdicts_table(args, args.verdicts, extras=True)
    reference = _read_verdicts_table(args, [args.reference]) if args.reference else None
    measures = with_length_preference(judge_measures(verdicts, reference, level=args.ci), verdicts, args,
                                      _named(args.verdicts))
    measures = replace(measures, judges=_with_self_preference(measures.judges, verdicts, judge_models, args.ci))
    read = _judges_read(args, verdicts)
    _write_shown(args, lambda: _position_bias_figure(measures.judges), lambda notes: _judges_page(measures, [*read, *notes]))
    files = ((args.pairs, measures.pairs), (args.summary, measures.summary))
    return Output(measures.judges, tuple((path, table) for path, table in files if path))


def _cmd_arena_leaderboard(args: argparse.Namespace) -> Output:
    """Run ``manyjudges arena leaderboard``: one score per model, with bootstrap intervals."""
    from manyjudges.arena.leaderboard.estimator import READING_COLUMNS, Leaderboard, leaderboard_table, make_rating
    from manyjudges.arena.leaderboard.win_rates import win_curve
    from manyjudges.arena.verdict_codes import code_verdicts

    if _human_requested(args):  # calibrated on human verdicts: cli/arena_human.py
        if args.resume or args.save_state:
            raise CommandError("--save-state and --resume do not take --human (a calibrated fit is not resumed)")
        return _cmd_human_leaderboard(args)
    params = parse_params(args.params)
    rating = build(make_rating, args.method, params)  # a bad name or value fails before the data is read
    if args.bootstrap < 0:
        raise CommandError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    if not 0 < args.ci < 1:
        raise CommandError(f"--ci must be between 0 and 1, got {args.ci}")
    _check_show_options(args)
    judges_file = getattr(args, "judges", None)
    if judges_file == "-" or (judges_file and judges_file in (args.output, args.plot, args.html)):
        raise CommandError("--judges needs a file of its own (the leaderboard goes to -o or stdout)")
    if judges_file and not rating.by_judge:  # before the data is read: only the judge models have judges
        raise CommandError(f"--judges: the method {args.method} has no judge parameters (judge_aware and crowd_bt do)")
    control = _check_control_options(args, rating)
    if control and (args.resume or args.save_state):
        raise CommandError("--save-state and --resume do not take --control (a controlled fit is not resumed)")
    state = _load_resume(args, rating)
    board = Leaderboard(args.method, params, n_bootstrap=args.bootstrap, resample=args.resample, ci=args.ci,
                        seed=args.seed, bothbad=args.bothbad, control=control)
    from manyjudges.arena.reader import read_arena_verdicts

    progress = _Progress("leaderboard bootstrap") if args.bootstrap else None
    if control:  # style control: the answer features are read beside the verdicts (arena_style)
        verdicts = _fit_controlled(board, _read_verdicts_table(args, args.verdicts, extras=True), args, progress,
                                  _named(args.verdicts))
    elif _canonical_file(args, args.verdicts):  # the canonical table, coded straight from its columns
        with input_path(args.verdicts[0]) as path:
            verdicts = read_arena_verdicts(path, bothbad=args.bothbad, duplicates=args.duplicates)
            _fit_shown(board, verdicts, args, progress, path, state)
    else:  # a published format: read, then coded from the frame
        verdicts = code_verdicts(_read_verdicts_table(args, args.verdicts), args.bothbad)
        _fit_shown(board, verdicts, args, progress, _named(args.verdicts), state)
    verdicts, table = _fitted_verdicts(board, verdicts, state), board.table_
    if args.baseline is not None:  # the win rates against the baseline, the other columns as fitted
        against = leaderboard_table(verdicts, board.scores_.to_numpy(), board.replicates_, args.ci,
                                    win_curve(rating, board.fit_), args.baseline).set_index("model")
        table = table.assign(**{c: against.loc[table["model"], c].to_numpy() for c in READING_COLUMNS[1:]})
    _write_shown(args, lambda: _scores_figure(table, args.method),
                lambda notes: _leaderboard_page(table, verdicts, args, notes))
    _save_state(args, board)
    files = ((judges_file, board.judges_), (getattr(args, "coefficients", None), board.coefficients_))
    return Output(table, tuple((path, frame) for path, frame in files if path and frame is not None))


def _fit_shown(board: Any, verdicts: Any, args: argparse.Namespace, progress: Any, where: Any, state: Any) -> None:
    """Say what was read (unless ``--quiet``), check ``--baseline``, and fit ``board``; a ValueError names ``where``.

    With ``state`` (``--resume``), the board takes the verdicts after the state's, and ``--baseline`` is checked
    on all of them.
    """
    from manyjudges.arena.leaderboard.estimator import baseline_code

    _show_summary(args, verdicts)
    try:
        if state is None:
            baseline_code(verdicts, args.baseline)
            board.fit(verdicts, progress=progress)
        else:
            if args.baseline is not None and str(args.baseline) not in set(map(str, state.data.models)):
                baseline_code(verdicts, args.baseline)
            board.partial_fit(verdicts, progress=progress, state=state)
    except ValueError as err:
        raise DataError.at(where, None, str(err)) from None


def _cmd_arena_verdicts(args: argparse.Namespace) -> Output:
    """Run ``manyjudges arena verdicts``: the units table, and the judges table for ``--judges``."""
    from manyjudges.arena.judges.judge_aware_verdicts import JudgeAwareVerdicts

    model = JudgeAwareVerdicts()
    try:  # a bad parameter name or value fails before the data is read
        model.set_params(**parse_params(args.params))._check_params()
    except ValueError as err:
        raise CommandError(str(err)) from None
    if args.judges == "-" or (args.judges and args.judges == args.output):
        raise CommandError("--judges needs a file of its own (the units table goes to -o or stdout)")
    verdicts = _read_verdicts_table(args, args.verdicts)
    try:
        model.fit(verdicts)
    except ValueError as err:
        raise DataError.at(_named(args.verdicts), None, str(err)) from None
    return Output(model.units_, ((args.judges, model.judges_),) if args.judges else ())
