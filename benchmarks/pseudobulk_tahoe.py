"""`llm_perturb.pseudobulk` on shards in the Tahoe-100M release layout: reading and computing timed apart.

Writes `--cells` simulated cells into `--shards` parquet files laid out as Tahoe-100M's `data/train-*.parquet`
(one row per cell: `genes`, a list of int64 token ids opened by the CLS token 1, `expressions`, the list of float32
counts opened by -2, and the cell's metadata columns `drug`, `sample`, `BARCODE_SUB_LIB_ID`, `cell_line_id`,
`moa-fine`, `canonical_smiles`, `pubchem_cid`, `plate`; row groups of `--row-group` cells) and
`metadata/gene_metadata.parquet` (`--genes` token ids, gene symbols, Ensembl ids). Each cell lists about `--nnz`
genes (Tahoe-100M's cells list 393 to 5,450 in its dataset card's viewer; about 2,000 is typical).

Then, block by block as a job reads them (`plan_shards`, blocks of `--block-size` cells), in one run, side by side:

- read, ours: `read_block` -> `tahoe_rows` (pyarrow reads only the `genes`, `expressions` and groupby columns: column projection),
  the lists turned into one CSR block per task by a compiled pass, values kept float32 as stored);
- read, projected columns: pyarrow alone reading those columns (no CSR);
- read, all columns: the same row groups read with every column (what a reader without projection pays; the
  metadata strings are most of a row's bytes after the two lists);
- compute, ours: the group codes and `csr_group_sums`, the compiled pass (library size, log1p, group sums);
- compute, numpy reference: the group codes, the counts check, `log_normalize` and `group_sums` on the same block;
- the whole job, `pseudobulk_shards` in-process (reading, computing, partial sums saved, output written).

CPU seconds of this process, fastest of `--repeats` (taken in turns), non-zeros per second, and the share of
reading in the job: on a cluster the bill is the workers' time, so the larger of the two bounds it. The machine's
load average is printed with every measurement.

    python benchmarks/pseudobulk_tahoe.py [--cells 20000] [--shards 2] [--nnz 2000] [--genes 62710] [--path /tmp/pb_tahoe]
"""
import argparse, json, os, shutil, tempfile, time
from pathlib import Path

import numpy as np

def _log(*a): print(*a, flush=True)
def _load(): return f"load average {os.getloadavg()[0]:.1f}"
def _cpu(): return time.process_time()

META = ("drug", "sample", "BARCODE_SUB_LIB_ID", "cell_line_id", "moa-fine", "canonical_smiles", "pubchem_cid", "plate")

