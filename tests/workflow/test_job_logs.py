"""A job's log file: progress, warnings and the traceback of a failure; the console: only the last two."""
import subprocess
import sys
import textwrap


def test_the_log_holds_progress_warnings_and_the_traceback(tmp_path):
    log = tmp_path / "job.log"
    script = textwrap.dedent(f"""
        import logging
        from manyjudges.pipeline.workflow_support import setup_logging
        setup_logging({str(log)!r})
        logging.getLogger("manyjudges.graded").info("fold 1/4 done")
        logging.getLogger("manyjudges.graded").warning("lambda at the upper bound")
        raise ValueError("grades.tsv, line 6: label 7 is out of range")
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 1
    text = log.read_text()
    for fragment in ("INFO manyjudges.graded: fold 1/4 done", "WARNING manyjudges.graded: lambda at the upper bound",
                     "Traceback (most recent call last)", "ValueError: grades.tsv, line 6: label 7 is out of range"):
        assert fragment in text
    assert "fold 1/4" not in proc.stderr
    assert "lambda at the upper bound" in proc.stderr and "label 7 is out of range" in proc.stderr
