"""Pseudobulk of a large on-disk AnnData: `llm_perturb.data.pseudobulk` (backed file, dask array) vs `sc.get.aggregate`.

Generates a sparse cells x genes h5ad (log1p counts, ~`--density` non-zero, `--groups` perturbations + control) in
row chunks, so generation never holds more than one chunk, then times each method in a fresh Python process and
prints cells/second and peak memory (tracemalloc peak of the call, and the process's peak RSS from getrusage):

- `backed`         pseudobulk(ad.read_h5ad(path, backed='r')): row chunks read from disk one at a time
- `dask`           pseudobulk(AnnData(X=read_elem_lazy(X))): X a dask array of sparse row blocks, computed per chunk
- `dask_parallel`  one dask task per row block (each reads its rows and returns groups x genes sums), summed as a tree
- `inmemory_pb`    pseudobulk on the matrix loaded into memory (load timed separately)
- `scanpy`         sc.get.aggregate(adata, by='perturbation', func='mean') on the in-memory matrix; when the matrix
                   would not fit in `--max-inmemory-gb`, on the first `--subset` cells instead (said in the output)

Every method's group means are compared with the backed result (max |difference| printed). For the in-memory
methods, "with load" adds the time to read the whole matrix into memory.

    python benchmarks/pseudobulk_dask.py [--cells 2000000] [--genes 2000] [--groups 2000] [--path /tmp/pb_bench.h5ad]

About 5 minutes for the default 2,000,000 x 2,000 (~1.7 GB file) on 2 cores; the file is reused if it exists
with the same shape (`--regenerate` to force), and deleted at the end unless `--keep`.
"""
import argparse, json, os, resource, subprocess, sys, time, tracemalloc
from pathlib import Path

import numpy as np

def _log(*a): print(*a, flush=True)

# ---- generation --------------------------------------------------------------------------------------------------

def _obs(cells, groups, seed):
    import pandas as pd
    rng = np.random.default_rng(seed)
    names = np.array(["control"] + [f"P{i:05d}" for i in range(groups)])
    code = rng.integers(0, groups + 1, cells)
    code[rng.random(cells) < 0.05] = 0  # ~5% extra control cells
    obs = pd.DataFrame({"perturbation": pd.Categorical.from_codes(code, categories=names)},
                       index=pd.RangeIndex(cells).astype(str))
    return obs

def _chunk(rng, n, genes, density, weights):
    "n x genes CSR of log1p(Poisson) values, ~density non-zero per row, gene frequencies ~ weights."
    import scipy.sparse as sp
    k = max(1, int(round(density * genes)))
    cols = rng.choice(genes, size=n * k, p=weights).astype(np.int32)
    rows = np.repeat(np.arange(n, dtype=np.int32), k)
    vals = np.log1p(rng.poisson(2.0, n * k) + 1).astype(np.float32)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, genes), dtype=np.float32)
    X.sum_duplicates()
    return X

def generate(path, cells, genes, groups, density, chunk, seed=0):
    "Write the h5ad chunk by chunk (obs/var first, then X appended block by block)."
    import anndata as ad, h5py, pandas as pd
    from anndata.io import write_elem, sparse_dataset
    obs = _obs(cells, groups, seed)
    var = pd.DataFrame(index=[f"G{j:05d}" for j in range(genes)])
    ad.AnnData(obs=obs, var=var).write_h5ad(path)
    rng = np.random.default_rng(seed + 1)
    w = rng.lognormal(0, 1, genes); w /= w.sum()
    t0 = time.perf_counter()
    with h5py.File(path, "a") as f:
        if "X" in f: del f["X"]
        for s in range(0, cells, chunk):
            X = _chunk(rng, min(chunk, cells - s), genes, density, w)
            if s == 0: write_elem(f, "X", X, dataset_kwargs=dict(chunks=(1 << 18,)))
            else: sparse_dataset(f["X"]).append(X)
            print(f"\r  generated {min(s + chunk, cells):>10,} / {cells:,} cells", end="", flush=True)
    print()
    return time.perf_counter() - t0

def _shape(path):
    import h5py
    try:
        with h5py.File(path, "r") as f: return tuple(int(x) for x in f["X"].attrs["shape"])
    except Exception: return None

# ---- methods (each run in a fresh process) -----------------------------------------------------------------------

