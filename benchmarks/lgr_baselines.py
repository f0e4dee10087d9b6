"""Benchmark the baselines of notebook 21 (LLM-Guided Retrieval): `llm_perturb.lgr.evaluate_folds` now against an
earlier version of the module (--before, a commit; default b94d491, before the distinct-prediction and Gram-PCA
changes; 841c510 is the one before the first vectorisation), on the same input.

Task: the notebook's default run without an LLM: the bundle's Tahoe-100M ranked lists (every line), the L1000 A375
plate and the SIMULATED drug responses (6 lines x 60 drugs), every regime, 5 folds, k = 10, the 2,000 HVGs; the
loop of the notebook's baselines cell (cell a0b3d3ab: methods without a pool once per data set and split, the pool
methods per regime), then `summarize`. Run from the repository root of a git checkout (the old module is read with
`git show`): `python benchmarks/lgr_baselines.py [--datasets tahoe,l1000,sim_drugs] [--before COMMIT]`; with
LLM_PERTURB_DATA pointing at another data directory it runs on that one's lines. Prints each timing (CPU seconds of
this process, which a busy shared machine distorts less than wall-clock time; wall-clock beside it), the speed-up
and the load average, and checks the results: with --exact (the default for b94d491) the per-query table and the
metrics dict must be identical to the last bit (`pd.testing.assert_frame_equal(check_exact=True)`); otherwise the
largest per-query difference is printed (841c510's pca_ridge fitted in float32).
What changed since b94d491: each distinct weighting is computed once and each distinct prediction ranked once (no
hashing of rows, no queries x genes copies), X converted to float64 once per matrix, float32 scores snapped on their
bits, top-n masks without a tie count where no tie crosses the n-th place, one frame per method's rows, and the
sparse (Tahoe) PCA of pca_ridge from one Gram matrix per data set (each fold's block, eigendecomposed) instead of
ARPACK per fold. Target: >= 3x on the whole cell.
"""
import argparse, importlib.util, os, subprocess, sys, tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import llm_perturb.lgr as new
from _timing import timed

def load_old(commit):
    "The module as it was at `commit`, imported as llm_perturb._lgr_old (its relative imports read today's package)."
    src = subprocess.run(["git", "show", f"{commit}:llm_perturb/lgr.py"], capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp()) / "lgr_old.py"; path.write_text(src)
    spec = importlib.util.spec_from_file_location("llm_perturb._lgr_old", path)
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
    return mod



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
    out = pd.concat(out, ignore_index=True)
    return out, L.summarize(out)


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
    ap.add_argument("--before", default="b94d491", help="commit of the version to compare with")
    ap.add_argument("--exact", default=None, action=argparse.BooleanOptionalAction, help="require identical results (default: for b94d491)")
    args = ap.parse_args()
    exact = args.exact if args.exact is not None else args.before == "b94d491"
    data = {ds: new.load_dataset(ds) for ds in args.datasets.split(",")}
    tasks = new.lgr_tasks(data, new.REGIMES, 5, 0)
    print(f"{len(tasks)} tasks on {', '.join(f'{ds} ({a.n_obs} profiles)' for ds, a in data.items())}; load {os.getloadavg()[0]:.1f}")
    old = load_old(args.before)
    (a, ma), c_old, w_old = timed(lambda: baselines(old, data, tasks))
    (b, mb), c_new, w_new = timed(lambda: baselines(new, data, tasks))
    print(f"before ({args.before}): {c_old:7.1f} s CPU ({w_old:.1f} s wall)")
    print(f"now:{' ' * (len(args.before) + 6)}{c_new:7.1f} s CPU ({w_new:.1f} s wall)")
    print(f"speed-up: {c_old / c_new:.1f}x CPU, {w_old / w_new:.1f}x wall; {len(b)} per-query rows; load {os.getloadavg()[0]:.1f}")
    if exact:
        pd.testing.assert_frame_equal(a, b, check_exact=True)
        assert list(ma) == list(mb) and all(x == y or (x != x and y != y) for x, y in zip(ma.values(), mb.values()))
        print(f"identical: the per-query table and the {len(mb)} metrics, to the last bit")
    else:
        other, pca = compare(a, b)
        print(f"largest per-query difference: {other:.2g} (every method but pca_ridge*), {pca:.2g} (pca_ridge*)")


if __name__ == "__main__":
    main()
