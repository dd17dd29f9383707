# manyjudges: aggregating the judgments of many human judges.
# Run: snakemake --cores all   (default config: simulated data, offline)
#      snakemake --cores all --configfile config/paper.yaml   (real public data)
from snakemake.utils import min_version

min_version("8.0")


configfile: "config/config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/orderings.smk"
include: "workflow/rules/report.smk"


rule all:
    default_target: True
    input:
        all_outputs(),
