"""Stored notebook outputs agree with a fresh run: compare the numbers each committed notebook shows with the
numbers the same cells showed when `.ci/nbtest.py` executed them in this CI run.

    python .ci/stored_outputs.py runs/ci/executed/*.ipynb            # each against nbs/<same name>
    python .ci/stored_outputs.py runs/ci/executed/12_x.ipynb --stored old/12_x.ipynb
    python .ci/stored_outputs.py --self-test                         # the rules below, on hand-made cells

Rules (kept few on purpose):
- Cells are matched by cell id. A cell is compared only when it ran in the fresh run (`metadata.ci_executed`:
  cells flagged `slow`, `#| eval: false` cells and cells after a failure did not run).
  A cell whose outputs legitimately differ from run to run (timing, thread scheduling) says so in a comment of its
  own, `# outputs vary: <why>`, and is not compared. Nor is a cell that raised in the fresh run (its notebook's test fails).
- Per cell, two texts are compared separately: what it printed (stdout streams, concatenated) and what it shown
  (execute_result / display_data: text/plain, else text/markdown, else text/html without tags). stderr (warnings,
  logs, progress bars), errors, images and widgets are not compared.
- Removed from both texts before comparing, because they legitimately vary between runs: progress-bar lines,
  memory addresses (0x...), absolute paths (temporary directories), dates and clock times, durations (a number
  followed by a time unit: s, ms, sec, min, ...), and version strings (a.b.c).
- What is compared is the sequence of numbers left in each text (a number glued to letters or `_`, as in
  `l1000` or `top100`, is part of a name, not a number). Two sequences agree when they have the same length
  and every pair agrees within |stored - fresh| <= 1e-9 + 1e-4 * max(|stored|, |fresh|): well below the
  precision any table here is printed at, well above floating-point noise. A cell with no stored output at all
  (added or changed since the notebook was last stored) disagrees when a fresh run shows numbers.
Exit status 1 when a cell disagrees; the report names notebook, cell and the first differing numbers.
"""
import argparse, html, json, re, sys
from pathlib import Path

REL, ABS = 1e-4, 1e-9
_VARIES = [re.compile(p, re.M) for p in (
    r"^.*(\d+%\||it/s\]|s/it\]|\[\d\d:\d\d<).*$",            # progress-bar lines (tqdm)
    r"0x[0-9a-fA-F]+",                                           # memory addresses
    r"(?<![\w.])/[^\s'\"<>),\]]+",                               # absolute paths (temporary directories)
    r"\d{4}-\d{2}-\d{2}([T _]\d{2}[:\-]?\d{2}([:\-]?\d{2}(\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?",  # dates, date-times
    r"\b\d{8}[T_-]?\d{4,6}\b",                                   # compact timestamps (run folder names)
    r"\b\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\b",                        # clock times, m:ss durations
    r"[-+]?\d+(\.\d+)?([eE][-+]?\d+)?[ ]?(ms|µs|us|ns|s|sec|secs|seconds?|min|mins|minutes?|h|hours?)\b",  # durations
    r"\bv?\d+\.\d+\.\d+[\w.+-]*",                                 # version strings
)]
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
_VARY_MARK = re.compile(r"#\s*outputs vary:\s*\S")  # a cell's own statement that its outputs differ between runs
_TAGS = re.compile(r"<style.*?</style>|<script.*?</script>|<[^>]+>", re.S)


def _text(x) -> str: return "".join(x) if isinstance(x, list) else (x or "")

def cell_texts(outputs: list) -> dict:
    "The two texts of a cell's outputs that are compared: 'printed' (stdout) and 'shown' (displayed results)."
    printed, shown = [], []
    for o in outputs:
        if o.get("output_type") == "stream":
            if o.get("name") == "stdout": printed.append(_text(o.get("text")))
        elif o.get("output_type") in ("execute_result", "display_data"):
            d = o.get("data", {})
            if any("widget" in k for k in d): continue  # progress bars and other widgets
            if "text/plain" in d: shown.append(_text(d["text/plain"]))
            elif "text/markdown" in d: shown.append(_text(d["text/markdown"]))
            elif "text/html" in d: shown.append(html.unescape(_TAGS.sub(" ", _text(d["text/html"]))))
    return {"printed": "\n".join(printed), "shown": "\n".join(shown)}

def numbers(text: str) -> list[tuple[float, str]]:
    "The numbers in `text` once what legitimately varies is removed, each with a little context."
    for p in _VARIES: text = p.sub(" ", text)
    return [(float(m.group()), " ".join(text[max(0, m.start() - 40):m.end() + 15].split())) for m in _NUMBER.finditer(text)]

def close(a: float, b: float) -> bool: return abs(a - b) <= ABS + REL * max(abs(a), abs(b))

def first_difference(stored: list, fresh: list) -> str | None:
    "None when the two number sequences agree, else a description of the first difference."
    for i, ((a, ca), (b, cb)) in enumerate(zip(stored, fresh)):
        if not close(a, b):
            return f"number {i + 1}: stored {a:g} vs fresh {b:g} (stored: '{ca}' / fresh: '{cb}')"
    if len(stored) != len(fresh):
        i = min(len(stored), len(fresh))
        extra = (stored if len(stored) > i else fresh)[i]
        return (f"stored shows {len(stored)} numbers, fresh {len(fresh)}; first unmatched: "
                f"{'stored' if len(stored) > i else 'fresh'} {extra[0]:g} ('{extra[1]}')")
    return None

