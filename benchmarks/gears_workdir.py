"""Benchmark `llm_perturb.gears_baseline.write_gears_workdir`: GEARS' working copy of a user's screen.

Task: a screen in GEARS' perturb_processed.h5ad layout at the claims test's K562 size (1,092 knockdowns x 4 cells,
300 controls, 300 genes: `claims.write_screen`), whose `uns` holds GEARS' five DE tables, one small array per
condition (5,460 HDF5 datasets). The copy keeps the controls and 80% of the knockdowns, as a Table 1 split does.
Reference: what the function did before (anndata reads the whole file, `uns` included, subsets, writes it all), and
the two `backed='r'` opens gears_predict made to read the gene list (each parses `uns` too). Now: X, obs and var are
read alone, `uns` is copied HDF5 to HDF5 without being parsed, and the gene list is read from `var` alone.
Run from the repository root: `python benchmarks/gears_workdir.py`. Prints CPU and wall seconds of each and the ratio,
and checks that GEARS reads the same AnnData from both copies (X, obs, var, every uns array).
"""
import tempfile
from pathlib import Path

import anndata as ad
import numpy as np
import scipy.sparse as sp

from llm_perturb.claims import write_screen
from llm_perturb.data import gears_perturbation
from llm_perturb.gears_baseline import write_gears_workdir
from llm_perturb.data import h5ad_part
from _timing import timed



def reference(f, train, root):
    "The former path: two backed opens for the genes, a whole read, subset, write."
    genes = ad.read_h5ad(f, backed="r").var["gene_name"].astype(str).tolist()
    a = ad.read_h5ad(f)
    pert = np.array(gears_perturbation(a.obs["condition"].astype(str)), dtype=object)
    a = a[(pert == "control") | np.isin(pert, train)].copy()
    a.X = sp.csr_matrix(a.X, dtype=np.float32)
    out = Path(root) / "perturb_processed.h5ad"; out.parent.mkdir(parents=True, exist_ok=True)
    a.write_h5ad(out)
    genes = ad.read_h5ad(out, backed="r").var["gene_name"].astype(str).tolist()
    return out, genes


def now(f, train, root):
    genes = h5ad_part(f, "var")["gene_name"].astype(str).tolist()
    _, folder = write_gears_workdir(f, train, Path(root))
    genes = h5ad_part(folder / "perturb_processed.h5ad", "var")["gene_name"].astype(str).tolist()
    return folder / "perturb_processed.h5ad", genes


def main():
    d = Path(tempfile.mkdtemp())
    f, _ = write_screen(d / "k562" / "perturb_processed.h5ad", "k562")
    perts = sorted(set(gears_perturbation(h5ad_part(f, "obs")["condition"].astype(str))) - {"control"})
    train = [p for i, p in enumerate(perts) if i % 5]
    (p_ref, g_ref), c_ref, w_ref = timed(lambda: reference(f, train, d / "ref"), repeat=3)
    (p_new, g_new), c_new, w_new = timed(lambda: now(f, train, d / "new"), repeat=3)
    A, B = ad.read_h5ad(p_ref), ad.read_h5ad(p_new)
    assert g_ref == g_new and (A.X != B.X).nnz == 0 and A.obs.equals(B.obs) and A.var.equals(B.var)
    assert list(A.uns) == list(B.uns) and all(list(A.uns[k]) == list(B.uns[k]) and all(np.array_equal(A.uns[k][c], B.uns[k][c])
                                                                                    for c in A.uns[k]) for k in A.uns)
    print(f"screen: {len(perts)} knockdowns, {A.n_obs} cells kept, uns {sum(len(v) for v in A.uns.values())} arrays")
    print(f"{'':32s}{'CPU s':>8s}{'wall s':>8s}")
    print(f"{'reference (whole reads, write)':32s}{c_ref:8.2f}{w_ref:8.2f}")
    print(f"{'now (parts, uns copied)':32s}{c_new:8.2f}{w_new:8.2f}")
    print(f"ratio: {c_ref / c_new:.1f}x CPU, {w_ref / w_new:.1f}x wall; the copies GEARS reads are identical")


if __name__ == "__main__": main()
