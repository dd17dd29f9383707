"""The length-controlled win rate against a baseline: AlpacaEval 2.0's GLM, fitted on the verdicts at hand.

Dubois, Galambosi, Liang and Hashimoto, "Length-Controlled AlpacaEval: A Simple Way to Debias Automatic
Evaluators" (2024), alpaca_eval's ``metrics/glm_winrate.py``. For model m against baseline b, verdict i,
with p_i the probability that m's answer is the better (:mod:`~manyjudges.arena.winrate.baseline`):

    logit P_i = theta_m + phi_m tanh(delta_i / sd_m(delta)) + psi_m gamma_i

theta_m = the model's strength over the baseline's (theta_m - theta_b of the paper, the baseline's own
parameters 0), delta_i = the model's answer's feature (its length) minus the baseline's, sd_m(delta) its
sample standard deviation (ddof 1) over m's verdicts (0 or undefined: the length term is 0), gamma_i the
difficulty of verdict i's prompt (below). Fitted per model by minimising the soft-label cross-entropy

    L_m = -sum_i w_i [p_i log P_i + (1 - p_i) log(1 - P_i)] + reg / 2 (phi_m^2 + psi_m^2) + 1e-4 / 2 theta_m^2

(w_i the verdict's weight: 1, or its prompt's multiplicity in a bootstrap replicate; the tiny ridge on
theta keeps a model that won or lost every verdict finite) by Newton's method, all models at once. The
length-controlled win rate is the fit's prediction with the length term set to 0, averaged over m's
verdicts: LC_m = sum_i w_i sigma(theta_m + psi_m gamma_i) / sum_i w_i.

The difficulty of verdict i's prompt for model m, gamma_i = logit((sum p + 1/2) / (n + 1)), the sum and the
count n over the verdicts against the baseline on that prompt of every model but m: the prompt's smoothed
mean log-odds that the other models beat the baseline (0 where no other model met it there; m's own
verdicts are left out so that its outcome is not among its covariates). AlpacaEval fits its difficulty
once, on its own pool of models, and ships it; ours is computed from the table at hand (it depends on the
prompt's own verdicts only, so a bootstrap that resamples whole prompts carries it along).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

__all__ = ["design", "length_controlled"]

#: the ridge on theta_m (a model that won or lost every verdict keeps a finite strength)
_THETA_RIDGE = 1e-4
#: Newton's largest step in any parameter (the loss is convex; this only keeps early steps sane)
_MAX_STEP = 4.0


def _prompt_difficulty(prompt: np.ndarray, model: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Return gamma_i = logit((sum p + 1/2) / (n + 1)) per verdict, over the other models' verdicts on its prompt.

    The sums run over the verdicts against the baseline on verdict i's prompt whose model is not verdict
    i's model (module docstring); without such verdicts gamma_i = 0.
    """
    _, prompt_code = np.unique(prompt, return_inverse=True)
    _, cell = np.unique(np.column_stack([prompt_code, model]), axis=0, return_inverse=True)
    cell = cell.ravel()
    total = np.bincount(prompt_code, weights=p)[prompt_code] - np.bincount(cell, weights=p)[cell]
    count = np.bincount(prompt_code)[prompt_code] - np.bincount(cell)[cell]
    return np.asarray(logit((total + 0.5) / (count + 1.0)), dtype=float)


def _length_term(delta: np.ndarray, model: np.ndarray, n_models: int) -> np.ndarray:
    """Return tanh(delta_i / sd_m(delta)) per verdict, sd_m the sample sd (ddof 1) of its model's deltas.

    A model with fewer than two verdicts or deltas all equal has sd 0 or undefined: its term is 0.
    """
    count = np.bincount(model, minlength=n_models).astype(float)
    mean = np.bincount(model, weights=delta, minlength=n_models) / np.maximum(count, 1.0)
    squares = np.bincount(model, weights=(delta - mean[model]) ** 2, minlength=n_models)
    sd = np.sqrt(squares / np.maximum(count - 1.0, 1.0))
    scale = np.where((count > 1) & (sd > 0), sd, np.inf)
    return np.asarray(np.tanh(delta / scale[model]), dtype=float)


