"""Predictions of one graded method: this job's (protocol, chunk of held-out judges) parts."""
from manyjudges.graded.experiment import method_for, predict_parts
from manyjudges.graded.panel import GradedPanel
from manyjudges.io.grades import read_grades
from manyjudges.io.tables import write_table
from manyjudges.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
wc, p = snakemake.wildcards, snakemake.params
data = read_grades(snakemake.input.grades, snakemake.input.meta)
panel = GradedPanel.from_table(data.grades, data.n_labels)
method = method_for(p.spec, wc.method, p.dataset)
preds, params = predict_parts(panel, method, p.parts, p.n_chunks, p.dataset["min_labels_per_judge"],
                              p.dataset["outer_folds"])
write_tsv(params, snakemake.output.params)
write_table(preds, snakemake.output.predictions)  # full precision: log p of tiny p stays right
