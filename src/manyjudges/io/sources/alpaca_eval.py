"""Parse AlpacaEval annotations: an automatic annotator's preference between two outputs to an instruction.

``annotations.json`` of tatsu-lab/alpaca_eval (Dubois et al., "AlpacaFarm", NeurIPS 2023; "Length-Controlled
AlpacaEval", 2024), as its ``PairwiseAnnotator`` saves it, is a JSON list of records with ``instruction``
(and in older sets ``input``), ``output_1``, ``output_2``, ``generator_1``, ``generator_2``, ``annotator``
and ``preference``: 1 = output_1 is better, 2 = output_2 is better, 0 = the two outputs are identical
(set without asking the annotator), and for the weighted annotators (``weighted_alpaca_eval_gpt4_turbo``)
a number in [1, 2]: 1 + the annotator's probability that output_2 is better, 1.5 a tie. A preference that
could not be parsed is null (NaN) or -1.

AlpacaEval shows the two outputs to the annotator in a random order (``is_randomize_output_order``, seeded
by the instruction) and stores them, and the preference, back in their own order: which output the
annotator saw first is not in the file.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.json_judgments import _field_of, _FileVerdicts, _json_records, _warn_left_out
from manyjudges.io.sources.text_lines import PathLike
from manyjudges.io.tables.verdicts import _without_partial_features, verdicts_frame

#: the preferences of a verdict that failed (AlpacaEval stores a missing preference as -1)
_MISSING = (-1,)


def _p_b(path: Path, number: int, value: Any) -> float | None:
    """Return the probability that output_2 is better of a ``preference``, None for a missing one.

    0 (identical outputs) is a tie, 0.5. A DataError naming the file, the record and the value for
    anything but null, NaN, -1, 0 or a number in [1, 2].
    """
    if value is None or (isinstance(value, float) and math.isnan(value)) or value in _MISSING:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value == 0 or 1 <= value <= 2):
        raise DataError.at(path, None, f"record {number}: preference must be 1, 2, a number between them, "
                           "0 (identical outputs) or null", value)
    return 0.5 if value == 0 else float(value) - 1.0


def _prompt(path: Path, number: int, row: dict[str, Any]) -> str:
    """Return the instruction, then a blank line and the ``input`` when there is one (as AlpacaEval joins them)."""
    instruction = _field_of(path, None, row, "instruction", where=f"record {number}: ")
    extra = row.get("input")
    return f"{instruction}\n\n{extra}" if isinstance(extra, str) and extra else instruction


def _alpaca_eval_file(path: PathLike) -> _FileVerdicts:
    """Read one annotations file's verdicts (with ``p_b``), each row's record, the missing preferences' count."""
    path = Path(path)
    rows: list[tuple[str, str, str, str, float]] = []
    lengths: list[tuple[int, int] | None] = []
    records: list[int] = []
    missing = 0
    for number, row in enumerate(_json_records(path)):
        where = f"record {number}: "
        first, second, judge = (_field_of(path, None, row, key, where=where)
                                for key in ("generator_1", "generator_2", "annotator"))
        if first == second:
            raise DataError.at(path, None, f"{where}generator_1 and generator_2 are the same model", first)
        p_b = _p_b(path, number, row.get("preference"))
        if p_b is None:
            missing += 1
            continue
        rows.append((_prompt(path, number, row), judge, first, second, p_b))
        lengths.append(_lengths(row))
        records.append(number)
    return _FileVerdicts(_frame(rows, lengths), records, missing, unit="record")


def _lengths(row: dict[str, Any]) -> tuple[int, int] | None:
    """Return the characters of ``output_1`` and ``output_2`` (None unless both are str)."""
    one, two = row.get("output_1"), row.get("output_2")
    return (len(one), len(two)) if isinstance(one, str) and isinstance(two, str) else None


def _frame(rows: list[tuple[str, str, str, str, float]], lengths: list[tuple[int, int] | None]) -> pd.DataFrame:
    """Return the verdicts table of (prompt, judge, model_a, model_b, p_b) rows, with ``p_b``.

    Then ``length_a, length_b`` (the outputs' characters) when every row has both outputs.
    """
    p_b = [r[4] for r in rows]
    winner = ["model_b" if p > 0.5 else "model_a" if p < 0.5 else "tie" for p in p_b]
    frame = verdicts_frame([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows],
                           winner)
    frame["p_b"] = pd.Series(p_b, dtype=float)
    if rows and all(pair is not None for pair in lengths):
        frame["length_a"] = pd.Series([pair[0] for pair in lengths if pair], dtype=float)
        frame["length_b"] = pd.Series([pair[1] for pair in lengths if pair], dtype=float)
    return frame


def _verdicts_from_alpaca_eval(files: Sequence[PathLike]) -> pd.DataFrame:
    """Read AlpacaEval ``annotations.json`` files as one verdicts table, with each judge's probability ``p_b``.

    Parameters
    ----------
    files : sequence of path-like
        JSON lists of annotation records, read in the order given.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner, p_b``, one row a record: model_a = ``generator_1``,
        model_b = ``generator_2``. **model_a is not the answer shown first**: AlpacaEval randomised the
        order shown to the annotator and stored the outputs back in their own order (the order shown is not
        in the file), so a position bias cannot be measured on these rows. Then ``length_a, length_b``, the
        characters of ``output_1`` and ``output_2`` (the answer feature of the length-controlled win rate),
        when every record kept has both outputs as text (else no length columns). prompt = the instruction (and
        its ``input``, after a blank line, where there is one), judge = ``annotator``. p_b = ``preference``
        - 1, the judge's probability that model_b's output is the better (0.5 for a preference of 0,
        identical outputs); winner ``model_b`` for p_b > 0.5, ``model_a`` for p_b < 0.5, ``tie`` for 0.5.
        A record whose preference is missing, null, NaN or -1 is left out, and one DataWarning counts
        those left out.

    Raises
    ------
    ValueError
        Without a file.
    DataError
        Naming the file, the record and the value: a file that is not a JSON list of objects, a missing key
        or empty field, a preference outside [1, 2] other than 0 or -1, ``generator_1`` == ``generator_2``.
    """
    if not files:
        raise ValueError("alpaca_eval needs annotation files; got none")
    read = [_alpaca_eval_file(p) for p in files]
    _warn_left_out({Path(p): r.left_out for p, r in zip(files, read)}, "AlpacaEval annotations without a preference")
    return _without_partial_features(pd.concat([r.verdicts for r in read], ignore_index=True))
