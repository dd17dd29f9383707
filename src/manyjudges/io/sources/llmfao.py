"""Parse the LLMFAO pairwise comparisons: crowd workers, GPT-4 and GPT-3.5 on the same pairs of answers.

dustalov/llmfao (Ustalov, "Large Language Model Feedback Analysis and Optimization (LLMFAO)", 2023;
the test data of evalica) compares the answers of 59 models to 13 prompts, two at a time: in
``crowd-comparisons.csv`` crowd workers (up to five a pair), in ``gpt4-crowd-comparisons.csv`` and
``gpt3-crowd-comparisons.csv`` GPT-4 and GPT-3.5 (one verdict a pair). Each file is a CSV with
columns ``id`` (the pair), ``prompt`` (the prompt's id), ``model_x``, ``model_y`` (the models' ids),
``judge`` (the crowd file only), ``winner`` (``left``, ``right`` or ``tie``), ``left`` and ``right``
(the models' names). ``left`` is always the name of ``model_x``: the answer shown first, as
"System A" on the left (the annotators' training pairs of the same repository call the ``model_x``
answer "System A" and a ``left`` golden answer "System A followed the prompt better"). See
``docs/data.md``.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from manyjudges.io.engine.checks import _raise_earliest
from manyjudges.io.engine.columnar import TableLayout, read_columns, read_header
from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.verdicts import VERDICT_COLUMNS, _pair_faults, verdicts_frame

__all__ = ["verdicts_from_llmfao"]

#: the comparison files, in the order they are read -> the judge of every verdict (None: the ``worker`` column)
_LLMFAO_FILES: dict[str, str | None] = {"crowd-comparisons.csv": None, "gpt4-crowd-comparisons.csv": "gpt4",
                                       "gpt3-crowd-comparisons.csv": "gpt3"}
#: the columns of a comparison file (``judge`` in the crowd file only)
_LLMFAO_LAYOUT = TableLayout("LLMFAO comparisons file", ("id", "prompt", "model_x", "model_y", "judge", "winner",
                                                        "left", "right"), optional=("judge",))
_OUTCOMES = ("left", "right", "tie")
_WINNER = {"left": "model_a", "right": "model_b", "tie": "tie"}


def _comparisons(path: Path, judge: str | None) -> pd.DataFrame:
    """Read the verdicts of one comparison file.

    Prompt = ``prompt``, judge = ``worker`` (or ``judge``), model_a = ``left``, model_b = ``right``,
    winner from ``winner``.
    """
    table = read_columns(path, _LLMFAO_LAYOUT)
    if judge is None and not table.has("judge"):
        raise DataError.at(path, 1, "the crowd comparisons need a judge column", ",".join(read_header(path)))
    judged = ["prompt", "judge", "left", "right"] if judge is None else ["prompt", "left", "right"]
    _raise_earliest(table, _pair_faults(table, judged, "left", "right", "winner", _OUTCOMES))
    winner = table.strings("winner").map(_WINNER)
    return verdicts_frame(table.strings("prompt"), table.strings("judge") if judge is None else judge,
                          table.strings("left"), table.strings("right"), winner)


def verdicts_from_llmfao(files: Sequence[PathLike]) -> pd.DataFrame:
    """Read the LLMFAO verdicts of the crowd and of the two LLM judges, as one verdicts table.

    Parameters
    ----------
    files : sequence of path-like
        Some of :data:`_LLMFAO_FILES` (by file name), in any order.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``: prompt = the prompt's id (``"8"``), judge = the
        crowd worker's id (``"58"``) or ``gpt4`` / ``gpt3``, model_a = ``left`` (the name of the model
        shown first), model_b = ``right``, winner ``model_a`` / ``model_b`` / ``tie`` for ``left`` /
        ``right`` / ``tie``. Every row is one verdict, the files read in :data:`_LLMFAO_FILES` order,
        each in file order.

    Raises
    ------
    ValueError
        Without a file, or with a file name not among :data:`_LLMFAO_FILES`.
    DataError
        Naming the file, line and value: a missing column, an empty field, a winner other than
        left, right or tie, ``left`` == ``right``.
    """
    paths = {Path(p).name: Path(p) for p in files}
    unknown = sorted(set(paths) - set(_LLMFAO_FILES))
    if unknown or not paths:
        raise ValueError(f"llmfao reads {', '.join(_LLMFAO_FILES)}; got {sorted(paths)}")
    frames = [_comparisons(paths[name], judge) for name, judge in _LLMFAO_FILES.items() if name in paths]
    return pd.concat(frames, ignore_index=True)[VERDICT_COLUMNS]
