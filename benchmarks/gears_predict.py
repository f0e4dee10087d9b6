"""Benchmark `llm_perturb.gears_baseline.gears_predict`: GEARS trained and asked on a screen of the claims test's K562 size.

Task: `claims.write_screen`'s K562 screen (1,092 knockdowns x 4 cells, 300 controls, 300 genes), 80% of the knockdowns
to train on, the rest to predict; one epoch of a small GEARS (hidden size 8), as the claims test's KG run trains it.
GEARS slices its AnnData once per training cell (a random control cell) and per condition, and its `predict` builds
300 cell graphs per perturbation, moving each to the device. Reference: anndata's default, which removes the unused
categories of every categorical obs column in each of those views, and GEARS' graphs as it builds them; now: that
setting off while GEARS runs (`anndata.settings.remove_unused_categories`; GEARS reads only values from the views), and
on the CPU the graphs built without the move, which returns the same tensors there (`gears_baseline.cpu_cell_graphs`).
Run from the repository root: `python benchmarks/gears_predict.py` (needs the gears extra). Prints CPU and wall seconds
of each and the ratio, and checks that both give the same predictions, byte for byte.
"""
import contextlib, os, tempfile, types
from pathlib import Path
from unittest import mock

os.environ.setdefault("OMP_NUM_THREADS", "1")  # as in CI: one BLAS/torch thread per process
import numpy as np

import llm_perturb.gears_baseline as gb
from llm_perturb.claims import write_screen
from llm_perturb.data import gears_perturbation, h5ad_part
from _timing import timed


def reference(f, train, test):
    "gears_predict with anndata's default (unused categories removed from every view) and GEARS' own graph building."
    settings = types.SimpleNamespace(override=lambda **kw: contextlib.nullcontext())
    with mock.patch.object(gb, "ad", types.SimpleNamespace(settings=settings)), \
         mock.patch.object(gb, "cpu_cell_graphs", lambda device="cpu": contextlib.nullcontext()):
        return gb.gears_predict(f, train, test, epochs=1, hidden_size=8, seed=0)


def now(f, train, test):
    return gb.gears_predict(f, train, test, epochs=1, hidden_size=8, seed=0)


def main():
    gb.import_gears()  # torch and GEARS imported before either timing
    d = Path(tempfile.mkdtemp())
    f, _ = write_screen(d / "k562" / "perturb_processed.h5ad", "k562")
    perts = sorted(set(gears_perturbation(h5ad_part(f, "obs")["condition"].astype(str))) - {"control"})
    train, test = [p for i, p in enumerate(perts) if i % 5], [p for i, p in enumerate(perts) if not i % 5]
    ref, c_ref, w_ref = timed(lambda: reference(f, train, test))
    new, c_new, w_new = timed(lambda: now(f, train, test))
    assert ref.index.equals(new.index) and ref.columns.equals(new.columns) and ref.to_numpy().tobytes() == new.to_numpy().tobytes()
    print(f"screen: {len(perts)} knockdowns, {len(train)} trained on, {len(test)} predicted, {ref.shape[1]} genes")
    print(f"{'':48s}{'CPU s':>8s}{'wall s':>8s}")
    print(f"{'reference (categories removed, .to each graph)':48s}{c_ref:8.2f}{w_ref:8.2f}")
    print(f"{'now (views keep categories, no CPU move)':48s}{c_new:8.2f}{w_new:8.2f}")
    print(f"ratio: {c_ref / c_new:.2f}x CPU, {w_ref / w_new:.2f}x wall; the predictions are byte-identical")


if __name__ == "__main__": main()
