"""Predictions of one graded job: its (method, protocol, chunk of held-out judges) parts."""
from manyjudges.graded.experiment import predict_job
from manyjudges.graded.panel import GradedPanel
from manyjudges.io.engine.table_text import write_table
from manyjudges.io.tables.grades import read_grades
from manyjudges.pipeline.workflow_support import setup_logging, write_tsv

setup_logging(snakemake.log[0])
p = snakemake.params
data = read_grades(snakemake.input.grades, snakemake.input.meta)
panel = GradedPanel.from_table(data.grades, data.n_classes)
preds, params = predict_job(panel, p.specs, p.parts, p.n_chunks, p.dataset)
write_tsv(params, snakemake.output.params)
write_table(preds, snakemake.output.predictions)  # full precision: log p of tiny p stays right