def design(length: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    """Return the design matrix, one row ``[1, tanh term, gamma]`` per verdict."""
    return np.column_stack([np.ones(len(length)), length, gamma])


def _per_model(model: np.ndarray, values: np.ndarray, n_models: int) -> np.ndarray:
    """Return the per-model sums of ``values`` (n, k...) as (n_models, k...)."""
    flat = values.reshape(len(values), -1)
    sums = [np.bincount(model, weights=flat[:, k], minlength=n_models) for k in range(flat.shape[1])]
    return np.stack(sums, axis=1).reshape((n_models, *values.shape[1:]))


def _penalty(reg: float) -> np.ndarray:
    """Return the ridge of (theta, phi, psi): THETA_RIDGE, reg, reg."""
    return np.array([_THETA_RIDGE, reg, reg])


#: the upper triangle of a 3 x 3 matrix, row by row
_UPPER = np.triu_indices(3)


def _products(X: np.ndarray) -> np.ndarray:
    """Return the 6 distinct entries of x_i x_i^T per verdict, (n, 6), in :data:`_UPPER`'s order."""
    rows, cols = _UPPER
    return X[:, rows] * X[:, cols]


def _outer_sums(model: np.ndarray, products: np.ndarray, h: np.ndarray, n_models: int) -> np.ndarray:
    """Return sum_i h_i x_i x_i^T per model, (n_models, 3, 3), from :func:`_products`."""
    rows, cols = _UPPER
    upper = _per_model(model, products * h[:, None], n_models)
    out = np.zeros((n_models, 3, 3))
    out[:, rows, cols] = upper
    out[:, cols, rows] = upper
    return out


def _fit_length_glm(model: np.ndarray, X: np.ndarray, p: np.ndarray, w: np.ndarray, n_models: int, reg: float = 1.0,
                   start: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 200) -> np.ndarray:
    """Return (theta, phi, psi) per model, (n_models, 3), minimising L_m (module docstring) by Newton's method.

    Parameters
    ----------
    model : numpy.ndarray of int
        Each verdict's model code.
    X : numpy.ndarray
        :func:`design` rows.
    p, w : numpy.ndarray
        Each verdict's soft label p_i in [0, 1] and its weight w_i >= 0.
    n_models : int
        The number of model codes.
    reg : float
        The ridge on phi and psi.
    start : numpy.ndarray, optional
        Starting parameters (a warm start); zeros by default.
    """
    beta = np.zeros((n_models, 3)) if start is None else np.array(start, dtype=float)
    penalty, products = _penalty(reg), _products(X)
    for _ in range(max_iter):
        s = expit(np.einsum("ij,ij->i", X, beta[model]))
        grad = _per_model(model, X * (w * (s - p))[:, None], n_models) + penalty * beta
        step = np.linalg.solve(_outer_sums(model, products, w * s * (1.0 - s), n_models) + np.diag(penalty),
                               grad[:, :, None])[:, :, 0]
        largest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(largest, 1e-300))
        beta -= step
        if not np.abs(step).max() > tol:
            break
    return beta


def length_controlled(model: np.ndarray, gamma: np.ndarray, w: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """Return LC_m = sum_i w_i sigma(theta_m + psi_m gamma_i) / sum_i w_i per model (NaN without weight)."""
    n_models = len(beta)
    s0 = expit(beta[model, 0] + beta[model, 2] * gamma)
    weight = np.bincount(model, weights=w, minlength=n_models)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.bincount(model, weights=w * s0, minlength=n_models) / weight, dtype=float)


def _length_controlled_se(model: np.ndarray, X: np.ndarray, p: np.ndarray, beta: np.ndarray,
                         reg: float = 1.0) -> np.ndarray:
    """Return the delta-method standard error of LC_m with the sandwich covariance of (theta, phi, psi).

    Cov = A^-1 B A^-1 with A = the penalised Hessian of L_m and B = sum_i (P_i - p_i)^2 x_i x_i^T (each
    verdict independent, as the raw win rate's se takes them); se = sqrt(g^T Cov g), g = the gradient of
    LC_m, mean_i sigma'(theta + psi gamma_i) (1, 0, gamma_i). NaN for a model with fewer than two verdicts.
    """
    n_models = len(beta)
    s = expit(np.einsum("ij,ij->i", X, beta[model]))
    products = _products(X)
    bread = np.linalg.inv(_outer_sums(model, products, s * (1.0 - s), n_models) + np.diag(_penalty(reg)))
    meat = _outer_sums(model, products, (s - p) ** 2, n_models)
    cov = bread @ meat @ bread
    s0 = expit(beta[model, 0] + beta[model, 2] * X[:, 2])
    slope = (s0 * (1.0 - s0))[:, None] * np.column_stack([np.ones(len(s0)), np.zeros(len(s0)), X[:, 2]])
    count = np.bincount(model, minlength=n_models).astype(float)
    g = _per_model(model, slope, n_models) / np.maximum(count, 1.0)[:, None]
    se = np.sqrt(np.maximum(np.einsum("mi,mij,mj->m", g, cov, g), 0.0))
    return np.where(count >= 2, se, np.nan)
