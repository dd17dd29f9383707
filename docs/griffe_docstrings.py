"""A griffe extension for the API reference (mkdocs.yml): this project's docstrings as Markdown.

The docstrings are free-form text written for ``help()`` and doctest, with Sphinx roles for
cross-references. Rendered as Markdown unchanged, a doctest block (``>>>`` lines) would become
nested block quotes and a role would show as ``:class:`` text. Before rendering, this extension
rewrites (in the loaded docstrings, never in the source):

- each doctest block (a ``>>>`` line and the lines after it up to a blank line) into a fenced
  ``pycon`` code block;
- each NumPy-style section (a title underlined with dashes, which Markdown would make a heading
  of the page) into a bold title, and its entries (``name : text``, or a line followed by more
  indented lines) into a list, one item per entry, so that they are not run together;
- each role (``:mod:``, ``:class:``, ``:func:``, ``:meth:``, ``:data:``, ``:attr:``, ``:exc:``,
  ``:obj:``) into inline code that links to the object where the API reference documents it and
  stays plain code where it does not (an optional cross-reference, as mkdocstrings makes for
  annotations, so an object left out of the reference is not a warning). ``~a.b.C`` shows ``C``,
  as in Sphinx; a name without dots is looked up from the docstring's own scope.
"""
from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj):`([^`]+)`")
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_ENTRY = re.compile(r"^(?P<name>[^\s:`][^:`]*?) : (?P<text>.*)$")
# an entry's first line shorter than this, with more lines under it, is "name : type" (NumPy's
# own layout: the description goes on a line of its own); a longer one was wrapped mid-sentence
_SHORT_HEAD = 60


def _target(obj: griffe.Object, name: str) -> str | None:
    """The full path that ``name`` (as written in ``obj``'s docstring) refers to, or None."""
    if name.startswith("manyjudges.") or name == "manyjudges":
        return name
    head, _, rest = name.partition(".")
    try:
        path = obj.resolve(head)
    except (griffe.NameResolutionError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None
    return f"{path}.{rest}" if rest else path


def _role(obj: griffe.Object, match: re.Match[str]) -> str:
    written = match[1].strip()
    name = written.lstrip("~").lstrip(".")
    title = name.rsplit(".", 1)[-1] if written.startswith("~") else name
    code = f"<code>{html.escape(title)}</code>"
    path = _target(obj, name)
    if path is None:
        return code
    # mkdocs-autorefs resolves this element when it writes the page (as it does the ones
    # mkdocstrings emits for annotations): a link when the object is documented, else the code
    return f'<autoref identifier="{html.escape(path)}" optional>{code}</autoref>'


def _fence_doctests(text: str) -> str:
    out: list[str] = []
    in_fence = in_doctest = False
    for line in text.split("\n"):
        stripped = line.lstrip()
        if in_doctest and not stripped:
            out += ["```", ""]
            in_doctest = False
            continue
        if not in_doctest and not in_fence and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            if out and out[-1].strip():
                out.append("")
            out.append(f"{indent}```pycon")
            in_doctest = True
        elif not in_doctest and stripped.startswith("```"):
            in_fence = not in_fence
        out.append(line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_title(lines: list[str], i: int) -> bool:
    return (bool(lines[i].strip()) and i + 1 < len(lines) and bool(_UNDERLINE.match(lines[i + 1]))
            and _indent(lines[i + 1]) == _indent(lines[i]) and not lines[i].lstrip().startswith("```"))


def _section_body(lines: list[str], i: int, base: int, out: list[str]) -> int:
    """Copy a section's entries from ``lines[i]`` as list items; returns the index it stopped at."""
    item_open = False
    head_short = False
    first_continuation = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            # a blank line ends the section unless another entry follows
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and _indent(lines[j]) > base and item_open:
                out.append("")  # a second paragraph of the same entry
                i = j
                continue
            if j < len(lines) and _indent(lines[j]) == base and not _is_title(lines, j) and _is_entry(lines, j):
                out.append("")
                i = j
                continue
            return i
        if stripped.startswith("```") or _is_title(lines, i) or _indent(line) < base:
            return i
        if _indent(line) == base and _is_entry(lines, i):
            match = _ENTRY.match(stripped)
            if match:
                name, text = match["name"], match["text"]
                head = f"`{name}` : {text}" if "`" not in name else stripped
            else:
                head = stripped if "`" in stripped else f"`{stripped}`"
            out.append(" " * base + "- " + head)
            item_open, head_short, first_continuation = True, len(stripped) < _SHORT_HEAD, True
        elif item_open:
            if first_continuation and head_short:
                out[-1] += "  "  # Markdown's hard line break: the description under its name and type
            out.append(" " * (base + 4) + stripped)
            first_continuation = False
        else:
            out.append(line)
        i += 1
    return i


def _is_entry(lines: list[str], i: int) -> bool:
    stripped = lines[i].strip()
    if _ENTRY.match(stripped):
        return True
    nxt = lines[i + 1] if i + 1 < len(lines) else ""
    return bool(nxt.strip()) and _indent(nxt) > _indent(lines[i])


def _numpy_sections(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and _is_title(lines, i):
            if out and out[-1].strip():
                out.append("")
            out += [f"{' ' * _indent(line)}**{line.strip()}**", ""]
            i = _section_body(lines, i + 2, _indent(line), out)
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        value = _numpy_sections(_fence_doctests(obj.docstring.value))
        obj.docstring.value = _ROLE.sub(lambda m: _role(obj, m), value)
    for member in obj.members.values():
        if not member.is_alias:
            _rewrite(member)  # type: ignore[arg-type]


class MarkdownDocstrings(griffe.Extension):
    """Rewrite doctest blocks and Sphinx roles once the whole package is loaded (names resolve then)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg)
