"""Table 2 (mean metrics, per-topic metrics, t-tests), running times and annotator skills of one crowd dataset."""

from manyjudges.crowd import experiment as ex
from manyjudges.crowd.data import load_crowd_files
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.reporting.tables import concat_tables, in_method_order

setup_logging(snakemake.log[0])
p, out = snakemake.params, snakemake.output
dataset = load_crowd_files(dict(snakemake.input.items()))
ids = {"topic": str, "item": str, "judge": str}
rankings = in_method_order(concat_tables(snakemake.input.rankings, dtype=ids), p.methods)  # a job may hold several
by_topic = ex.metrics_by_topic(rankings, dataset, p.ks, p.rbp_p, p.dataset["relevant_grade"])
write_tsv(by_topic, out.metrics_by_topic)
write_tsv(ex.mean_metrics(by_topic, p.methods, p.ks), out.ranking_metrics)
# Table 2 at every binary-relevance threshold: the readings of "relevant" (REPRODUCTION.md, "Readings")
write_tsv(ex.metrics_by_relevance(rankings, dataset, p.methods, p.ks, p.rbp_p), out.ranking_metrics_by_relevance)
write_tsv(ex.truth_coverage_table(dataset), out.truth_coverage)
write_tsv(ex.significance_tests(by_topic, p.proposed, p.baselines, p.ks), out.significance)
write_tsv(in_method_order(concat_tables(snakemake.input.runtime), p.methods), out.runtime)
skill = ex.skill_table(in_method_order(concat_tables(snakemake.input.quality, dtype=ids), p.methods), dataset)
# the estimates unrounded, as this table has always had them (write_tsv rounds float columns)
write_tsv(skill.astype({"skill": object}), out.quality)
write_tsv(ex.skill_divergence(skill, p.skill_bins), out.quality_kl)
