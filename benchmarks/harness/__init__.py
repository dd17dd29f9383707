"""What the benchmarks share: timing and tables (:mod:`.timing`), the development pool (:mod:`.pool`), the
mirror's truth sets (:mod:`.truth_sets`)."""