def write_tahoe(folder:Path, a) -> list[Path]:
    "Simulated shards in the release layout (reused when present with the same settings)"
    import pyarrow as pa, pyarrow.parquet as pq
    want = dict(cells=a.cells, shards=a.shards, nnz=a.nnz, genes=a.genes, row_group=a.row_group, lines=a.lines, drugs=a.drugs)
    stamp = folder / "settings.json"
    if not a.regenerate and stamp.is_file() and json.loads(stamp.read_text()) == want:
        _log(f"reusing the shards in {folder}"); return sorted((folder / "data").glob("train-*.parquet"))
    shutil.rmtree(folder, ignore_errors=True); (folder / "data").mkdir(parents=True); (folder / "metadata").mkdir()
    t0 = time.perf_counter()
    tokens = 3 + 2 * np.arange(a.genes)  # token ids with gaps, as the release's; 1 is the CLS token
    pq.write_table(pa.table(dict(token_id=tokens, gene_symbol=[f"G{j:05d}" for j in range(a.genes)],
                                 ensembl_id=[f"ENSG{t:011d}" for t in tokens])), folder / "metadata" / "gene_metadata.parquet")
    lines = [f"CVCL_{i:04d}" for i in range(a.lines)]; drugs = ["DMSO_TF"] + [f"drug-{i:03d}" for i in range(a.drugs)]
    bounds = np.linspace(0, a.cells, a.shards + 1).round().astype(int); paths = []
    for s in range(a.shards):
        rng = np.random.default_rng([7, s]); n = bounds[s + 1] - bounds[s]
        gap = max(2, int(round(2 * a.genes / a.nnz)))  # genes of a cell: increasing, gaps 1..gap-1 (mean gap/2)
        cols = np.cumsum(rng.integers(1, gap, (n, a.nnz + a.nnz // 4)), axis=1)
        keep = cols < a.genes; lens = keep.sum(1)
        g = np.concatenate([np.ones((n, 1), np.int64), tokens[np.where(keep, cols, 0)]], axis=1)
        e = np.concatenate([np.full((n, 1), -2.0, np.float32), (rng.poisson(0.6, keep.shape) + 1).astype(np.float32)], axis=1)
        mask = np.concatenate([np.ones((n, 1), bool), keep], axis=1)
        off = np.concatenate([[0], np.cumsum(lens + 1)]).astype(np.int32)
        line = rng.integers(0, a.lines, n); drug = np.where(rng.random(n) < 0.1, 0, rng.integers(1, len(drugs), n))  # 10% DMSO_TF
        t = pa.table({"genes": pa.ListArray.from_arrays(off, g[mask]), "expressions": pa.ListArray.from_arrays(off, e[mask]),
                      "drug": np.array(drugs, object)[drug], "sample": [f"smp_{d % 97}" for d in drug],
                      "BARCODE_SUB_LIB_ID": [f"{l:02d}_{d:03d}_lib" for l, d in zip(line, drug)],
                      "cell_line_id": np.array(lines, object)[line], "moa-fine": [f"moa-{d % 23}" for d in drug],
                      "canonical_smiles": [f"CC(=O)OC1=CC=CC=C1C(=O)O.{d}" for d in drug], "pubchem_cid": (drug + 1000).astype(float),
                      "plate": [f"plate{s + 1}"] * n})
        p = folder / "data" / f"train-{s:05d}-of-{a.shards:05d}.parquet"; pq.write_table(t, p, row_group_size=a.row_group)
        paths.append(p)
    stamp.write_text(json.dumps(want))
    _log(f"wrote {a.cells:,} cells in {a.shards} shards ({sum(p.stat().st_size for p in paths) / 2**20:.0f} MiB on disk) "
         f"in {time.perf_counter() - t0:.0f} s")
    return paths

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cells", type=int, default=20_000); ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--nnz", type=int, default=2000, help="genes listed per cell (about)")
    ap.add_argument("--genes", type=int, default=62_710, help="genes in the token table (Tahoe-100M's: 62,710)")
    ap.add_argument("--lines", type=int, default=10, help="cell lines (the output is groups x genes, dense: keep it small)")
    ap.add_argument("--drugs", type=int, default=20, help="drugs besides the control DMSO_TF (10%% of cells)")
    ap.add_argument("--row-group", type=int, default=1000, help="cells per parquet row group")
    ap.add_argument("--block-size", type=int, default=5000, help="cells per task (whole row groups)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--path", default=str(Path(tempfile.gettempdir()) / "pb_tahoe"))
    ap.add_argument("--regenerate", action="store_true"); ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    from llm_perturb import pseudobulk as pbm
    import pyarrow.parquet as pq
    _log(f"pseudobulk on Tahoe-100M-layout shards: {a.cells:,} simulated cells, about {a.nnz:,} of {a.genes:,} genes each, "
         f"{a.shards} shards, row groups of {a.row_group:,}, blocks of {a.block_size:,} cells; {os.cpu_count()} CPUs, "
         f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")
    folder = Path(a.path); paths = write_tahoe(folder, a)
    keys = ["cell_line_id", "drug"]
    plan = pbm.plan_shards(folder / "data", keys, block_size=a.block_size)
    def read_ours(): return [pbm.read_block(b, dtype=None) for b in plan.blocks]  # as a job reads them: values as stored
    def read_all():
        for b in plan.blocks: pq.ParquetFile(b["path"]).read_row_groups(b["row_groups"])
    def read_projected():
        for b in plan.blocks: pq.ParquetFile(b["path"]).read_row_groups(b["row_groups"], columns=["genes", "expressions", *keys])
    blocks = read_ours(); nnz = sum(X.nnz for X, _ in blocks)
    def compute_ours():
        for X, obs in blocks:
            codes, labels = pbm._block_groups(obs, keys); pbm.csr_group_sums(X, codes, len(labels))
    def compute_numpy():
        for X, obs in blocks:
            codes, labels = pbm._block_groups(obs, keys); Y = X.astype(np.float64)
            bool(Y.data.min() < 0 or not np.array_equal(np.rint(Y.data), Y.data))
            pbm.group_sums(pbm.log_normalize(Y), codes, len(labels))
    out = Path(tempfile.mkdtemp(prefix="pb_tahoe_out_"))
    def job(): pbm.pseudobulk_shards(folder / "data", keys, out=out / "pb.h5ad", block_size=a.block_size, progress=False)
    compute_ours()  # compiled (or loaded from numba's cache) before timing
    runs = {"read, ours (column projection, CSR)": read_ours, "read, all columns (pyarrow only)": read_all,
            "read, projected columns (pyarrow only)": read_projected,
            "compute, ours (compiled pass)": compute_ours, "compute, numpy reference": compute_numpy,
            "the whole job in-process": job}
    best = {}
    for _ in range(a.repeats):
        for k, f in runs.items():
            _log(f"  {k}: {_load()}")
            c, t = _cpu(), time.perf_counter(); f(); c, t = _cpu() - c, time.perf_counter() - t
            if k not in best or c < best[k][0]: best[k] = (c, t)
    _log(f"\n{len(plan.blocks)} blocks, {a.cells:,} cells, {nnz:,} non-zeros ({nnz / a.cells:,.0f} per cell); "
         f"CPU seconds of this process, fastest of {a.repeats}:")
    _log(f"{'':38s} {'CPU s':>7} {'wall s':>7} {'M nnz/s (CPU)':>14}")
    for k, (c, t) in best.items(): _log(f"{k:38s} {c:7.3f} {t:7.3f} {nnz / c / 1e6:14.1f}")
    r, ra, rp, co, cn, j = (best[k][0] for k in runs)
    _log(f"RATIOS ({_load()} now; {os.cpu_count()} CPUs): compute, ours against the numpy reference: {cn / co:.2f}x; "
         f"pyarrow reading the projected columns against all columns: {ra / rp:.2f}x; the lists to CSR and obs to pandas add "
         f"{r - rp:.3f} s to pyarrow's {rp:.3f} s; "
         f"reading is {r / (r + co):.0%} of read + compute (ours), so {'reading' if r > co else 'computing'} bounds a "
         f"worker's time; the whole job: {nnz / j / 1e6:.1f} M non-zeros per CPU second, goal 50 M per worker")
    shutil.rmtree(out, ignore_errors=True)
    if not a.keep: shutil.rmtree(folder, ignore_errors=True)
    return best

if __name__ == "__main__": main()
