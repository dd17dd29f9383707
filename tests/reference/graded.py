"""Graded-label references (docs/methods.md section 5, Wilbur and Kim; Dawid and Skene 1979), written
independently from the formulas.

Every reference works on plain ``(item, judge, label)`` triples (or index arrays) with Python
loops and dicts; none of them calls the library's helpers (``ref_ds_votes`` runs the EM it is
given as a black box; ``THETA_RIDGE`` is the library's ridge constant).
"""
from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict

import numpy as np

from manyjudges.graded.votes import THETA_RIDGE


def ref_prior(trip, k):
    """pi_c = (N_c + 1/2) / (N + K/2) over the given labels."""
    counts = [0] * k
    for _, _, c in trip:
        counts[c] += 1
    n = sum(counts)
    return [(counts[c] + 0.5) / (n + 0.5 * k) for c in range(k)]


def drop_judge(trip, i):
    return [t for t in trip if t[1] != i]


def by_item(trip):
    out = defaultdict(list)
    for d, j, c in trip:
        out[d].append((j, c))
    return out


def ref_logsumexp(xs):
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs))


# M1 --------------------------------------------------------------------------------------------

def ref_m1_predict(trip, n_items, k, tau):
    pi = ref_prior(trip, k)
    items = by_item(trip)
    out = []
    for d in range(n_items):
        labs = items.get(d, [])
        if not labs:
            out.append(pi)
            continue
        out.append([(1 - tau) * sum(c == x for _, c in labs) / len(labs) + tau * pi[x] for x in range(k)])
    return np.array(out)


def ref_m1_loglik(trip, k, tau):
    """Leave-one-training-judge-out log-probability of M1 (pi^(-i) and votes without judge i)."""
    total = 0.0
    for d, i, z in trip:
        rest = drop_judge(trip, i)
        pi = ref_prior(rest, k)
        others = [c for dd, _, c in rest if dd == d]
        p = (1 - tau) * others.count(z) / len(others) + tau * pi[z] if others else pi[z]
        total += math.log(p)
    return total


# M2 / M3 / M23 ------------------------------------------------------------------------------

def ref_D(trip, k, n_judges):
    """D[(j, c)][c'] = P(another judge says c' | judge j said c), over co-labelled items."""
    pi = ref_prior(trip, k)
    counts = {(j, c): [0] * k for j in range(n_judges) for c in range(k)}
    for labs in by_item(trip).values():
        for j, c in labs:
            for m, c2 in labs:
                if m != j:
                    counts[(j, c)][c2] += 1
    return {key: ([x / sum(row) for x in row] if sum(row) else list(pi)) for key, row in counts.items()}


def ref_vote_shares(labs, theta, D, n_judges, k, label_votes, cooc_votes):
    """sum_s u_s V_s / sum_s u_s over the voters ``labs`` [(j, c)]."""
    num, den = [0.0] * k, 0.0
    for j, c in labs:
        if label_votes:
            w = math.exp(theta[j])
            den += w
            num[c] += w
        if cooc_votes:
            v = math.exp(theta[n_judges * label_votes + j * k + c])
            den += v
            for x in range(k):
                num[x] += v * D[(j, c)][x]
    return [x / den for x in num]


def ref_votes_loglik(theta, trip, k, n_judges, tau, label_votes, cooc_votes):
    """Sum over training labels of log P(z_i | the other training judges), D and pi without i."""
    total = 0.0
    for d, i, z in trip:
        rest = drop_judge(trip, i)
        pi = ref_prior(rest, k)
        others = [(j, c) for dd, j, c in rest if dd == d]
        if not others:
            total += math.log(pi[z])
            continue
        D = ref_D(rest, k, n_judges) if cooc_votes else None
        q = ref_vote_shares(others, theta, D, n_judges, k, label_votes, cooc_votes)
        total += math.log((1 - tau) * q[z] + tau * pi[z])
    return total


def ref_votes_predict(theta, trip, n_items, k, n_judges, tau, label_votes, cooc_votes):
    pi = ref_prior(trip, k)
    D = ref_D(trip, k, n_judges) if cooc_votes else None
    items = by_item(trip)
    out = []
    for d in range(n_items):
        labs = items.get(d, [])
        if not labs:
            out.append(pi)
            continue
        q = ref_vote_shares(labs, theta, D, n_judges, k, label_votes, cooc_votes)
        out.append([(1 - tau) * q[x] + tau * pi[x] for x in range(k)])
    return np.array(out)