def compare(stored_nb: dict, fresh_nb: dict) -> tuple[int, list[str]]:
    "Compare the cells that ran in `fresh_nb` with the same cells (by id) of `stored_nb`: (cells compared, differences)."
    stored = {c.get("id"): (i, c) for i, c in enumerate(stored_nb["cells"]) if c["cell_type"] == "code"}
    n, diffs = 0, []
    for c in fresh_nb["cells"]:
        if c["cell_type"] != "code" or not c.get("metadata", {}).get("ci_executed") or c.get("id") not in stored: continue
        i, s = stored[c["id"]]
        if _VARY_MARK.search(_text(c.get("source"))): continue
        if any(o.get("output_type") == "error" for o in c.get("outputs", [])): continue  # raised: its test fails already
        n += 1
        st, fr = cell_texts(s.get("outputs", [])), cell_texts(c.get("outputs", []))
        for what in ("printed", "shown"):
            a, b = numbers(st[what]), numbers(fr[what])
            d = first_difference(a, b)
            if d and not s.get("outputs"): d = f"no stored output; a fresh run shows {len(b)} numbers, first {b[0][0]:g} ('{b[0][1]}')"
            if d: diffs.append(f"cell {i} (id {c['id']}, {what}): {d}")
    return n, diffs

def _self_test():
    "The rules above on hand-made cells; raises AssertionError when one is broken."
    def nb(*cells): return {"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {"ci_executed": ran}, "outputs": outs}
                                      for i, (outs, ran) in enumerate(cells)]}
    def out(text, kind="shown"):
        if kind == "printed": return [{"output_type": "stream", "name": "stdout", "text": text}]
        if kind == "stderr": return [{"output_type": "stream", "name": "stderr", "text": text}]
        return [{"output_type": "execute_result", "data": {"text/plain": text, "text/html": "<b>ignored</b>"}}]
    table = "method   aurecall\npearson  0.629 ± 0.004\nspearman 0.658\n"
    assert compare(nb((out(table), True)), nb((out(table), True))) == (1, [])
    n, d = compare(nb((out(table), True)), nb((out(table.replace("0.629", "0.444")), True)))
    assert n == 1 and len(d) == 1 and "stored 0.629 vs fresh 0.444" in d[0] and "cell 0 (id c0, shown)" in d[0], d
    assert compare(nb((out("r = 0.5", "printed"), True)), nb((out("r = 0.51", "printed"), True)))[1][0].startswith("cell 0 (id c0, printed)")
    assert compare(nb((out("1.00001"), True)), nb((out("1.00002"), True)))[1] == []  # within 1e-4 relative
    assert compare(nb((out("0.0"), True)), nb((out("1e-17"), True)))[1] == []       # noise around zero
    assert "stored shows 2 numbers, fresh 3" in compare(nb((out("1 2"), True)), nb((out("1 2 3"), True)))[1][0]
    assert "no stored output; a fresh run shows 1 numbers" in compare(nb(([], True)), nb((out("0.5"), True)))[1][0]
    varies = ("took 3.2 s at 2026-11-24 19:41:02, elapsed 00:41, 12ms; <object at 0x7f3a2b>; /tmp/tmpab12/x.csv; "
              "numpy 2.4.6; run 20261124T194102-reproduce\n 40%|████      | 4/10 [00:02<00:03, 2.1it/s]\n")
    assert numbers(varies) == [], numbers(varies)
    assert [x for x, _ in numbers("mean 0.5\nstd 0.25\nmin 0.1\nmax 2 h")] == [0.5, 0.25, 0.1]  # a row named min is no duration
    assert [x for x, _ in numbers("l1000_a375/pearson/aurecall: 0.444, top100 n=177 -1.5e-3")] == [0.444, 177, -1.5e-3]
    assert compare(nb((out(table), False)), nb((out("0.1"), False)))[0] == 0        # a cell that did not run
    assert compare(nb((out("warning 1"), True)), nb((out("warning 2", "stderr"), True)))[1] != []   # shown: 1 vs nothing
    assert compare(nb((out("warning 1", "stderr"), True)), nb((out("warning 2", "stderr"), True)))[1] == []  # stderr ignored
    raised = nb((out("Traceback 1 2", "printed") + [{"output_type": "error", "ename": "AssertionError"}], True))
    assert compare(nb((out("regression check: 102 numbers", "printed"), True)), raised) == (0, [])
    marked = nb((out("0.3"), True)); marked["cells"][0]["source"] = "f()  # outputs vary: thread scheduling\n"
    assert compare(nb((out("0.1"), True)), marked) == (0, [])
    styler = {"output_type": "display_data", "data": {"text/html": "<style>#T_ab1 td {width: 10px}</style><td>0.25</td>"}}
    assert [x for x, _ in numbers(cell_texts([styler])["shown"])] == [0.25]
    print("stored_outputs self-test: 15 rules checked")

def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("executed", nargs="*", type=Path, help="notebooks written by .ci/nbtest.py")
    p.add_argument("--stored", type=Path, help="the stored notebook to compare with (one executed notebook only); default nbs/<name>")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test: return _self_test()
    if not a.executed: p.error("give executed notebooks (from .ci/nbtest.py), or --self-test")
    if a.stored and len(a.executed) != 1: p.error("--stored goes with exactly one executed notebook")
    bad = 0
    for f in a.executed:
        stored = a.stored or Path("nbs") / f.name
        n, diffs = compare(json.loads(stored.read_text(encoding="utf-8")), json.loads(f.read_text(encoding="utf-8")))
        print(f"{stored}: {n} cells compared, " + (f"{len(diffs)} outputs differ from a fresh run" if diffs else "all agree"))
        for d in diffs: print(f"  {stored} {d}")
        bad += bool(diffs)
    if bad: print(f"{bad} notebook(s) stored with outputs that a fresh run does not give: re-execute and store them "
                  "(jupyter nbconvert --to notebook --execute --inplace NB, then nbdev_clean and python .ci/clean_outputs.py)")
    sys.exit(1 if bad else 0)

if __name__ == "__main__": main()
