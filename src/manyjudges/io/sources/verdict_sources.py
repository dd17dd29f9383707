"""The published pairwise-verdict sets, each parsed into a verdicts table (:mod:`manyjudges.io.tables.verdicts`).

A pinned data set of ``resources/datasets.tsv`` whose config ``source`` is a key of
:data:`VERDICT_SOURCES` is read by :func:`verdicts_of_source` from its pinned files:

- ``llmfao``: :func:`~manyjudges.io.sources.llmfao.verdicts_from_llmfao`, crowd workers, GPT-4 and
  GPT-3.5 on the same pairs of 59 models' answers;
- ``prd``: :func:`~manyjudges.io.sources.prd.verdicts_from_prd`, five LLM judges in both
  presentation orders and the human votes on vicuna80;
- ``pandalm``: :func:`~manyjudges.io.sources.pandalm.verdicts_from_pandalm`, three annotators and
  two LLM judges on 999 pairs.

Files as their projects publish them, in these and other formats (Chatbot Arena, MT-Bench, Arena-Hard-Auto,
AlpacaEval), are read behind one name by :func:`~manyjudges.io.sources.published.read_published`.

A user's own verdicts (or preferences) table is read by
:func:`~manyjudges.io.tables.verdicts.read_verdicts_or_preferences` instead.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from manyjudges.io.sources.llmfao import verdicts_from_llmfao
from manyjudges.io.sources.pandalm import verdicts_from_pandalm
from manyjudges.io.sources.prd import verdicts_from_prd
from manyjudges.io.sources.text_lines import PathLike

__all__ = ["VERDICT_SOURCES", "verdicts_of_source"]

#: config ``source`` -> the parser of its pinned files into a verdicts table
VERDICT_SOURCES: Mapping[str, Callable[[Sequence[PathLike]], pd.DataFrame]] = {
    "llmfao": verdicts_from_llmfao,
    "prd": verdicts_from_prd,
    "pandalm": verdicts_from_pandalm,
}


def verdicts_of_source(source: str, files: Sequence[PathLike]) -> pd.DataFrame:
    """Read the verdicts table of a pinned data set's ``files`` by its ``source`` (:data:`VERDICT_SOURCES`).

    A ValueError naming the known sources for another one.
    """
    if source not in VERDICT_SOURCES:
        raise ValueError(f"unknown verdicts source {source!r}; known: {', '.join(VERDICT_SOURCES)}")
    return VERDICT_SOURCES[source](files)