# Yu / M4 ------------------------------------------------------------------------------------

def ref_weighted_means(trip, r):
    """mu_dp = sum_j r_j z_j / sum_j r_j over the judges who labelled dp."""
    return {d: sum(r[j] * c for j, c in labs) / sum(r[j] for j, _ in labs) for d, labs in by_item(trip).items()}


def ref_squared_errors(trip, mu, min_error=1e-6):
    """e_j^2 = mean over j's items that another judge also labelled of (z_j - mu)^2; a judge with
    no such item gets the median of the others' (floored at ``min_error``)."""
    n_on = Counter(d for d, _, _ in trip)
    sq = defaultdict(list)
    for d, j, z in trip:
        if n_on[d] > 1:
            sq[j].append((z - mu[d]) ** 2)
    err = {j: sum(v) / len(v) for j, v in sq.items()}
    fill = statistics.median(err.values()) if err else 1.0
    return {j: max(err.get(j, fill), min_error) for j in sorted({j for _, j, _ in trip})}


def ref_yu(trip, beta=0.5, max_iter=5000, tol=1e-13):
    """Yu et al.'s fixed point from uniform r: (r dict, mu dict)."""
    judges = sorted({j for _, j, _ in trip})
    r = {j: 1.0 / len(judges) for j in judges}
    for _ in range(max_iter):
        e2 = ref_squared_errors(trip, ref_weighted_means(trip, r))
        new = {j: e2[j] ** (-beta) for j in judges}
        total = sum(new.values())
        new = {j: v / total for j, v in new.items()}
        change = max(abs(new[j] - r[j]) for j in judges)
        r = new
        if change < tol:
            break
    return r, ref_weighted_means(trip, r)


def ref_gauss_logp(mu, sigma, k, predictive="discrete"):
    """log P(c | mu) over c = 0..K-1: discrete normalised Gaussian, or binned with open end bins."""
    if predictive == "discrete":
        logits = [-((c - mu) ** 2) / (2 * sigma ** 2) for c in range(k)]
        lse = ref_logsumexp(logits)
        return [x - lse for x in logits]
    out = []
    for c in range(k):
        lo = -math.inf if c == 0 else (c - 0.5 - mu) / sigma
        hi = math.inf if c == k - 1 else (c + 0.5 - mu) / sigma
        # Phi(x) = erfc(-x / sqrt 2) / 2; the upper tail through 1 - Phi, so far-tail bins keep precision
        if lo > 0:
            mass = 0.5 * (math.erfc(lo / math.sqrt(2)) - math.erfc(hi / math.sqrt(2)))
        else:
            mass = 0.5 * (math.erfc(-hi / math.sqrt(2)) - math.erfc(-lo / math.sqrt(2)))
        out.append(math.log(max(mass, 1e-300)))  # never exactly 0 (the library's MIN_PROBABILITY)
    return out


def ref_m4_held_out(trip, k, inner_folds=None):
    """Per training judge i: (mu^(-g) from Yu's fixed point without i's inner fold g, pi^(-i)).

    Folds: one per judge, or the sorted judges dealt round-robin into ``inner_folds`` groups."""
    judges = sorted({j for _, j, _ in trip})
    n_folds = len(judges) if inner_folds is None else inner_folds
    fold = {j: n % n_folds for n, j in enumerate(judges)}
    out = {}
    for i in judges:
        rest = [t for t in trip if fold[t[1]] != fold[i]]
        out[i] = (ref_yu(rest)[1], ref_prior(drop_judge(trip, i), k))
    return out


def ref_m4_loglik(trip, k, sigma, held_out, predictive="discrete"):
    total = 0.0
    for d, i, z in trip:
        mu, pi = held_out[i]
        total += ref_gauss_logp(mu[d], sigma, k, predictive)[z] if d in mu else math.log(pi[z])
    return total


def ref_m4_learned_objective(x, trip, k, n_judges):
    """Minus the leave-one-judge-out log-probability of the weighted-mean Gaussian (+ ridge on theta)."""
    theta, sigma = x[:n_judges], math.exp(x[n_judges])
    total = 0.0
    for d, i, z in trip:
        rest = drop_judge(trip, i)
        others = [(j, c) for dd, j, c in rest if dd == d]
        if others:
            mu = sum(math.exp(theta[j]) * c for j, c in others) / sum(math.exp(theta[j]) for j, _ in others)
            total += ref_gauss_logp(mu, sigma, k)[z]
        else:
            total += math.log(ref_prior(rest, k)[z])
    return -total + 0.5 * THETA_RIDGE * sum(t * t for t in theta)


