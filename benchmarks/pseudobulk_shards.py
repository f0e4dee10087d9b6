"""`llm_perturb.pseudobulk.pseudobulk_shards` on sharded cells: a Dask LocalCluster of 1 and of 2 workers, and scanpy.

Writes `--cells` simulated cells (counts; `--lines` cell lines x `--drugs` drugs + the DMSO_TF control; `--genes`
genes, `--density` of them detected per cell) into `--shards` .h5ad files with `pseudobulk.write_synthetic_shards`
(chunk by chunk, so generation never holds more than one chunk), then runs the whole job (log-normalise, group
means, control deltas, output written) on a LocalCluster of each worker count and prints:

- seconds, cells/s and non-zero values/s of the job (the cluster's start is timed apart, not included),
- the speed-up of N workers over 1,
- each worker's peak memory (its process's peak RSS, `getrusage`, read on the worker after the job),
- whether every run wrote the same bytes (sha256 of the output file),
- the ratio to `scanpy.get.aggregate` on one shard held in memory (`sc.pp.normalize_total` + `sc.pp.log1p` +
  `aggregate(..., func='mean')`; the shard's load timed apart) against `pseudobulk_shards` on that shard in-process,
- the time 100 million cells would take on N workers, extrapolated linearly from the measured rate per worker of the
  largest worker count (labelled as an extrapolation: it assumes storage that keeps up), once at the simulated
  non-zeros per cell and once at `--tahoe-nnz` non-zeros per cell (from the measured non-zeros/s).

    python benchmarks/pseudobulk_shards.py [--cells 10000000] [--shards 20] [--workers 1,2] [--path /tmp/pb_shards]

The shards are reused when they exist with the same settings (`--regenerate` forces), deleted at the end unless
`--keep`. Run it as a script (Dask's worker processes re-import it).
"""
import argparse, hashlib, json, logging, os, resource, shutil, sys, tempfile, time
from pathlib import Path

import numpy as np

def _log(*a): print(*a, flush=True)

def _sha(p): return hashlib.sha256(Path(p).read_bytes()).hexdigest()[:16]

def _peak_rss_mb(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

def shards(a) -> list[Path]:
    "The benchmark's shards, written unless present with the same settings"
    from llm_perturb.pseudobulk import write_synthetic_shards
    folder = Path(a.path); stamp = folder / "settings.json"
    want = dict(cells=a.cells, shards=a.shards, genes=a.genes, density=a.density, lines=a.lines, drugs=a.drugs)
    if not a.regenerate and stamp.is_file() and json.loads(stamp.read_text()) == want:
        _log(f"reusing the shards in {folder}"); return sorted(folder.glob("shard-*.h5ad"))
    shutil.rmtree(folder, ignore_errors=True)
    t0 = time.perf_counter()
    paths = write_synthetic_shards(folder, a.cells, n_shards=a.shards, chunk=a.chunk, n_genes=a.genes,
                                   density=a.density, lines=a.lines, drugs=a.drugs)
    stamp.write_text(json.dumps(want))
    _log(f"wrote {a.cells:,} cells in {a.shards} shards ({sum(p.stat().st_size for p in paths) / 2**30:.2f} GiB) "
         f"in {time.perf_counter() - t0:.0f} s")
    return paths

def run_cluster(paths, workers:int, a, out:Path) -> dict:
    "The job on a fresh LocalCluster of `workers` one-thread processes"
    from distributed import Client, LocalCluster
    from llm_perturb.pseudobulk import pseudobulk_shards
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR)
    client = Client(cluster); client.run(lambda: __import__("llm_perturb.pseudobulk"))
    start_s = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        pb = pseudobulk_shards(paths, out=out, scheduler=cluster.scheduler_address, block_size=a.block_size,
                               progress=False)
        secs = time.perf_counter() - t0
        peaks = sorted(client.run(_peak_rss_mb).values())
    finally:
        client.close(); cluster.close()
    return dict(workers=workers, seconds=secs, start_s=start_s, peak_mb=peaks, sha=_sha(out), groups=pb.n_obs)

