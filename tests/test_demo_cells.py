"""Cells flagged `#| demo` show a function at work on a toy, a fixture or a scripted model; they write no result of
the section. The notebook tests run them; a run may leave them out (`llm-perturb run ... --skip-flags demo`), as CI's
end-to-end runs do (claims, fake server, dry run, real screens, the sections' own runs on a user's file), where their
time (GEARS trained on two real screens, a scripted provider that loads litellm) would be paid again in every run.

That is safe only if nothing after a demo cell needs it. This test reads every notebook and fails, naming the cell and
the name, when a cell that is not a demo uses a name last assigned in a demo cell, or when a demo cell exports code,
holds parameters, asks the LLM (`#| llm`) or writes a result (save_table, save_figure, write_results, `metrics[...] =`).
A run that skips the demos then computes exactly what a full run computes."""
import ast, json, re
from pathlib import Path
import pytest
from ci_lib import ROOT

FLAG = re.compile(r"^#\|\s*(\S+)\s*$", re.M)
WRITERS = {"save_table", "save_figure", "write_results", "record_regression"}


def _tree(src: str) -> ast.Module:
    "A cell's code as Python (IPython's %magic and !shell lines left out)."
    return ast.parse("\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!"))))


def _names(src: str) -> tuple[set, set]:
    "(names a cell's code assigns, names it reads before assigning them itself)."
    stored, loaded = set(), set()
    for n in ast.walk(_tree(src)):
        if isinstance(n, ast.Name): (stored if isinstance(n.ctx, (ast.Store, ast.Del)) else loaded).add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): stored.add(n.name)
        elif isinstance(n, (ast.Import, ast.ImportFrom)): stored |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.arg): stored.add(n.arg)  # a function's or lambda's own parameter
    return stored, loaded - stored  # a name the cell assigns too counts as its own (a loop variable, a rebinding)


def _writes(src: str) -> list[str]:
    "What a cell's code writes as a result: calls of WRITERS, assignments into `metrics`."
    out = []
    for n in ast.walk(_tree(src)):
        if isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) in WRITERS:
            out.append(getattr(n.func, "id", getattr(n.func, "attr", "")) + "()")
        if isinstance(n, (ast.Assign, ast.AugAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                if isinstance(t, ast.Subscript) and getattr(t.value, "id", None) == "metrics": out.append("metrics[...] =")
    return out


def demo_problems(cells: list[dict]) -> list[str]:
    "Why skipping the `#| demo` cells of a notebook's `cells` (nbformat dicts) would change a run; [] when it would not."
    problems, last = [], {}  # name -> (id of the cell that last assigned it, whether that cell is a demo)
    for i, c in enumerate(cells):
        if c["cell_type"] != "code": continue
        src, cid = "".join(c["source"]), c.get("id", str(i))
        flags = set(FLAG.findall(src))
        demo = "demo" in flags
        stored, loaded = _names(src)
        if demo:
            bad = sorted(flags & {"export", "exports", "llm"}) + (["parameters"] if "parameters" in c["metadata"].get("tags", []) else [])
            if bad: problems.append(f"cell {cid}: a demo cell cannot be {', '.join(bad)}")
            if w := _writes(src): problems.append(f"cell {cid}: a demo cell writes results ({', '.join(sorted(set(w)))})")
        else:
            for n in sorted(loaded):
                if last.get(n, (None, False))[1]:
                    problems.append(f"cell {cid} uses {n!r}, last assigned in demo cell {last[n][0]}: flag it demo too, or assign {n} outside the demo")
        for n in stored: last[n] = (cid, demo)
    return problems


def _cell(cid, src, tags=()): return {"cell_type": "code", "source": src, "metadata": {"tags": list(tags)}, "id": cid}


def test_demo_rules_catch():
    "The rules fire on what they should and stay quiet on a clean notebook."
    ok = [_cell("a", "x = 1"), _cell("b", "#| demo\ny = x + 1\nprint(y)"), _cell("c", "for y in range(3): print(x + y)"),
          _cell("d", "#| demo\nassert y == 2")]
    assert demo_problems(ok) == []
    assert demo_problems([_cell("a", "#| demo\nt1 = fit()"), _cell("b", "summary = t1.mean")]) == [
        "cell b uses 't1', last assigned in demo cell a: flag it demo too, or assign t1 outside the demo"]
    assert demo_problems([_cell("a", "t1 = 0"), _cell("b", "#| demo\nt1 = fit()"), _cell("c", "print(t1)")])[0].startswith("cell c uses 't1'")
    assert demo_problems([_cell("a", "#| demo\nfrom m import f, g"), _cell("b", "g(2)")])[0].startswith("cell b uses 'g'")
    assert demo_problems([_cell("a", "#| demo\n#| export\ndef f(): pass")]) == ["cell a: a demo cell cannot be export"]
    assert demo_problems([_cell("a", "#| demo\nx = 1", tags=["parameters"])]) == ["cell a: a demo cell cannot be parameters"]
    assert demo_problems([_cell("a", "#| demo\nsave_table(t, out, 'x')")]) == ["cell a: a demo cell writes results (save_table())"]
    assert demo_problems([_cell("a", "#| demo\nmetrics['a/b'] = 1")]) == ["cell a: a demo cell writes results (metrics[...] =)"]


NOTEBOOKS = sorted(p.name for p in (ROOT / "nbs").glob("*.ipynb") if "#| demo" in p.read_text(encoding="utf-8"))


def test_some_notebooks_have_demos():
    "The sections whose demos cost most in end-to-end runs flag them (a rename would silently drop the test below)."
    assert {"20_langpert.ipynb", "22_kg_neighbours.ipynb"} <= set(NOTEBOOKS), NOTEBOOKS


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_demo_cells_can_be_skipped(nb):
    cells = json.loads((ROOT / "nbs" / nb).read_text(encoding="utf-8"))["cells"]
    problems = demo_problems(cells)
    assert not problems, f"{nb}: skipping its demo cells (--skip-flags demo) would change a run:\n" + "\n".join(problems)