# M5 -----------------------------------------------------------------------------------------

def ref_maxent_objective(x, trip, n_judges, k, lam):
    """Mean over instances (one per label) of -log softmax(score)[target] + (lam/2) ||W||^2."""
    b, W = x[:k], x[k:].reshape(n_judges, k, k)
    items = by_item(trip)
    nll = 0.0
    for d, j, z in trip:
        scores = [b[c] + sum(W[m, zm, c] for m, zm in items[d] if m != j) for c in range(k)]
        nll += ref_logsumexp(scores) - scores[z]
    penalty = 0.5 * lam * sum(float(w) ** 2 for w in W.ravel())
    return nll / len(trip) + penalty


def ref_maxent_log_proba(x, trip, n_items, n_judges, k):
    b, W = x[:k], x[k:].reshape(n_judges, k, k)
    items = by_item(trip)
    out = []
    for d in range(n_items):
        scores = [b[c] + sum(W[m, zm, c] for m, zm in items.get(d, [])) for c in range(k)]
        lse = ref_logsumexp(scores)
        out.append([s - lse for s in scores])
    return np.array(out)


# Dawid-Skene ---------------------------------------------------------------------------------

def ref_ds_votes(trip, n_items, n_judges, k, em):
    """sum_t T[dp, t] C[t, c], C the label-count-weighted mean confusion (EM run as a black box)."""
    item = np.array([d for d, _, _ in trip])
    judge = np.array([j for _, j, _ in trip])
    label = np.array([c for _, _, c in trip])
    res = em(item, judge, label, n_items=n_items, n_judges=n_judges, n_classes=k)
    n = Counter(j for _, j, _ in trip)
    labelled = {d for d, _, _ in trip}
    out = {}
    for d in labelled:
        out[d] = [sum(res.posteriors[d, t] * sum(n[j] * res.confusion[j, t, c] for j in n) / len(trip)
                      for t in range(k)) for c in range(k)]
    return out


def reference_em(item, judge, label, n_items, n_judges, k, n_iter, smoothing, init="majority"):
    """Dawid & Skene (1979) EM written directly with dicts and loops (same init, smoothing, steps).

    Returns (posteriors, confusion, priors, log_likelihood) after ``n_iter`` M+E iterations.
    """
    by_item = defaultdict(list)  # i -> [(j, c)]
    by_judge = defaultdict(list)  # j -> [(i, c)]
    for i, j, c in zip(item.tolist(), judge.tolist(), label.tolist()):
        by_item[i].append((j, c))
        by_judge[j].append((i, c))
    post = {}  # labelled items only
    for i, labs in by_item.items():
        votes = [0.0] * k
        for _, c in labs:
            votes[c] += 1
        if init == "hard_majority":
            best = max(votes)
            votes = [1.0 if v == best else 0.0 for v in votes]
        post[i] = [v / sum(votes) for v in votes]
    for _ in range(n_iter):
        prior = [sum(p[t] for p in post.values()) + smoothing for t in range(k)]
        prior = [x / sum(prior) for x in prior]
        conf = {}
        for j in range(n_judges):
            conf[j] = []
            for t in range(k):
                row = [smoothing] * k
                for i, c in by_judge.get(j, []):
                    row[c] += post[i][t]
                total = sum(row)
                conf[j].append([x / total for x in row] if total > 0 else [1.0 / k] * k)
        new_post, full, ll = {}, [], 0.0
        for i in range(n_items):
            logs = []
            for t in range(k):
                v = math.log(prior[t]) if prior[t] > 0 else -math.inf
                for j, c in by_item.get(i, []):
                    v += math.log(conf[j][t][c]) if conf[j][t][c] > 0 else -math.inf
                logs.append(v)
            m = max(logs)
            z = m + math.log(sum(math.exp(x - m) for x in logs))
            p = [math.exp(x - z) for x in logs]
            full.append(p)
            if i in by_item:
                new_post[i] = p
                ll += z
        post = new_post
    confusion = np.array([conf[j] for j in range(n_judges)])
    return np.array(full), confusion, np.array(prior), ll
