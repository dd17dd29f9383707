"""A griffe extension for the API reference (mkdocs.yml): Sphinx roles as cross-references.

The docstrings are numpydoc (checked by ruff's pydocstyle rules, numpy convention) and griffe's
numpy parser reads their sections. What the parser leaves as text is Markdown, where two habits
of numpydoc would be garbled; before parsing, this extension rewrites (in the loaded docstrings,
never in the source):

- each role (``:mod:``, ``:class:``, ``:func:``, ``:meth:``, ``:data:``, ``:attr:``, ``:exc:``,
  ``:obj:``) into inline code that links to the object where the API reference documents it and
  stays plain code where it does not (an optional cross-reference, as mkdocstrings makes for
  annotations). ``~a.b.C`` shows ``C``, as in Sphinx; a name without dots is looked up from the
  docstring's own scope;
- each doctest block outside an ``Examples`` section (a ``>>>`` line and the lines after it up to a
  blank line) into a fenced ``pycon`` code block; the parser renders the ``Examples`` sections.
"""
from __future__ import annotations

import html
import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj):`([^`]+)`")
_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")


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
    """Fence the doctest blocks of ``text`` that are not in its ``Examples`` section."""
    out: list[str] = []
    in_fence = in_doctest = in_examples = False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if i + 1 < len(lines) and _UNDERLINE.match(lines[i + 1]) and stripped:
            in_examples = stripped.rstrip() == "Examples"
        if in_examples:
            out.append(line)
            continue
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


def _rewrite(obj: griffe.Object) -> None:
    if obj.docstring is not None:
        value = _fence_doctests(obj.docstring.value)
        obj.docstring.value = _ROLE.sub(lambda m: _role(obj, m), value)
    for member in obj.members.values():
        if not member.is_alias:
            _rewrite(member)  # type: ignore[arg-type]


class MarkdownDocstrings(griffe.Extension):
    """Rewrite Sphinx roles and doctest blocks once the whole package is loaded (names resolve then)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _rewrite(pkg)
