"""Benchmark `llm_perturb.neighbours.smallest_k_mask` (the top-k sets of `topk_precision`) against the stable argsort
it replaced, on scores shaped like the LGR Tahoe task: 300 queries x 20,000 genes, each score a weighted mean over 10
neighbours of a signed rank score that is zero for most genes (so the scores are many distinct values plus large blocks
of exact ties, as the ranked-list predictors produce), top 100 and bottom 100.

Run from the repository root: `python benchmarks/topk.py`. Prints CPU seconds of this process (wall-clock beside it)
for both, the speed-up, and checks that both choose exactly the same genes (ties to the lower column).
Target: >= 2.5x faster (measured about 3-4x on 2 cores), identical sets.
"""
import time

import numpy as np

from llm_perturb.neighbours import smallest_k_mask, snap
from knn import timed  # benchmarks/knn.py: best-of-n CPU and wall seconds

N_QUERIES, N_GENES, N_NEIGHBOURS, K, SEED = 300, 20000, 10, 100, 0


def argsort_mask(O, k):
    "The old way: a full stable sort of every row, its first k marked."
    M = np.zeros(O.shape, bool)
    np.put_along_axis(M, np.argsort(O, axis=1, kind="stable")[:, :k], True, axis=1)
    return M


def main():
    rng = np.random.default_rng(SEED)
    w = 1 / np.arange(1, N_NEIGHBOURS + 1); w /= w.sum()  # rank weights of the neighbours
    S = np.zeros((N_QUERIES, N_GENES))
    for j in range(N_NEIGHBOURS):  # each neighbour: a signed rank score on 5% of the genes, zero elsewhere
        listed = rng.random((N_QUERIES, N_GENES)) < 0.05
        S += w[j] * listed * rng.choice([-1, 1], (N_QUERIES, N_GENES)) * rng.integers(1, 1000, (N_QUERIES, N_GENES)) / 1000
    S = snap(S)
    print(f"{N_QUERIES} queries x {N_GENES} genes, {len(np.unique(S))} distinct score values; top and bottom {K}")
    rows = []
    for name, O in (("top", -S), ("bottom", S)):
        old, c_old, w_old = timed(lambda: argsort_mask(O, K), repeat=3)
        new, c_new, w_new = timed(lambda: smallest_k_mask(O, K), repeat=3)
        assert (old == new).all(), f"{name}: the two choose different genes"
        rows.append((name, c_old, w_old, c_new, w_new))
    for name, c_old, w_old, c_new, w_new in rows:
        print(f"{name:6s}  stable argsort {c_old:6.3f} s CPU ({w_old:6.3f} s wall)   smallest_k_mask {c_new:6.3f} s CPU "
              f"({w_new:6.3f} s wall)   speed-up {c_old / c_new:5.1f}x CPU, {w_old / w_new:5.1f}x wall")
    print("identical sets: yes")


if __name__ == "__main__":
    main()
