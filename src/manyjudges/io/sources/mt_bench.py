"""Parse MT-Bench pairwise judgments: FastChat's ``llm_judge`` JSON Lines, two games a line.

``data/mt_bench/model_judgment/gpt-4_pair.jsonl`` of lm-sys/FastChat (Zheng et al., "Judging
LLM-as-a-Judge with MT-Bench and Chatbot Arena", NeurIPS 2023), as ``gen_judgment.py`` writes it in its
pairwise modes, holds one JSON object a line with ``question_id``, ``model_1``, ``model_2``, ``judge``
(``[judge model, prompt name]``, e.g. ``["gpt-4", "pair-v2"]``), ``turn`` (1, or 2 for the second turn of
the conversation), ``g1_winner`` and ``g2_winner``. The judge played two games: in game 1 it was shown
``model_1``'s answer first (as assistant A), in game 2 ``model_2``'s; both winners are written in terms
of the models: ``model_1``, ``model_2``, ``tie``, or ``error`` (and possibly other words) when the
judgment could not be parsed. Single-answer grading files (``gpt-4_single.jsonl``: ``model``, ``score``)
are not pairwise and are refused.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.json_judgments import _field_of, _FileVerdicts, _json_lines, _warn_left_out
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.verdicts import verdicts_frame

#: a game's winner (by model) -> (winner in game 1, where model_1 is shown first; in game 2, model_2 first)
_MT_BENCH_WINNERS = {"model_1": ("model_a", "model_b"), "model_2": ("model_b", "model_a"), "tie": ("tie", "tie")}


def _judge(path: Path, line: int, row: dict[str, Any]) -> str:
    """Return the judge model's name: ``judge[0]`` of ``[judge model, prompt name]`` (or ``judge`` itself, a str)."""
    judge = _field_of(path, line, row, "judge", (list, str))
    name = judge[0] if isinstance(judge, list) and judge else judge
    if not isinstance(name, str) or not name.strip():
        raise DataError.at(path, line, "judge must be [judge model, prompt name] or a name", judge)
    return name


def _prompt(path: Path, line: int, row: dict[str, Any]) -> str:
    """Return the prompt's name: ``question_id``, with ``/turn<turn>`` when the line has a turn (``81/turn2``)."""
    question = _field_of(path, line, row, "question_id", (int, str))
    if "turn" not in row or row["turn"] is None:
        return str(question)
    return f"{question}/turn{_field_of(path, line, row, 'turn', int)}"


def _refuse_single(path: Path, line: int, row: dict[str, Any]) -> None:
    """Raise a DataError for a line of single-answer grading (a score for one answer), not a pairwise verdict."""
    if "model_1" not in row and ("score" in row or "model" in row):
        raise DataError.at(path, line, "a single-answer grading line (model, score), not a pairwise judgment: "
                           "read the *_pair.jsonl files", str(row.get("model")))
    if "m1_score" in row:
        raise DataError.at(path, line, "grades of each answer alone (m1_score, m2_score), not a pairwise judgment",
                           row["m1_score"])


def _games(path: Path, line: int, row: dict[str, Any]) -> list[tuple[str, str, str] | None]:
    """Return the line's two games as (model_a, model_b, winner), None for a game whose verdict failed."""
    _refuse_single(path, line, row)
    first, second = (_field_of(path, line, row, key) for key in ("model_1", "model_2"))
    if first == second:
        raise DataError.at(path, line, "model_1 and model_2 are the same model (a model against itself)", first)
    games: list[tuple[str, str, str] | None] = []
    for game, (shown_first, shown_second) in enumerate(((first, second), (second, first))):
        winner = row.get(f"g{game + 1}_winner")
        if not isinstance(winner, str):
            raise DataError.at(path, line, f"g{game + 1}_winner must be a string (model_1, model_2, tie, error)",
                               winner)
        known = _MT_BENCH_WINNERS.get(winner)
        games.append((shown_first, shown_second, known[game]) if known else None)
    return games


def _mt_bench_file(path: PathLike) -> _FileVerdicts:
    """Read the verdicts of one pairwise judgment file, each row's line, and the failed verdicts' count."""
    path = Path(path)
    columns: list[list[str]] = [[], [], [], [], []]
    lines: list[int] = []
    failed = 0
    for line, row in _json_lines(path):
        prompt, judge = _prompt(path, line, row), _judge(path, line, row)
        for game in _games(path, line, row):
            if game is None:
                failed += 1
                continue
            for column, value in zip(columns, (prompt, judge, *game)):
                column.append(value)
            lines.append(line)
    return _FileVerdicts(verdicts_frame(*columns), lines, failed)


def _verdicts_from_mt_bench(files: Sequence[PathLike]) -> pd.DataFrame:
    """Read MT-Bench pairwise judgment files (FastChat ``model_judgment/*_pair.jsonl``) as one verdicts table.

    Parameters
    ----------
    files : sequence of path-like
        JSON Lines files of pairwise judgments, read in the order given.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``, two rows a line, game 1 then game 2: game 1
        model_a = ``model_1`` (shown first), model_b = ``model_2``; game 2 model_a = ``model_2``,
        model_b = ``model_1``. winner ``model_a`` / ``model_b`` for the model shown first / second,
        ``tie`` for ``tie``. prompt = ``"<question_id>/turn<turn>"`` (``"81/turn2"``: each turn of a
        question is judged apart, on the conversation up to it), ``question_id`` alone on a line without a
        turn. judge = the judge model (``gpt-4``); the prompt name (``pair-v2``, ``pair-math-v1``,
        ``-multi-turn``) is left out, for FastChat picks it by the question's category and turn, so it
        names no other judge. A game whose winner is not ``model_1``, ``model_2`` or ``tie`` (``error``:
        the judgment could not be parsed) is left out, and one DataWarning counts those left out.

    Raises
    ------
    ValueError
        Without a file.
    DataError
        Naming the file, line and value: a line that is not a JSON object, a missing key or empty field, a
        winner that is not a string, ``model_1`` == ``model_2``, a single-answer grading line.
    """
    if not files:
        raise ValueError("mt_bench needs judgment files; got none")
    read = [_mt_bench_file(p) for p in files]
    _warn_left_out({Path(p): r.left_out for p, r in zip(files, read)}, "MT-Bench verdicts that failed (error)")
    return pd.concat([r.verdicts for r in read], ignore_index=True)
