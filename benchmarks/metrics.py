"""Benchmark the vectorised `retrieval` and `aurecall` of llm_perturb.metrics against per-row Python loops.

Run from the repository root: `python benchmarks/metrics.py`. Prints each timing, the speed-up, and checks that
the vectorised and loop versions agree. Targets: vectorised < 2 s each, >= 20x faster than the loop.
"""
import os
import time

import numpy as np
from scipy import stats

from llm_perturb.metrics import aurecall, retrieval


def timed(fn, *args, repeat=1):
    "(result, seconds): the best of `repeat` calls."
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return out, best


def report(title, t_fast, baselines):
    "Print the vectorised time and, per baseline (label, seconds, note), its time and the speed-up."
    print(title)
    print(f"  {'vectorised (best of 3)':34s}{t_fast:9.2f} s")
    for label, t, note in baselines:
        print(f"  {label:34s}{t:9.2f} s   speed-up {t / t_fast:7.1f}x   {note}")


def retrieval_loop(pred, true):
    "Per-row loop: row i's Pearson r with every true row (centring and norms of `true` hoisted out of the loop)."
    tc = true - true.mean(axis=1, keepdims=True)
    tn = np.linalg.norm(tc, axis=1)
    fractions = []
    for i in range(len(pred)):
        x = pred[i] - pred[i].mean()
        c = tc @ x / (tn * np.linalg.norm(x))
        fractions.append(np.mean(c <= c[i] + 1e-12))
    return float(np.mean(fractions))


def retrieval_pairs_loop(pred, true, rows):
    "The most literal loop: scipy.stats.pearsonr for every (i, j) pair, for the given rows only."
    m = len(pred)
    fractions = []
    for i in rows:
        c = [stats.pearsonr(pred[i], true[j]).statistic for j in range(m)]
        fractions.append(np.mean([cj <= c[i] for cj in c]))
    return fractions


def aurecall_loop(sim, labels, rows):
    "Per-row loop over k: for row i, rank the others (stable, ties by index), then recall@k for each k = 1 ... n-1."
    n = len(sim)
    per_row = []
    for i in rows:
        others = [j for j in np.argsort(-sim[i], kind="stable") if j != i]
        partners = {j for j in range(n) if j != i and labels[j] == labels[i]}
        if not partners: continue
        per_row.append(np.mean([len(partners.intersection(others[:k])) / len(partners) for k in range(1, n)]))
    return per_row


def row_aurecall(sim, labels, i):
    "Row i's AURecall with the k loop vectorised (cumulative sum of hits); None when i has no partner."
    order = np.argsort(-sim[i], kind="stable")
    hits = labels[order[order != i]] == labels[i]
    return float(np.mean(np.cumsum(hits) / hits.sum())) if hits.any() else None


def aurecall_rowwise(sim, labels):
    "Per-row loop with the inner k loop vectorised: a stronger baseline."
    return float(np.mean([v for i in range(len(sim)) if (v := row_aurecall(sim, labels, i)) is not None]))


def bench_retrieval(m=2000, g=5000, seed=0):
    rng = np.random.default_rng(seed)
    true = rng.normal(size=g) + rng.normal(size=(m, g))
    pred = true + 30.0 * rng.normal(size=(m, g))  # a weak predictor: retrieval well below 1
    fast, t_fast = timed(retrieval, pred, true, repeat=3)
    slow, t_slow = timed(retrieval_loop, pred, true)
    assert abs(fast - slow) < 1e-9, (fast, slow)
    rows = range(5)
    _, t_pairs = timed(retrieval_pairs_loop, pred, true, rows)
    t_pairs_all = t_pairs / len(rows) * m
    report(f"retrieval  m={m:,} g={g:,}: value {fast:.4f}", t_fast, [
        (f"per-row loop (all {m:,} rows)", t_slow, ""),
        ("per-pair pearsonr loop", t_pairs_all, f"(timed on {len(rows)} rows, extrapolated to {m:,})")])
    return t_fast, t_slow / t_fast


def bench_aurecall(n=2000, reps=4, seed=0):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(n // reps), reps)
    sim = 0.6 * (labels[:, None] == labels) + rng.normal(scale=0.4, size=(n, n))
    sim = np.round((sim + sim.T) / 2, 2)  # LLM-like scores: two decimals, many ties
    fast, t_fast = timed(aurecall, sim, labels, repeat=3)
    mid, t_mid = timed(aurecall_rowwise, sim, labels)
    assert abs(fast - mid) < 1e-12, (fast, mid)
    rows = range(20)
    per_row, t_loop = timed(aurecall_loop, sim, labels, rows)
    t_loop_all = t_loop / len(rows) * n
    assert np.allclose(per_row, [row_aurecall(sim, labels, i) for i in rows], atol=1e-12)  # loops agree row by row
    report(f"aurecall   n={n:,} ({n // reps} labels x {reps}): value {fast:.4f}", t_fast, [
        ("per-row loop over k", t_loop_all, f"(timed on {len(rows)} rows, extrapolated to {n:,})"),
        ("per-row loop, k vectorised", t_mid, "(all rows; both are bound by the same argsort)")])
    return t_fast, t_loop_all / t_fast


if __name__ == "__main__":
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} (timings on a shared machine vary)")
    t_r, x_r = bench_retrieval()
    t_a, x_a = bench_aurecall()
    ok = t_r < 2 and t_a < 2 and x_r >= 20 and x_a >= 20
    print(f"targets (vectorised < 2 s, >= 20x vs the per-row loop): {'met' if ok else 'NOT met'}")
