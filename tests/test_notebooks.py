"""Every notebook's tests, and its stored outputs against that fresh run.

Each notebook of nbs/ is one test, run by `.ci/nbtest.py` with nbdev_test's rules (`llm` cells included, replaying
the committed caches of the embedded model; `slow` cells skipped); the executed copy is kept in runs/ci/executed/.
Then `.ci/stored_outputs.py` compares the numbers the committed notebook shows with that run's, cell by cell (its
rules in its header); `test_stored_outputs_rules` shows those rules catch what they should. Stored outputs hold no
machine paths (`test_clean_outputs`), and papermill runs a notebook with an override (`test_papermill_override`)."""
import json
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
    """papermill runs 00_llm with three parameters overridden, and the override reaches results.json (its new requests,
    seed 7, are answered into a cache folder of their own, read after the committed caches)."""
    out = LOG / "pm_00_llm"
    run("papermill_override", ["papermill", "--log-level", "ERROR", "nbs/00_llm.ipynb", LOG / "00_llm.ipynb", "-p", "out_dir", out,
                               "-p", "n_requests", "3", "-p", "seed", "7"], env={"LLM_PERTURB_CACHE_DIR": LOG / "pm_cache"})
    p = json.loads((out / "results.json").read_text())["params"]
    assert p["n_requests"] == 3 and p["seed"] == 7, p