def run_scanpy(path:Path, a) -> dict:
    "scanpy on one shard in memory, and pseudobulk_shards in-process on the same shard"
    import anndata as ad, scanpy as sc
    from llm_perturb.pseudobulk import pseudobulk_shards
    t0 = time.perf_counter(); cells = ad.read_h5ad(path); load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    sc.pp.normalize_total(cells, target_sum=1e4); sc.pp.log1p(cells)
    agg = sc.get.aggregate(cells, by=["cell_line", "drug"], func="mean")
    sc_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    pb = pseudobulk_shards([path], block_size=a.block_size, dtype="float64", progress=False)
    pb_s = time.perf_counter() - t0
    where = {n: i for i, n in enumerate(agg.obs_names)}
    ref = np.asarray(agg.layers["mean"])[[where[n.replace("|", "_")] for n in pb.obs_names]]
    return dict(cells=cells.n_obs, load_s=load_s, scanpy_s=sc_s, ours_s=pb_s, max_diff=float(np.abs(ref - pb.X).max()))

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=10_000_000); ap.add_argument("--shards", type=int, default=20)
    ap.add_argument("--genes", type=int, default=2000); ap.add_argument("--density", type=float, default=0.05)
    ap.add_argument("--lines", type=int, default=50); ap.add_argument("--drugs", type=int, default=100)
    ap.add_argument("--block-size", type=int, default=100_000, help="cells per task")
    ap.add_argument("--chunk", type=int, default=250_000, help="cells generated at a time")
    ap.add_argument("--workers", default="1,2", help="LocalCluster sizes to run, comma-separated")
    ap.add_argument("--path", default=str(Path(tempfile.gettempdir()) / "pb_shards"))
    ap.add_argument("--tahoe-nnz", type=int, default=2000, help="non-zeros per cell for the second extrapolation "
                    "(Tahoe-100M's cells list 393 to 5,450 genes in its dataset card's viewer)")
    ap.add_argument("--regenerate", action="store_true"); ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    _log(f"pseudobulk_shards benchmark: {a.cells:,} simulated cells x {a.genes:,} genes ({a.density:.0%} detected) in "
         f"{a.shards} shards, {a.lines} lines x {a.drugs} drugs + control, blocks of {a.block_size:,} cells; "
         f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    paths = shards(a)
    import h5py
    nnz = 0
    for p in paths:
        with h5py.File(p, "r") as f: nnz += f["X/data"].shape[0]
    out_dir = Path(tempfile.mkdtemp(prefix="pb_bench_out_"))
    rows = []
    for w in [int(x) for x in a.workers.split(",")]:
        _log(f"LocalCluster of {w} worker(s) ...")
        r = run_cluster(paths, w, a, out_dir / f"pb_{w}.h5ad"); rows.append(r)
        _log(f"  {r['seconds']:.1f} s ({r['start_s']:.1f} s to start the cluster, not included)")
    _log(f"scanpy.get.aggregate on one shard in memory ...")
    s = run_scanpy(paths[0], a)
    base = rows[0]["seconds"] * rows[0]["workers"]
    _log(f"\n{'workers':>7} {'seconds':>8} {'cells/s':>10} {'nnz/s':>12} {'speed-up':>8}  peak RSS per worker (MB)  output sha256")
    for r in rows:
        _log(f"{r['workers']:>7} {r['seconds']:8.1f} {a.cells / r['seconds']:>10,.0f} {nnz / r['seconds']:>12,.0f} "
             f"{rows[0]['seconds'] / r['seconds']:8.2f}  {', '.join(f'{m:.0f}' for m in r['peak_mb']):24s}  {r['sha']}")
    same = len({r["sha"] for r in rows}) == 1
    _log(f"same bytes for {', '.join(str(r['workers']) for r in rows)} workers: {same}")
    _log(f"one shard ({s['cells']:,} cells) in memory: scanpy normalize_total+log1p+aggregate {s['scanpy_s']:.2f} s "
         f"(+{s['load_s']:.2f} s to load it), pseudobulk_shards in-process {s['ours_s']:.2f} s: "
         f"ratio ours/scanpy {s['ours_s'] / s['scanpy_s']:.2f} (with scanpy's load: {s['ours_s'] / (s['scanpy_s'] + s['load_s']):.2f}); "
         f"max |difference| of the means {s['max_diff']:.1e}")
    top = rows[-1]; rate = a.cells / top["seconds"] / top["workers"]
    _log(f"EXTRAPOLATION from {a.cells:,} measured cells at {rate:,.0f} cells/s per worker ({top['workers']} workers; "
         f"{nnz / a.cells:.0f} non-zeros per cell), linear in workers:")
    nrate = nnz / top["seconds"] / top["workers"]
    for n in (1, 2, 8, 32, 128):
        _log(f"  100,000,000 cells on {n:>3} workers: ~{1e8 / (rate * n) / 3600:.2f} h at {nnz / a.cells:.0f} non-zeros per cell; "
             f"~{1e8 * a.tahoe_nnz / (nrate * n) / 3600:.1f} h at {a.tahoe_nnz:,} non-zeros per cell")
    shutil.rmtree(out_dir, ignore_errors=True)
    if not a.keep: shutil.rmtree(a.path, ignore_errors=True)
    return rows, s, same

if __name__ == "__main__": main()
