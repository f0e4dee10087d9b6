"""The test run of llm_perturb (`bash .ci/test` runs `python -m pytest -n 2 ...` over this folder; one check:
`python -m pytest tests -k real_screens`, the last failures again: `python -m pytest tests --lf`).

Every test runs with the environment `.ci/test` sets (set here too, for a plain `pytest` run): one llama.cpp thread
and one BLAS/OpenMP thread per process (two tests run at once on two cores; two BLAS pools of two threads each on
two cores wait on each other), litellm's local price table (offline), and a fresh folder for new LLM answers per
run, runs/ci/llm_cache: the committed caches in data/llm_cache are read, never written, and an answer they lack
would land there, where the session-end check `caches_untouched` finds it. runs/ci/ (logs, executed notebooks, the
built site) is emptied when a run starts (by the controller, before pytest-xdist starts its workers): one run at a
time per checkout (a second run started beside a first empties the first's folder).

Plugins (tests/ci_session.py): the session-end checks that the data directory and the committed caches are
byte-identical (in the controller only), and the longest-first order. A plain test file dropped into tests/ runs as
one more test (first, until its duration is known)."""
import os, shutil, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from ci_lib import LOG, ROOT  # noqa: E402
from ci_session import LongestFirst, Notes, Untouched  # noqa: E402

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("PYTHONUNBUFFERED", "1")
for v in ("LLM_PERTURB_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"): os.environ.setdefault(v, "1")
os.environ["LLM_PERTURB_CACHE_DIR"] = str(LOG / "llm_cache")


def _data_dir():
    from llm_perturb.data import data_dir
    return data_dir()


def pytest_configure(config):
    controller = not hasattr(config, "workerinput")   # pytest-xdist's workers have `workerinput`
    if controller:
        shutil.rmtree(LOG, ignore_errors=True); (LOG / "llm_cache").mkdir(parents=True)
        config.pluginmanager.register(Untouched(_data_dir, ROOT / "data" / "llm_cache", LOG / "llm_cache"), "llm_perturb_untouched")
    config.pluginmanager.register(LongestFirst(Path(__file__).parent / "durations.json", record=controller), "llm_perturb_longest_first")
    if controller: config.pluginmanager.register(Notes(), "llm_perturb_notes")
