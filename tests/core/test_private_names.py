"""No module of the library imports another package's private names, read from the source (every import, at
module level or inside a function): a name with one leading underscore (``_helper``, ``_module``; dunders such
as ``__version__`` are not private) belongs to its own package (``manyjudges.<package>``): a module may import a
package-private helper of its own package, never another's. A helper two packages share is public, documented,
in the module whose job it is."""
import ast
from pathlib import Path

import pytest

import manyjudges

SRC = Path(manyjudges.__file__).parent
FILES = sorted(SRC.rglob("*.py"))


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(source: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every private name or module of the library that ``source`` imports:
    ``from manyjudges.a import _b``, ``from manyjudges.a._b import c``, ``import manyjudges.a._b``, and the
    relative ``from ._b import c`` / ``from . import _b``. Imports of other packages are not looked at."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and module.split(".")[0] != "manyjudges":
                continue
            dotted = "." * node.level + module
            if any(is_private(part) for part in module.split(".") if part):
                out.append((node.lineno, dotted))
            sep = "" if dotted.endswith(".") else "."
            out += [(node.lineno, f"{dotted}{sep}{alias.name}") for alias in node.names if is_private(alias.name)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "manyjudges" and any(is_private(part) for part in parts):
                    out.append((node.lineno, alias.name))
    return out


def package_of(path: Path) -> str:
    """``manyjudges.<package>`` of a library file (``manyjudges`` for the top-level modules)."""
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:2]) if len(parts) > 2 else parts[0]


def imported_package(path: Path, dotted: str) -> str:
    """The package a dotted name read by :func:`private_imports` in ``path`` lives in (a relative one resolved)."""
    if dotted.startswith("."):
        level = len(dotted) - len(dotted.lstrip("."))
        base = list(path.relative_to(SRC.parent).with_suffix("").parts)[:-1]
        dotted = ".".join(base[:len(base) - (level - 1)] + [dotted.lstrip(".")])
    return ".".join(dotted.split(".")[:2])


def test_no_module_imports_another_packages_private_names():
    found = [f"{path.relative_to(SRC)}:{line} imports {name}"
             for path in FILES for line, name in private_imports(path.read_text(encoding="utf-8"))
             if imported_package(path, name) != package_of(path)]
    assert not found, "make the helper two packages share public, in the module whose job it is:\n" + "\n".join(found)


@pytest.mark.parametrize("path, dotted, allowed", [
    ("truth/auto/stacking.py", "manyjudges.truth.heldout._split", True),
    ("truth/auto/stacking.py", "..heldout._split", True),
    ("truth/auto/__init__.py", "..heldout._split", True),
    ("truth/base.py", "manyjudges.core.solvers._step", False),
    ("crowd/elo.py", "manyjudges.truth.active._rates", False),
    ("io/sources/panel.py", "manyjudges.io.engine.columnar._lines", True),
])
def test_package_private_names_stay_in_their_package(path, dotted, allowed):
    assert (imported_package(SRC / path, dotted) == package_of(SRC / path)) is allowed


@pytest.mark.parametrize("source, expected", [
    ("from manyjudges.crowd.mpm_likelihood import _mean", [(1, "manyjudges.crowd.mpm_likelihood._mean")]),
    ("from manyjudges.io.tables.grades import grades_frame, _order, _Collector",
     [(1, "manyjudges.io.tables.grades._order"), (1, "manyjudges.io.tables.grades._Collector")]),
    ("from manyjudges.io.sources._text import PathLike", [(1, "manyjudges.io.sources._text")]),
    ("import manyjudges.io.sources._text as text", [(1, "manyjudges.io.sources._text")]),
    ("def f():\n    from manyjudges import _private", [(2, "manyjudges._private")]),
    ("from ._sibling import helper\nfrom . import _sibling\nfrom .sibling import _helper",
     [(1, "._sibling"), (2, "._sibling"), (3, ".sibling._helper")]),
    ("from manyjudges import __version__\nimport manyjudges.__main__\nfrom manyjudges.io.tables import grades", []),
    ("from numpy import _core\nimport scipy.optimize._lbfgsb\nfrom scipy.optimize import _lbfgsb", []),
])
def test_the_private_import_reader(source, expected):
    assert private_imports(source) == expected
