# manyjudges: aggregating the judgments of many human judges.
# Run: snakemake --cores all   (default config: simulated data, offline)
#      snakemake --cores all --configfile config/paper.yaml   (real public data)
import os
import sys

from snakemake.utils import min_version

# Every job is single-threaded (threads: 1): keep numpy's BLAS to one thread per job, so
# --cores N runs N jobs without BLAS threads spinning against each other (measured: a
# 15 ms Bradley-Terry fit took up to 3 s on a busy 2-core machine). Set these yourself to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
# glibc's malloc hands large freed arrays back to the kernel and faults them in again at the
# next allocation: the fitting loops (M5, M4-learned, ...) allocate arrays of a few MB at every
# objective evaluation, and spent as much time in the kernel as in numpy (measured: M5 on
# sim_medline 85 s -> 38 s with these). Keep freed memory in the process instead (glibc only;
# other allocators ignore the variables).
for _var, _value in (
    ("MALLOC_MMAP_THRESHOLD_", "33554432"),
    ("MALLOC_TRIM_THRESHOLD_", "1073741824"),
    ("MALLOC_TOP_PAD_", "268435456"),
):
    os.environ.setdefault(_var, _value)

min_version("8.0")

# This file and every job import the library from this checkout's src/ (inside a rule's conda
# environment too, for --software-deployment-method conda).
sys.path.insert(0, os.path.join(workflow.basedir, "src"))
from manyjudges.families import families  # noqa: E402
from manyjudges.pipeline.workflow_support import jobs_import_from  # noqa: E402

jobs_import_from(os.path.join(workflow.basedir, "src"))


# The default config applies only when no --configfile is given: a config such as
# config/paper.yaml then replaces it instead of being merged into it.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"


# each family's rules, for every family of manyjudges.families.families(): a built-in family's input
# functions (workflow/rules/<family>_common.smk), then its rules (workflow/rules/<family>.smk); a
# plug-in's rules file, as its Family declares it
for _family in families().values():
    for _rules in _family.rules_files(workflow.basedir):

        include: str(_rules)


include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
