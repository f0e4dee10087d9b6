"""Every notebook's tests, and its stored outputs against that fresh run.

Each notebook of nbs/ is one test, run by `.ci/nbtest.py` with nbdev_test's rules (`llm` cells included, replaying
the committed caches of the embedded model; `slow` cells skipped); the executed copy is kept in runs/ci/executed/.
Then `.ci/stored_outputs.py` compares the numbers the committed notebook shows with that run's, cell by cell (its
rules in its header); `test_stored_outputs_rules` shows those rules catch what they should. Stored outputs hold no
machine paths (`test_clean_outputs`), and papermill runs a notebook with an override (`test_papermill_override`)."""
import csv, json
import pytest
from ci_lib import LOG, PY, ROOT, run

NOTEBOOKS = sorted(p.stem for p in (ROOT / "nbs").glob("[0-9]*.ipynb")) + ["index"]


@pytest.mark.parametrize("nb", NOTEBOOKS)
def test_notebook(nb):
    "The notebook's tests pass; then the outputs stored in nbs/<nb>.ipynb are those of this run."
    executed = LOG / "executed" / f"{nb}.ipynb"
    run(f"{nb}.ipynb", [PY, ".ci/nbtest.py", "--flags", "llm", f"nbs/{nb}.ipynb", executed], tail=60)
    run(f"{nb}.ipynb", [PY, ".ci/stored_outputs.py", executed], tail=60, append=True)


def test_stored_outputs_rules():
    run("stored_outputs_rules", [PY, ".ci/stored_outputs.py", "--self-test"])


def test_clean_outputs():
    run("clean_outputs", [PY, ".ci/clean_outputs.py"])


def test_papermill_override():
    """papermill itself (its command line, as a sweep by hand would call it) runs a section notebook, 11_ablations, with
    its parameters overridden (a small design, another seed, no LLM call), and the overrides reach results.json and
    the rows of results.csv. (Every other section run of the tests goes through `llm-perturb run`, which calls papermill
    from Python.)"""
    out = LOG / "pm_11_ablations"
    run("papermill_override", ["papermill", "--log-level", "ERROR", "nbs/11_ablations.ipynb", LOG / "pm_11_ablations.ipynb",
                               "-p", "out_dir", out, "-p", "n_compounds", "2", "-p", "replicates", "2", "-p", "max_genes", "5",
                               "-p", "repeats", "2", "-p", "seed", "7", "-p", "llm_limit", "0"],
        env={"LLM_PERTURB_CACHE_DIR": LOG / "pm_cache"})
    r = json.loads((out / "results.json").read_text())
    p = r["params"]
    assert (p["n_compounds"], p["replicates"], p["max_genes"], p["repeats"], p["seed"], p["llm_limit"]) == (2, 2, 5, 2, 7, 0), p
    assert r["llm"]["calls"] == 0, r["llm"]
    rows = list(csv.DictReader(open(out / "results.csv")))
    assert rows and {x["seed"] for x in rows} == {"7"}, {x["seed"] for x in rows}
