"""The Wilson score interval of a binomial proportion (Wilson 1927)."""
from __future__ import annotations

import numpy as np
from scipy.special import ndtri  # the normal quantile; scipy.stats costs every import of the crowd family 0.5 s


def _wilson_interval(successes: np.ndarray, trials: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``successes / trials``, elementwise.

    With p = x / n and z the standard normal quantile at 1 - (1 - level) / 2,

        centre = (p + z^2 / (2n)) / (1 + z^2 / n),
        half   = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2)),

    the interval is [centre - half, centre + half], inside [0, 1] (Wilson, E. B. (1927). Probable
    inference, the law of succession, and statistical inference. *JASA* 22(158), 209-212).
    Unlike the Wald interval it keeps its coverage near 0 and 1 and for small n (Brown, Cai,
    DasGupta 2001).

    Parameters
    ----------
    successes, trials : array_like
        Counts; ``trials`` 0 gives NaN bounds.
    level : float
        Confidence level, in (0, 1).

    Returns
    -------
    low : numpy.ndarray
        The lower bounds.
    high : numpy.ndarray
        The upper bounds.
    """
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    z = float(ndtri(0.5 + float(level) / 2.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = x / n
        shrink = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / shrink
        half = z / shrink * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    empty = n <= 0
    low = np.where(empty, np.nan, np.clip(centre - half, 0.0, 1.0))
    high = np.where(empty, np.nan, np.clip(centre + half, 0.0, 1.0))
    return low, high
