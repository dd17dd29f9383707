"""Running the `manyjudges` command inside a test."""
from manyjudges.cli import main


def run_command(capsys, *argv):
    """(exit status, stdout, stderr) of ``manyjudges argv...`` (each argument as text)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err
