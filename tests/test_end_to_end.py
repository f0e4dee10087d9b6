"""The end-to-end checks that run a whole command or script (each one's details in its own header):
  claims       .ci/claims: fixtures in the papers' layouts registered as the papers' data sets, an oracle server
               answering from their truth, every section with --preset paper, a verdict on every claim of a method
               this project reruns and every method the table names written by a run (--strict; LangPert's
               per-size GEARS numbers need --full, 40 GEARS trainings, and are listed as left out)
  fake_server  .ci/fake_server.py, one test per LLM section: the section against a user's own server (--api-base)
               whose every answer is bad: the requests reach it, --concurrency of them in flight, the section still
               finishes, counts the bad answers and reports them; a closed port fails fast naming the URL
  wheel        .ci/wheel: the wheel outside the checkout: built, installed into a fresh venv (llama-cpp-python from
               .ci/install's wheel), every module imported, the command line and the README's example
  docs         .ci/docs: the documentation site built from the notebooks' stored outputs with warnings as errors,
               every internal link and image, every exported name in the API reference and every notebook in the
               navigation (docs/check_site.py), three pages in headless Chromium through selenium at 1400 and 390 px,
               search (docs/browser_check.py)
A failure shows the last 60 lines of the check's log (runs/ci/<check>.log)."""
import ast, os
from pathlib import Path
import pytest
from ci_lib import LOG, ROOT, run

# the sections of .ci/fake_server.py (the keys of its P), read without importing it (it imports litellm)
FAKE_SECTIONS = next([k.value for k in n.value.keys] for n in ast.parse((ROOT / ".ci" / "fake_server.py").read_text()).body
                     if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == "P")


@pytest.mark.timeout(2700)  # 843 s in the last cold CI run, 1,253 s in the one before: headroom over pytest.ini's 1500 s for slower machines
def test_claims():
    run("claims", ["bash", ".ci/claims", LOG / "claims", "--strict", "--jobs", "1"], tail=60)


@pytest.mark.parametrize("section", FAKE_SECTIONS)
def test_fake_server(section):
    run(f"fake_server_{section}", ["bash", ".ci/fake_server", section], env={"FAKE_JOBS": 1}, tail=60)


def test_wheel():
    wheels = Path(os.environ.get("LLM_PERTURB_WHEELS", "build/wheels"))
    run("wheel", ["bash", ".ci/wheel"], env={"LLAMA_WHEEL_DIR": (ROOT / wheels).resolve()}, tail=60)


def test_docs():
    run("docs", ["bash", ".ci/docs", LOG / "site"], tail=60)
