"""The shared cores: estimator contract, registry, counting, ranks, solvers, the EM core, coded labels."""
