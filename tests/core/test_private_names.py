"""No module of the library imports another's private names, read from the source (every import, at module
level or inside a function): a name with one leading underscore (``_helper``, ``_module``; dunders such as
``__version__`` are not private) belongs to its own module. A helper two modules share is public, documented,
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


def test_no_module_imports_another_modules_private_names():
    found = [f"{path.relative_to(SRC)}:{line} imports {name}"
             for path in FILES for line, name in private_imports(path.read_text(encoding="utf-8"))]
    assert not found, "make the shared helper public in the module whose job it is:\n" + "\n".join(found)


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
