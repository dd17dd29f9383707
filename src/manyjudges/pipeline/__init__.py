"""What only the Snakemake pipeline uses: config checks, downloads, job plans, the reproduction report's assembly."""
