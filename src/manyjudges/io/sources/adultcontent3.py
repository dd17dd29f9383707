"""Parse the AdultContent3-HCOMP2010 data of Get-Another-Label.

``labels.txt`` (``judge<TAB>url<TAB>category``, no header) and
``categories.txt`` (one category a line) of the AdultContent3-HCOMP2010 data
(Ipeirotis, Provost, Wang, HCOMP 2010). Categories G < P < R < X are the
ordinal scale; the published ``categories.txt`` also lists a fifth category
``B`` that is not on it. See ``docs/data.md``; the rules shared by the graded
parsers are in :mod:`manyjudges.io.sources`.
"""

from __future__ import annotations

from pathlib import Path

from manyjudges.io.engine.errors import DataError
from manyjudges.io.sources.text_lines import PathLike, _data_lines, _GradeCollector, _tab_fields
from manyjudges.io.tables.grades import GradedData

__all__ = ["parse_adultcontent3"]

#: The ordinal AdultContent3 categories, lowest first (label 0 .. 3).
_ADULTCONTENT3_CATEGORIES: tuple[str, ...] = ("G", "P", "R", "X")
#: Categories ``categories.txt`` may list that are not on the ordinal scale:
#: labels with them are dropped (counted in ``dropped["category_B"]``).
_ADULT_OFF_SCALE: tuple[str, ...] = ("B",)


def _adult_categories(path: Path) -> set[str]:
    """Return the categories listed in ``categories.txt``, checked against the known scale."""
    listed: dict[str, int] = {}
    known = _ADULTCONTENT3_CATEGORIES + _ADULT_OFF_SCALE
    for number, text in _data_lines(path):
        if text not in known:
            raise DataError.at(
                path, number, f"unknown category (known: {', '.join(known)})", text
            )
        if text in listed:
            raise DataError.at(
                path, number, f"category listed twice (first on line {listed[text]})", text
            )
        listed[text] = number
    missing = [c for c in _ADULTCONTENT3_CATEGORIES if c not in listed]
    if missing:
        raise DataError.at(
            path, None, "categories file must list every one of G, P, R, X; missing", missing
        )
    return set(listed)


def parse_adultcontent3(labels_path: PathLike, categories_path: PathLike) -> GradedData:
    """Parse the AdultContent3-HCOMP2010 ``labels.txt`` with its ``categories.txt``.

    ``labels.txt`` has no header; each line is ``judge<TAB>url<TAB>category``.
    ``categories.txt`` lists one category a line.

    Parameters
    ----------
    labels_path : path-like
        ``labels.txt``.
    categories_path : path-like
        ``categories.txt``. It must list each of G, P, R, X once and may list
        B; no other category.

    Returns
    -------
    GradedData
        ``K = 4``, label names ``"G", "P", "R", "X"`` (labels 0..3: general
        audience < parental guidance < restricted < X-rated; the order is
        fixed by the data set, not read from the file). ``truth`` is None.

        ``grades``: item = url, judge = worker. Rows are dropped, in this
        order of precedence:

        - category ``B`` (listed in the published ``categories.txt`` but not
          on the G < P < R < X scale, and not described by the source
          repository, whose README speaks of 4 categories): counted in
          ``dropped["category_B"]``.
        - a repeated (judge, url): the first remaining row in file order is
          kept, later ones counted in ``dropped["duplicate"]`` (same
          category) or ``dropped["duplicate_conflict"]`` (another one). In
          the published file a fifth of the rows repeat a (judge, url):
          6,084 repeat the kept category, 2,784 differ from it.

    Raises
    ------
    DataError
        Naming the file, the 1-based line and the value, if a category in
        ``categories.txt`` is not G, P, R, X or B or is listed twice, G, P, R
        or X is missing from it, a line of ``labels.txt`` does not have 3
        fields or has an empty one, a label's category is not listed in
        ``categories.txt``, a blank line is followed by data, or there are no
        labels (or none left).
    """
    labels_path, categories_path = Path(labels_path), Path(categories_path)
    listed = _adult_categories(categories_path)
    code = {c: i for i, c in enumerate(_ADULTCONTENT3_CATEGORIES)}
    lines = _data_lines(labels_path)
    if not lines:
        raise DataError.at(labels_path, 1, "no labels", "(empty file)")
    grades = _GradeCollector()
    off_scale = dict.fromkeys(_ADULT_OFF_SCALE, 0)
    for number, text in lines:
        judge, url, category = _tab_fields(
            labels_path, number, text, ["judge", "url", "category"]
        )
        if category not in listed:
            raise DataError.at(
                labels_path,
                number,
                f"unknown category (not in {categories_path.name}: {', '.join(sorted(listed))})",
                category,
            )
        if category in off_scale:
            off_scale[category] += 1
            continue
        grades.add(url, judge, code[category])
    return GradedData(
        grades=grades.frame(labels_path),
        n_classes=len(_ADULTCONTENT3_CATEGORIES),
        label_names=list(_ADULTCONTENT3_CATEGORIES),
        dropped={**{f"category_{c}": n for c, n in off_scale.items()}, **grades.counts()},
    )
