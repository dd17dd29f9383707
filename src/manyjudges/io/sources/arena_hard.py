"""Parse Arena-Hard-Auto judgments: each model against the baseline, two games a line.

``data/<bench>/model_judgment/<judge>/<model>.jsonl`` of lm-sys/arena-hard-auto (Li et al., "From
Crowdsourced Data to High-Quality Benchmarks: Arena-Hard and BenchBuilder Pipeline", 2024), as its
``gen_judgment.py`` writes it, holds one JSON object a line with ``question_id`` (``uid`` in v2.0),
``model``, ``judge`` and ``games``: two games, each with a ``score`` such as ``"A>>B"``, ``"A>B"``,
``"A=B"``, ``"B>A"``, ``"B>>A"``, or null when the judgment could not be parsed (a game itself may be
null when the judge gave no answer). In game 1 the judge was shown the baseline's answer as A and the
model's as B; game 2 swaps them. v0.1 files do not name the baseline (its default, ``gpt-4-0314``, is
set in its ``config/judge_config.yaml``); v2.0 lines carry it in ``baseline``.
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

__all__ = ["ARENA_HARD_BASELINE"]

#: the baseline of Arena-Hard-Auto v0.1 (its judge_config.yaml), when a line does not name one
ARENA_HARD_BASELINE = "gpt-4-0314"
#: a game's score -> its winner (A: the answer shown first); a strong and a weak win are one win here
_ARENA_HARD_SCORES = {"A>>B": "model_a", "A>B": "model_a", "A=B": "tie", "B>A": "model_b", "B>>A": "model_b",
                     "B<<A": "model_a", "B<A": "model_a", "B=A": "tie", "A<B": "model_b", "A<<B": "model_b"}


def _score(path: Path, line: int, game: Any, number: int) -> str | None:
    """Return the winner of a game, None for a game that was not judged (a null game or a null score)."""
    if game is None:
        return None
    if not isinstance(game, dict) or "score" not in game:
        raise DataError.at(path, line, f"game {number} must be an object with a score", str(game)[:80])
    score = game["score"]
    if score is None:
        return None
    if score not in _ARENA_HARD_SCORES:
        raise DataError.at(path, line, f"game {number} score must be one of {', '.join(list(_ARENA_HARD_SCORES)[:5])} "
                           "or null", score)
    return _ARENA_HARD_SCORES[score]


def _line(path: Path, line: int, row: dict[str, Any], baseline: str
          ) -> tuple[str, str, list[tuple[str, str, str | None]]]:
    """Return (prompt, judge, the two games as (model_a, model_b, winner or None)) of one line."""
    key = "question_id" if "question_id" in row or "uid" not in row else "uid"
    prompt = _field_of(path, line, row, key, (str, int))
    judge, model = _field_of(path, line, row, "judge"), _field_of(path, line, row, "model")
    base = _field_of(path, line, row, "baseline") if row.get("baseline") is not None else baseline
    if model == base:
        raise DataError.at(path, line, "the model is the baseline (a model against itself)", model)
    games = row.get("games")
    if not isinstance(games, list) or len(games) != 2:
        raise DataError.at(path, line, "games must be a list of two games", str(games)[:80])
    winners = [_score(path, line, game, number) for number, game in enumerate(games, start=1)]
    return str(prompt), judge, [(base, model, winners[0]), (model, base, winners[1])]


def _arena_hard_file(path: PathLike, baseline: str = ARENA_HARD_BASELINE) -> _FileVerdicts:
    """Read the verdicts of one judgment file, each row's line, and the count of games not judged."""
    path = Path(path)
    columns: list[list[str]] = [[], [], [], [], []]
    lines: list[int] = []
    missing = 0
    for line, row in _json_lines(path):
        prompt, judge, games = _line(path, line, row, baseline)
        for model_a, model_b, winner in games:
            if winner is None:
                missing += 1
                continue
            for column, value in zip(columns, (prompt, judge, model_a, model_b, winner)):
                column.append(value)
            lines.append(line)
    return _FileVerdicts(verdicts_frame(*columns), lines, missing)


def _verdicts_from_arena_hard(files: Sequence[PathLike], baseline: str = ARENA_HARD_BASELINE) -> pd.DataFrame:
    """Read Arena-Hard-Auto judgment files (``model_judgment/<judge>/<model>.jsonl``) as one verdicts table.

    Parameters
    ----------
    files : sequence of path-like
        JSON Lines judgment files, read in the order given.
    baseline : str
        The model every line's model was compared with, where the line does not name it (``baseline``,
        v2.0): ``gpt-4-0314`` (:data:`ARENA_HARD_BASELINE`), the baseline of Arena-Hard-Auto v0.1.

    Returns
    -------
    pandas.DataFrame
        ``prompt, judge, model_a, model_b, winner``, two rows a line: game 1 model_a = the baseline
        (shown first, as A), model_b = ``model``; game 2 model_a = ``model``, model_b = the baseline.
        winner ``model_a`` for ``A>>B`` or ``A>B`` (a strong and a weak win are one win: the table keeps
        no strength), ``tie`` for ``A=B``, ``model_b`` for ``B>A`` or ``B>>A`` (the same with ``<``
        written the other way round). prompt = ``question_id`` (or ``uid``), judge = ``judge``. A game
        with a null score (or null itself) is left out, and one DataWarning counts those left out.

    Raises
    ------
    ValueError
        Without a file.
    DataError
        Naming the file, line and value: a line that is not a JSON object, a missing key or empty field,
        ``games`` not two games, a score that is none of the above, the model being the baseline.
    """
    if not files:
        raise ValueError("arena_hard needs judgment files; got none")
    read = [_arena_hard_file(p, baseline) for p in files]
    _warn_left_out({Path(p): r.left_out for p, r in zip(files, read)}, "Arena-Hard games without a score (null)")
    return pd.concat([r.verdicts for r in read], ignore_index=True)
