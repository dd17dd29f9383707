"""The studies that chose a default, each named after the default it chose."""
