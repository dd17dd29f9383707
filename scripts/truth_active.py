"""The replay of one truth dataset: where each policy for buying labels stops, following the advice (truth.active)."""
from manyjudges.io.tables.labels import read_labels, read_truth
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv
from manyjudges.truth.active.replay import replay_policies

setup_logging(snakemake.log[0])
spec, active, out = snakemake.params.spec, snakemake.params.active, snakemake.output
labels = read_labels(snakemake.input.labels, classes=spec.get("classes"), duplicates="first")
truth = read_truth(snakemake.input.truth, labels=labels, classes=spec.get("classes"))
summary, curves = replay_policies(labels, truth, active["method"], active.get("params"), tuple(active["policies"]),
                                  float(active["round_share"]), stop=active.get("stop", 0.99),
                                  **({"min_gain": active["min_gain"]} if "min_gain" in active else {}))
write_tsv(summary, out.summary)
write_tsv(curves, out.curves)
