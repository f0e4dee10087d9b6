"""Benchmark reading a GEARS perturb_processed.h5ad without its `uns` (`data.read_gears(uns=...)`, `data.read_h5ad_lean`).

Task: a screen in GEARS' layout at the claims test's K562 size (1,092 knockdowns x 4 cells, 300 controls, 300 genes:
`claims.write_screen`), whose `uns` holds GEARS' five DE tables, one small array per condition (5,460 HDF5 datasets).
The KG predictors need X, obs and var only; LangPert one DE table; `datasets.identify` obs and var only.
Reference: what they did before, `anndata.read_h5ad` of the whole file (`uns` parsed) and, for identify, a
`backed='r'` open (which parses `uns` too). Now: X, obs and var read element by element, and only the uns entries asked for.
Run from the repository root: `python benchmarks/readers.py`. Prints CPU and wall seconds, the ratios, the load
average, and checks that X, obs and var (and the one DE table) are the same as the whole read's.
"""
import os, tempfile
from pathlib import Path

import anndata as ad
import numpy as np

from llm_perturb.claims import write_screen
from llm_perturb.data import read_gears, read_h5ad_lean
from _timing import timed


def main():
    with tempfile.TemporaryDirectory() as tmp:
        f, _ = write_screen(Path(tmp) / "k562" / "perturb_processed.h5ad")
        print(f"{f.stat().st_size / 1e6:.1f} MB file; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        full, c_full, w_full = timed(lambda: read_gears(f), repeat=3)
        lean, c_lean, w_lean = timed(lambda: read_gears(f, uns=False), repeat=3)
        one, c_one, w_one = timed(lambda: read_gears(f, uns=("top_non_dropout_de_20",)), repeat=3)
        def backed():
            b = ad.read_h5ad(f, backed="r"); o = b.obs.copy(); b.file.close(); return o
        obs_ref, c_bk, w_bk = timed(backed, repeat=3)
        obs_new, c_ov, w_ov = timed(lambda: read_h5ad_lean(f, X=False).obs, repeat=3)
    assert (full.X != lean.X).nnz == 0 and full.obs.equals(lean.obs) and full.var.equals(lean.var) and not lean.uns
    de = "top_non_dropout_de_20"
    assert list(one.uns) == [de] and all(np.array_equal(full.uns[de][k], one.uns[de][k]) for k in full.uns[de])
    assert obs_ref.equals(obs_new)
    rows = [("read_gears, whole file (reference)", c_full, w_full, c_full, w_full),
            ("read_gears(uns=False): X, obs, var", c_lean, w_lean, c_full, w_full),
            (f"read_gears(uns=('{de}',))", c_one, w_one, c_full, w_full),
            ("obs of a backed open (identify's reference)", c_bk, w_bk, c_bk, w_bk),
            ("read_h5ad_lean(X=False).obs", c_ov, w_ov, c_bk, w_bk)]
    print(f"{'':48s} {'CPU s':>7s} {'wall s':>7s} {'vs ref (CPU)':>13s} {'vs ref (wall)':>14s}")
    for name, c, w, cr, wr in rows: print(f"{name:48s} {c:7.3f} {w:7.3f} {cr / c:12.1f}x {wr / w:13.1f}x")
    print("same X, obs and var as the whole read; the DE table the same arrays; identify's obs the same")


if __name__ == "__main__":
    main()
