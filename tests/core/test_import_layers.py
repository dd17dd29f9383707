"""The library's layers import downward only, read from the source (every ``import manyjudges...``,
at module level or inside a function): shared cores at the bottom, then io/, then the reporting
pieces, then the five families (none imports another), then the assembly of the report and the doors
(command line, the pipeline's support). A new top-level module or package must be given a layer here;
the package's top holds only the subpackages, the family declaration and the entry points."""
import ast
from pathlib import Path

import pytest

import manyjudges

SRC = Path(manyjudges.__file__).parent

#: (layer, the top-level modules and packages of manyjudges in it), lowest first
LAYERS = (
    ("core", {"core"}),
    ("io", {"io"}),
    ("reporting", {"reporting"}),
    ("families", set(manyjudges.FAMILIES)),
    ("doors", {"__init__", "__main__", "cli", "families", "pipeline"}),
)
LEVEL = {unit: level for level, (_, units) in enumerate(LAYERS) for unit in units}
#: layers whose units may import one another (the families may not: each stands on the layers below)
SIDEWAYS = {"doors"}


def unit_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported_units(path: Path) -> list[tuple[str, int]]:
    """(top-level unit of manyjudges, line) of every import of the library in the file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] if node.module != "manyjudges" else [f"manyjudges.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "manyjudges" and len(parts) > 1:
                out.append((parts[1], node.lineno))
    return out


FILES = sorted(SRC.rglob("*.py"))


def test_every_module_has_a_layer():
    assert {unit_of(p) for p in FILES} <= set(LEVEL), "give the new module or package a layer in LAYERS"


def test_imports_run_downward_only():
    upward = []
    for path in FILES:
        here = unit_of(path)
        for there, line in imported_units(path):
            if there == here or there not in LEVEL:
                continue
            level_here, level_there = LEVEL[here], LEVEL[there]
            if level_there > level_here or (level_there == level_here and LAYERS[level_here][0] not in SIDEWAYS):
                upward.append(f"{path.relative_to(SRC)}:{line} ({LAYERS[level_here][0]}) imports "
                              f"manyjudges.{there} ({LAYERS[level_there][0]})")
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize("source, expected", [
    ("from manyjudges.graded.protocols import panel_problem", [("graded", 1)]),
    ("import manyjudges.truth.auto.estimator as a", [("truth", 1)]),
    ("def f():\n    from manyjudges.pipeline import reproduction", [("pipeline", 2)]),
    ("from . import sibling\nimport numpy", []),
])
def test_the_import_reader(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source)
    assert imported_units(path) == expected


def test_the_top_of_the_package_holds_only_subpackages_and_entry_points():
    top = {p.stem for p in SRC.glob("*.py")}
    assert top == {"__init__", "__main__", "families"}, "put a new module in the subpackage of its layer"