def _dask_parallel(path, chunk):
    "One dask task per row block: read the block, multiply by the block's group indicator, sum the partial sums."
    import anndata as ad, dask, h5py, scipy.sparse as sp
    from anndata.io import read_elem, sparse_dataset
    with h5py.File(path, "r") as f:
        obs = read_elem(f["obs"]); n, g = (int(x) for x in f["X"].attrs["shape"])
    codes = obs["perturbation"].cat.codes.to_numpy(); k = len(obs["perturbation"].cat.categories)
    def part(s, e):
        with h5py.File(path, "r") as f: blk = sparse_dataset(f["X"])[s:e]
        G = sp.csr_matrix((np.ones(e - s), (codes[s:e], np.arange(e - s))), shape=(k, e - s))
        return np.asarray((G @ blk).toarray())
    parts = [dask.delayed(part)(s, min(s + chunk, n)) for s in range(0, n, chunk)]
    while len(parts) > 1:  # tree sum
        parts = [dask.delayed(np.add)(*parts[i:i + 2]) if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    sums = dask.compute(parts[0], scheduler="threads")[0]
    return sums / np.bincount(codes, minlength=k)[:, None], list(obs["perturbation"].cat.categories)

def worker(method, path, chunk, subset):
    "Run one method; return timing and memory as a dict (and save the group means for the comparison)."
    import warnings; warnings.filterwarnings("ignore")
    import anndata as ad, scanpy as sc, h5py
    from llm_perturb.data import pseudobulk
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = dict(method=method)
    tracemalloc.start()
    t0 = time.perf_counter()
    if method == "backed":
        a = ad.read_h5ad(path, backed="r")
        pb = pseudobulk(a, "perturbation", chunk_size=chunk); means, names = pb.X, list(pb.obs_names); n = a.n_obs
    elif method == "dask":
        from anndata.experimental import read_elem_lazy
        from anndata.io import read_elem
        f = h5py.File(path, "r")
        X = read_elem_lazy(f["X"], chunks=(chunk, -1))
        a = ad.AnnData(X=X, obs=read_elem(f["obs"]), var=read_elem(f["var"]))
        pb = pseudobulk(a, "perturbation", chunk_size=chunk); means, names = pb.X, list(pb.obs_names); n = a.n_obs
    elif method == "dask_parallel":
        means, names = _dask_parallel(path, chunk); n = _shape(path)[0]
    elif method in ("inmemory_pb", "scanpy"):
        a = ad.read_h5ad(path)
        if subset and subset < a.n_obs: a = a[:subset].copy(); out["subset"] = subset
        n = a.n_obs
        out["load_s"] = time.perf_counter() - t0; out["load_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.reset_peak(); t0 = time.perf_counter()
        if method == "scanpy":
            agg = sc.get.aggregate(a, by="perturbation", func="mean")
            means, names = np.asarray(agg.layers["mean"]), list(agg.obs_names)
        else:
            pb = pseudobulk(a, "perturbation", chunk_size=chunk); means, names = pb.X, list(pb.obs_names)
    else: raise ValueError(f"unknown method {method!r}")
    dt = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out.update(cells=n, seconds=dt, cells_per_s=n / dt, peak_traced_mb=peak,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, rss_after_import_mb=rss0)
    np.save(f"{path}.{method}.npy", np.asarray(means, dtype=np.float64))
    Path(f"{path}.{method}.names.json").write_text(json.dumps(names))
    return out

def run_method(method, a):
    "Run `worker(method)` in a fresh interpreter so peak RSS belongs to that method alone."
    cmd = [sys.executable, __file__, "--worker", method, "--path", a.path, "--chunk", str(a.chunk),
           "--subset", str(a.subset if method == "scanpy" and a.scanpy_subset else 0)]
    if method == "inmemory_pb" and a.scanpy_subset: cmd[-1] = str(a.subset)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode: raise RuntimeError(f"{method} failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])

def _aligned(path, method, ref):
    "`method`'s group means with rows in the order of `ref`'s groups (groups absent from `method` dropped)."
    d = np.load(f"{path}.{method}.npy"); names = json.loads(Path(f"{path}.{method}.names.json").read_text())
    if not Path(f"{path}.{ref}.names.json").exists(): return d
    order = {n: i for i, n in enumerate(names)}
    ref_names = json.loads(Path(f"{path}.{ref}.names.json").read_text())
    return d[[order[n] for n in ref_names]] if set(ref_names) <= set(order) else d

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=2_000_000); ap.add_argument("--genes", type=int, default=2_000)
    ap.add_argument("--groups", type=int, default=2_000, help="perturbations (plus one control group)")
    ap.add_argument("--density", type=float, default=0.05, help="fraction of non-zero entries")
    ap.add_argument("--chunk", type=int, default=100_000, help="rows per chunk (generation and pseudobulk)")
    ap.add_argument("--path", default="/tmp/pb_bench.h5ad")
    ap.add_argument("--methods", default="backed,dask,dask_parallel,inmemory_pb,scanpy")
    ap.add_argument("--max-inmemory-gb", type=float, default=8.0,
                    help="load the whole matrix for sc.get.aggregate only if it needs less than this")
    ap.add_argument("--subset", type=int, default=200_000, help="cells for sc.get.aggregate when the matrix does not fit")
    ap.add_argument("--regenerate", action="store_true"); ap.add_argument("--keep", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.path, a.chunk, a.subset))); return
    _log(f"pseudobulk benchmark: {a.cells:,} cells x {a.genes:,} genes, {a.groups:,} perturbations + control, "
         f"density {a.density}, chunk {a.chunk:,} rows; {os.cpu_count()} CPUs")
    if a.regenerate or _shape(a.path) != (a.cells, a.genes):
        _log(f"writing {a.path} ...")
        gen = generate(a.path, a.cells, a.genes, a.groups, a.density, a.chunk)
        _log(f"  wrote {os.path.getsize(a.path) / 2**30:.2f} GiB in {gen:.0f} s")
    else: _log(f"reusing {a.path} ({os.path.getsize(a.path) / 2**30:.2f} GiB)")
    import h5py
    with h5py.File(a.path, "r") as f: nnz = f["X/data"].shape[0]
    need_gb = nnz * 8 / 2**30 * 2.2  # data + indices, plus one copy while reading / aggregating
    a.scanpy_subset = need_gb > a.max_inmemory_gb
    if a.scanpy_subset:
        _log(f"the in-memory matrix needs ~{need_gb:.1f} GB > --max-inmemory-gb {a.max_inmemory_gb}: "
             f"in-memory methods run on the first {a.subset:,} cells (SUBSET)")
    rows = []
    for m in a.methods.split(","):
        _log(f"running {m} ..."); r = run_method(m, a); rows.append(r)
        extra = f" (load {r['load_s']:.1f} s, load peak {r['load_peak_mb']:.0f} MB)" if "load_s" in r else ""
        _log(f"  {m:14s} {r['cells']:>10,} cells {r['seconds']:7.1f} s {r['cells_per_s']:>12,.0f} cells/s  peak "
             f"traced {r['peak_traced_mb']:7.0f} MB  peak RSS {r['peak_rss_mb']:7.0f} MB{extra}")
    ref = np.load(f"{a.path}.backed.npy") if (Path(f"{a.path}.backed.npy")).exists() else None
    _log("\nmethod          cells       seconds   cells/s   with load: s  cells/s   peak traced MB  peak RSS MB  max|diff| vs backed")
    for r in rows:
        m = r["method"]; d = _aligned(a.path, m, "backed")
        diff = (f"{np.abs(d - ref).max():.2e}" if ref is not None and d.shape == ref.shape and not r.get("subset")
                else "n/a (subset)" if r.get("subset") else "n/a")
        tot = r["seconds"] + r.get("load_s", 0.0)
        _log(f"{m:14s} {r['cells']:>10,} {r['seconds']:9.1f} {r['cells_per_s']:>9,.0f} {tot:12.1f} {r['cells'] / tot:>9,.0f} {r['peak_traced_mb']:14.0f} "
             f"{r['peak_rss_mb']:12.0f}  {diff}{'  (SUBSET of ' + format(r['subset'], ',') + ' cells)' if r.get('subset') else ''}")
    for m in a.methods.split(","):
        for suf in (".npy", ".names.json"): Path(f"{a.path}.{m}{suf}").unlink(missing_ok=True)
    if not a.keep: Path(a.path).unlink(missing_ok=True)
    return rows

if __name__ == "__main__": main()
