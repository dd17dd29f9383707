"""The truth-inference figure of one dataset: accuracy by method, the published accuracies beside."""
import pandas as pd

from manyjudges.pipeline.workflow_support import setup_logging
from manyjudges.reporting.paper_values import paper_values
from manyjudges.truth import plots
from manyjudges.truth.report import published_accuracy

setup_logging(snakemake.log[0])
dataset = snakemake.wildcards.truth_dataset
method_of = {name: (entry or {}).get("method", name) for name, entry in snakemake.params.methods.items()}
plots.plot_accuracy(pd.read_csv(snakemake.input[0], sep="\t"), dataset, snakemake.output.png, snakemake.output.pdf,
                    published=published_accuracy(paper_values(), dataset), method_of=method_of)
