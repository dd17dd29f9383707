# manyjudges: aggregating the judgments of many human judges.
# Install the library first (README, "Quick start"): pip install -e '.[pipeline]'
# Run: snakemake --cores all   (default config: simulated data, offline)
#      snakemake --cores all --configfile config/paper.yaml   (real public data)
from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version

min_version("8.0")

try:
    from manyjudges.families import families
    from manyjudges.pipeline.config_checks import validate
except ModuleNotFoundError as error:
    if error.name != "manyjudges":
        raise
    raise WorkflowError(
        "the workflow runs the manyjudges library, which is not installed in this Python environment: "
        f"pip install -e '{workflow.basedir}[pipeline]'"
    ) from None


# The default config applies only when no --configfile is given: a config such as
# config/paper.yaml then replaces it instead of being merged into it.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# Every config mistake stops the run here, before any job (manyjudges.pipeline.config_checks.validate):
# the schema's defaults filled in, then the cross-references and every configured method.
SCHEMA = f"{workflow.basedir}/workflow/schemas/config.schema.yaml"
validate(config, schema=SCHEMA, configfiles=workflow.overwrite_configfiles)


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
