"""Test one notebook exactly as `nbdev_test --flags FLAGS --path NOTEBOOK` does, and keep the executed notebook.

    python .ci/nbtest.py nbs/12_batch_simulation.ipynb runs/ci/executed/12_batch_simulation.ipynb [--flags llm]

The test is nbdev's own (`nbdev.test.test_nb`'s rules, with nbdev's NBProcessor and execnb's CaptureShell): cells
flagged with a `tst_flags` flag of settings.ini are skipped unless the flag is given in --flags, `#| eval: false`
cells and `nbdev_export(` cells are skipped, the run stops at the first exception, and the exit status is 1 when
a cell raised. `--skip FLAGS` skips cells with those flags too (.ci/augmented_data leaves out `rl`: the GRPO smoke
test does not read the data directory, and the notebook step runs it). Beside that (and with pandas' `display.max_columns` at 20, its value in a Jupyter kernel, where
nbdev's shell would fit tables to a terminal's width), the notebook is written to OUT with its own sources and, in every code cell, the fresh
outputs of this run and `metadata.ci_executed` (true / false: skipped, or not reached after an exception), so that
`.ci/stored_outputs.py` can compare the committed outputs with a fresh run.
"""
import argparse, json, os, sys, time
from pathlib import Path
from fastcore.foundation import working_directory
from nbdev.config import get_config
from nbdev.process import NBProcessor, nb_lang
from nbdev.frontmatter import FrontmatterProc
from fastcore.basics import str2bool
from execnb.nbio import nb2dict
from execnb.shell import CaptureShell


def run(fn: Path, force_flags: list[str], secs: dict, skip_flags: list[str] = ()) -> tuple[bool, dict]:
    "Run `fn` as nbdev.test.test_nb does; return (passed, {cell id: outputs of the cells that ran}); seconds per cell in `secs`."
    cfg = get_config()
    flags = (set(cfg.tst_flags.split()) - set(force_flags)) | set(skip_flags)
    sys.path.insert(0, str(cfg.config_path))
    os.environ["IN_TEST"] = "1"
    nb = NBProcessor(fn, procs=FrontmatterProc, process=True).nb
    fm = getattr(nb, "frontmatter_", {})
    if str2bool(fm.get("skip_exec", False)) or nb_lang(nb) != "python": return True, {}

    def _no_eval(cell):  # nbdev.test.test_nb's rule, verbatim
        if cell.cell_type != "code": return True
        if "nbdev_export" + "(" in cell.source: return True
        direc = getattr(cell, "directives_", {}) or {}
        if direc.get("eval:", [""])[0].lower() == "false": return True
        return flags & direc.keys()

    try:  # pandas formats tables as in a Jupyter kernel, not fitted to this (terminal-less) process's width
        import pandas as pd; pd.set_option("display.max_columns", 20)
    except ImportError: pass
    ran, t0 = {}, [time.perf_counter()]
    def _pre(cell): t0[0] = time.perf_counter(); return _no_eval(cell)
    def _post(cell): ran[cell.id] = nb2dict(cell.get("outputs", [])); secs[cell.id] = time.perf_counter() - t0[0]
    for cell in nb.cells:
        if cell.cell_type == "code": cell.outputs = []  # CaptureShell leaves a cell's old outputs when it prints nothing
    k = CaptureShell(fn)
    try:
        with working_directory(fn.parent):
            k.run_all(nb, exc_stop=True, preproc=_pre, postproc=_post)
        return True, ran
    except BaseException:
        sys.stderr.write(k.prettytb(fname=fn) + "\n")
        return False, ran


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("notebook", type=Path); p.add_argument("out", type=Path)
    p.add_argument("--flags", default="", help="space-separated test flags to run that are normally skipped")
    p.add_argument("--skip", default="", help="space-separated cell flags to skip besides settings.ini's tst_flags (e.g. rl)")
    a = p.parse_args()
    fn = a.notebook.absolute()
    with working_directory(get_config().nbs_path):  # nbdev_test runs from nbs/
        start, secs = time.perf_counter(), {}
        passed, ran = run(fn, a.flags.split(), secs, a.skip.split())
    nb = json.loads(fn.read_text(encoding="utf-8"))
    for c in nb["cells"]:
        if c["cell_type"] != "code": continue
        c["metadata"]["ci_executed"] = c.get("id") in ran
        c["outputs"] = ran.get(c.get("id"), [])
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(("passed" if passed else "FAILED") + f": {fn.name} ({len(ran)} code cells ran, {time.perf_counter() - start:.0f} s)")
    first = {c.get("id"): next((l for l in "".join(c["source"]).splitlines() if not l.startswith("#|")), "").strip()[:70] for c in nb["cells"]}
    for i, s in sorted(secs.items(), key=lambda x: -x[1])[:5]: print(f"  {s:6.1f} s  cell {i}: {first.get(i, '')}")
    sys.exit(0 if passed else 1)


if __name__ == "__main__": main()
