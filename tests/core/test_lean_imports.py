"""The library and the command stand without the pipeline's packages: importing every family and the command,
and listing the methods, loads neither matplotlib nor snakemake (`pip install -e .` installs neither;
`.ci/lean_install.sh` checks the installed wheel). Each check runs in a fresh interpreter, whose modules are
its own."""
import subprocess
import sys
import textwrap

import pytest

#: what the pipeline and the figures need, and the library must not import on its own
PIPELINE_ONLY = ("matplotlib", "snakemake")

LIBRARY = ("manyjudges.truth", "manyjudges.crowd", "manyjudges.arena", "manyjudges.graded",
           "manyjudges.orderings", "manyjudges.consensus", "manyjudges.cli")

#: a finder that makes the pipeline's packages unimportable, as in an environment without them
BLOCK = textwrap.dedent(f"""
    import sys

    class Absent:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {PIPELINE_ONLY!r}:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

    sys.meta_path.insert(0, Absent())
""")


def python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_families_and_the_command_import_neither_matplotlib_nor_snakemake():
    code = "\n".join(f"import {name}" for name in LIBRARY) + textwrap.dedent(f"""
        import contextlib, io, sys
        from manyjudges.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["methods"]) == 0
        print(sorted(m for m in {PIPELINE_ONLY!r} if m in sys.modules))
    """)
    done = python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["manyjudges.truth.plots", "manyjudges.arena.plots"])
def test_a_plot_module_without_matplotlib_names_the_extra(module):
    done = python(BLOCK + f"import {module}")
    assert done.returncode == 1
    assert "ModuleNotFoundError" in done.stderr
    assert "pip install 'manyjudges[figures]'" in done.stderr
