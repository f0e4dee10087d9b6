"""Benchmark the baselines of notebook 21 (LLM-Guided Retrieval): `llm_perturb.lgr.evaluate_folds` now against the
version before its vectorisation (commit 841c510), on the same input.

Task: the notebook's default run without an LLM: the bundle's Tahoe-100M ranked lists (every line), the L1000 A375
plate and the SIMULATED drug responses (6 lines x 60 drugs), every regime, 5 folds, k = 10, the 2,000 HVGs; the
loop of the notebook's baselines cell (methods without a pool once per data set and split, the pool methods per
regime). Run from the repository root of a git checkout (the old module is read with `git show`):
`python benchmarks/lgr_baselines.py [--datasets tahoe,l1000,sim_drugs]`. Prints each timing (CPU seconds of this
process, which a busy shared machine distorts less than wall-clock time; wall-clock beside it) and the speed-up, and
checks the per-query results: every method identical to 1e-12, except pca_ridge and pca_ridge@cell_line, which now
fit in float64 on one BLAS thread (before: float32, whose results moved with the BLAS thread count); their largest
difference is printed.
What changed: the candidate pools of a fold are one boolean queries x profiles mask on integer codes (before:
`np.isin` on object arrays per query), cell/drug means are found once per line/molecule, chemistry kNN groups its
candidates' rows once, identical predictions (a line's cell mean) are ranked once for the top-n precision, the
continuous metrics are computed for all rows at once, and the PCA + ridge no longer contends for BLAS threads.
Target: >= 3x on the whole loop.
"""
import argparse, importlib.util, subprocess, sys, tempfile, time
from pathlib import Path

import numpy as np
import pandas as pd

import llm_perturb.lgr as new

OLD_COMMIT = "841c510"  # main before the vectorisation


def load_old():
    "The module as it was at OLD_COMMIT, imported as llm_perturb._lgr_old (its relative imports read today's package)."
    src = subprocess.run(["git", "show", f"{OLD_COMMIT}:llm_perturb/lgr.py"], capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "lgr_old.py"; path.write_text(src)
    spec = importlib.util.spec_from_file_location("llm_perturb._lgr_old", path)
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
    return mod


def timed(fn):
    "(result, CPU seconds, wall seconds)."
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - t0


def baselines(L, data, tasks, k=10, n_hvg=2000, seed=0):
    "The notebook's baselines cell with module L: per-query rows of every task."
    out, memo = [], {}
    shared = [m for m in L.BASELINES if m not in L.POOL_METHODS]
    for task, (ds, folds) in tasks.items():
        key = (ds, folds[0].split)
        if key not in memo: memo[key] = L.evaluate_folds(data[ds], folds, task, shared, k=k, n_hvg=n_hvg, seed=seed)
        pool = L.evaluate_folds(data[ds], folds, task, [m for m in L.BASELINES if m in L.POOL_METHODS], k=k, n_hvg=n_hvg, seed=seed)
        ps = pool.drop_duplicates("row").set_index("row").pool_size
        out.append(pd.concat([memo[key].assign(task=task, regime=folds[0].regime, pool_size=lambda d: d.row.map(ps).to_numpy()),
                              pool], ignore_index=True))
    return pd.concat(out, ignore_index=True)


def compare(a, b):
    "Largest |difference| of the metric columns, for pca_ridge* and for the other methods; raises if any other column differs."
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    metrics = [c for c in a.columns if c not in new._INFO_COLS]
    for c in a.columns:
        if c not in metrics: assert (a[c].astype(str) == b[c].astype(str)).all(), c
    d = (a[metrics] - b[metrics]).abs().max(axis=1).fillna(0).to_numpy()
    assert (a[metrics].isna() == b[metrics].isna()).all().all()
    pca = a.method.str.startswith("pca_ridge").to_numpy()
    return d[~pca].max(), d[pca].max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default="tahoe,l1000,sim_drugs")
    args = ap.parse_args()
    data = {ds: new.load_dataset(ds) for ds in args.datasets.split(",")}
    tasks = new.lgr_tasks(data, new.REGIMES, 5, 0)
    print(f"{len(tasks)} tasks on {', '.join(f'{ds} ({a.n_obs} profiles)' for ds, a in data.items())}")
    old = load_old()
    a, c_old, w_old = timed(lambda: baselines(old, data, tasks))
    b, c_new, w_new = timed(lambda: baselines(new, data, tasks))
    other, pca = compare(a, b)
    print(f"before ({OLD_COMMIT}): {c_old:7.1f} s CPU ({w_old:.1f} s wall)")
    print(f"now:              {c_new:7.1f} s CPU ({w_new:.1f} s wall)")
    print(f"speed-up: {c_old / c_new:.1f}x CPU, {w_old / w_new:.1f}x wall; {len(b)} per-query rows")
    print(f"largest per-query difference: {other:.2g} (every method but pca_ridge*), {pca:.2g} (pca_ridge*: float64 now)")
    assert other <= 1e-12, other


if __name__ == "__main__":
    main()
