"""The truth-inference figures of one dataset: accuracy by method, the published accuracies beside; and where
the replay ran (truth_figures), accuracy against the share of labels bought, per policy."""
import pandas as pd

from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values
from manyjudges.truth import plots
from manyjudges.truth.report import published_accuracy

setup_logging(snakemake.log[0])
dataset, inp, out = snakemake.wildcards.truth_dataset, snakemake.input, snakemake.output
method_of = {name: (entry or {}).get("method", name) for name, entry in snakemake.params.methods.items()}
plots.plot_accuracy(pd.read_csv(inp.accuracy, sep="\t"), dataset, out.accuracy, out.accuracy_pdf,
                    published=published_accuracy(paper_values(), dataset), method_of=method_of)
if "active" in out.keys():
    plots.plot_replay(pd.read_csv(inp.curves, sep="\t"), pd.read_csv(inp.summary, sep="\t"), dataset,
                      out.active, out.active_pdf)
