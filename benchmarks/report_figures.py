"""Benchmark the report's paper figures (`report.paper_figure`, saved as `report.paper_html` saves them).

Task: the four papers' forest plots a report draws on its own (every published number; no run of ours), each saved
as PNG at 100 dpi with a tight bounding box. Reference: the panel titles placed by matplotlib (`set_title` without
`y`: each draw searches the axes' bounding boxes for a place above them). Now: titles at y=1, where matplotlib put
them anyway. And `report.paper_pngs` (what `paper_html` calls now) with its per-user figure cache warm: each figure
read back instead of drawn (a temporary cache folder here). Run from the repository root:
`python benchmarks/report_figures.py`. Prints CPU and wall seconds of each, the ratios and the load average, and checks
that the pixels are the same, and the cached bytes those of a fresh drawing.
"""
import io, os, tempfile
from unittest.mock import patch

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from PIL import Image

from llm_perturb.report import PAPERS, figure_data, paper_figure, paper_numbers, paper_pngs
from _timing import timed

_set_title = Axes.set_title


def auto_placed(self, label, *args, y=None, **kw):
    "`set_title` as before: no `y`, so matplotlib places the title on each draw."
    return _set_title(self, label, *args, **kw)


def draw_all(paper, results):
    "Every paper's figure as PNG bytes (as `paper_html` saves it)."
    out = {}
    for name in dict.fromkeys(PAPERS.values()):
        fd = figure_data(results, paper, name)
        if fd.empty: continue
        fig, buf = paper_figure(fd, name), io.BytesIO()
        fig.savefig(buf, format="png", dpi=100, bbox_inches="tight"); plt.close(fig)
        out[name] = buf.getvalue()
    return out


def cached_all(paper, results):
    "Every paper's figure as `paper_pngs` gives it (the PNG as saved), through the figure cache."
    return {name: paper_pngs(fd, name)[0] for name in dict.fromkeys(PAPERS.values())
            if not (fd := figure_data(results, paper, name)).empty}


def main():
    import pandas as pd
    paper = paper_numbers()
    results = pd.DataFrame(columns=["section", "task", "dataset", "data", "cell_line", "split", "method", "uses_llm", "model",
                                    "metric", "value", "n", "ci_low", "ci_high", "seed", "run"])
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    draw_all(paper, results)  # fonts and caches warmed once
    with patch.object(Axes, "set_title", auto_placed):
        ref, c_ref, w_ref = timed(lambda: draw_all(paper, results), repeat=3)
    new, c_new, w_new = timed(lambda: draw_all(paper, results), repeat=3)
    same = all(np.array_equal(np.asarray(Image.open(io.BytesIO(ref[k]))), np.asarray(Image.open(io.BytesIO(new[k])))) for k in ref)
    assert ref.keys() == new.keys() and same, "the figures differ"
    print(f"{len(new)} figures: {', '.join(new)}")
    print(f"{'':32s} {'CPU s':>7s} {'wall s':>7s}")
    print(f"{'titles placed by matplotlib':32s} {c_ref:7.2f} {w_ref:7.2f}")
    print(f"{'titles at y=1 (now)':32s} {c_new:7.2f} {w_new:7.2f}   {c_ref / c_new:.2f}x CPU, {w_ref / w_new:.2f}x wall; pixels identical")
    with patch.dict(os.environ, {"LLM_PERTURB_CACHE": tempfile.mkdtemp()}):
        cached_all(paper, results)  # drawn once, into the cache
        kept, c_kept, w_kept = timed(lambda: cached_all(paper, results), repeat=3)
    assert kept == new, "the cached figures differ from a fresh drawing"
    print(f"{'paper_pngs, cache warm (now)':32s} {c_kept:7.2f} {w_kept:7.2f}   {c_ref / c_kept:.0f}x CPU, {w_ref / w_kept:.0f}x wall; bytes identical")


if __name__ == "__main__":
    main()
