# manyjudges: aggregating the judgments of many human judges.
# Run: snakemake --cores all   (default config: simulated data, offline)
#      snakemake --cores all --configfile config/paper.yaml   (real public data)
from snakemake.utils import min_version

min_version("8.0")


# The default config applies only when no --configfile is given: a config such as
# config/paper.yaml then replaces it instead of being merged into it.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/orderings.smk"
include: "workflow/rules/consensus.smk"
include: "workflow/rules/graded.smk"
include: "workflow/rules/crowd.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
