"""nbs/ is the source of truth: the library exported from the notebooks, the notebooks cleaned, and README.md converted
from nbs/index.ipynb must each equal what is in the checkout; CI runs exactly the README's test command."""
import difflib, shutil, subprocess
from pathlib import Path
import pytest
from ci_lib import LOG, ROOT, run


def _diff(a: Path, b: Path, label: str, new: str = "exported/cleaned now", n: int = 60) -> str:
    "A unified diff of two text files, at most `n` lines."
    d = difflib.unified_diff(a.read_text(errors="replace").splitlines(), b.read_text(errors="replace").splitlines(),
                             f"{label} (checkout)", f"{label} ({new})", lineterm="")
    return "\n".join(list(d)[:n])


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    "A copy of settings.ini, nbs/ and llm_perturb/ in which `nbdev_export && nbdev_clean` ran (the checkout is not written)."
    tmp = tmp_path_factory.mktemp("sync")
    shutil.copy(ROOT / "settings.ini", tmp)
    for d in ("nbs", "llm_perturb"): shutil.copytree(ROOT / d, tmp / d, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    run("sync_export", "nbdev_export && nbdev_clean", cwd=tmp)
    return tmp


@pytest.mark.parametrize("folder, pattern", [("llm_perturb", "**/*.py"), ("nbs", "*.ipynb")], ids=["library", "notebooks"])
def test_sync(exported, folder, pattern):
    "sync_library: the exported modules are those committed; sync_notebooks: nbdev_clean changes no notebook."
    new = {p.relative_to(exported): p for p in (exported / folder).glob(pattern)}
    problems = []
    for rel, p in sorted(new.items()):
        mine = ROOT / rel
        if not mine.is_file(): problems.append(f"{rel}: written by nbdev_export, not in the checkout")
        elif mine.read_bytes() != p.read_bytes(): problems.append(_diff(mine, p, str(rel)))
    assert not problems, (f"{folder}/ differs from what `nbdev_export && nbdev_clean` make of nbs/: run them and commit what changes:\n"
                          + "\n".join(problems[:10]))


def test_sync_readme():
    "README.md is nbs/index.ipynb converted to markdown (cells tagged `#| hide` left out): regenerate it with this command."
    out = LOG / "README.md"
    cmd = ["jupyter", "nbconvert", "--to", "markdown", "--stdout", "--log-level=ERROR",
           r"--RegexRemovePreprocessor.patterns=^#\|\s*hide", "nbs/index.ipynb"]
    with open(out, "w") as f: subprocess.run(cmd, cwd=ROOT, stdout=f, check=True)
    assert out.read_bytes() == (ROOT / "README.md").read_bytes(), (
        f"README.md differs from nbs/index.ipynb; regenerate it: {' '.join(cmd[:-2])} '{cmd[-2]}' {cmd[-1]} > README.md\n"
        + _diff(ROOT / "README.md", out, "README.md", "from nbs/index.ipynb"))


def test_readme_test_command():
    "CI runs exactly the README's test command: the last line of .ci/run is a line of README.md."
    cmd = (ROOT / ".ci" / "run").read_text().splitlines()[-1]
    assert cmd in (ROOT / "README.md").read_text().splitlines(), f"the last line of .ci/run is not a line of README.md: {cmd}"
