"""The Python steps of `.ci/wheel` (the wheel outside the checkout), each a subcommand; the script runs the shell
steps (build, a fresh virtual environment, installs) and calls these, some with the fresh environment's Python:

    python tests/wheel_probe.py contents WHEEL SDIST   the built packages carry every file the library reads
    python tests/wheel_probe.py imports SITE_PACKAGES  every module imports from the installed wheel, outside a checkout
    python tests/wheel_probe.py dry_run RUN_DIR        the kernel's dry run ran here and seeded ./llm_cache from the wheel
    python tests/wheel_probe.py readme_example README OUT  the README's Python example (under **As a library**) into OUT
Each exits non-zero (an AssertionError naming the problem) when its check fails."""
import sys
from pathlib import Path


def contents(whl, sdist):
    import tarfile, zipfile
    whl = set(zipfile.ZipFile(whl).namelist())
    sdist = {n.split("/", 1)[1] for n in tarfile.open(sdist).getnames() if "/" in n}
    need_whl = ["llm_perturb/prompts/kernel_numerical.txt", "llm_perturb/presets/paper/kernel.yaml",
                "llm_perturb/_checkout/data/paper_numbers.tsv", "llm_perturb/_checkout/data/diseases.tsv",
                "llm_perturb/_checkout/data/llm_cache/10_kernel.jsonl", "llm_perturb/_checkout/nbs/10_kernel.ipynb"]
    need_sdist = ["settings.ini", "MANIFEST.in", "llm_perturb/prompts/kernel_numerical.txt", "data/paper_numbers.tsv", "nbs/10_kernel.ipynb"]
    missing = [f for f in need_whl if f not in whl] + [f"sdist:{f}" for f in need_sdist if f not in sdist]
    assert not missing, f"missing from the built packages: {missing}"
    print(f"wheel: {len(whl)} files; sdist: {len(sdist)} files")


def imports(site):
    import importlib, pkgutil
    import llm_perturb
    assert Path(llm_perturb.__file__).is_relative_to(site), f"llm_perturb comes from {llm_perturb.__file__}, not the fresh venv"
    from llm_perturb.data import repo_root
    assert repo_root() is None, f"a checkout was found at {repo_root()}; this test must run outside one"
    mods = sorted(m.name for m in pkgutil.iter_modules(llm_perturb.__path__) if not m.name.startswith("_"))
    for m in mods: importlib.import_module(f"llm_perturb.{m}")
    from llm_perturb.report import paper_numbers
    assert len(paper_numbers()) > 0, "no published numbers outside a checkout"
    print(f"{len(mods)} modules imported: {', '.join(mods)}; {len(paper_numbers())} published numbers")


def dry_run(run):
    import json
    run = Path(run)
    rec = json.loads((run / "run.json").read_text())
    assert rec["status"] == "ok" and (run / "results.json").is_file(), rec
    assert Path(rec["cwd"]) == Path.cwd().resolve(), rec["cwd"]  # the kernel ran here, not inside site-packages
    assert Path("llm_cache/10_kernel.jsonl").is_file(), "the committed cache was not copied to ./llm_cache"
    print(f"dry run ok: {run}/results.json; ./llm_cache/10_kernel.jsonl seeded from the wheel")


def readme_example(readme, out):
    import re
    m = re.search(r"\*\*As a library\*\*.*?```python\n(.*?)```", Path(readme).read_text(), re.S)
    assert m, "README.md has no ```python block after **As a library**"
    Path(out).write_text(m.group(1))


if __name__ == "__main__":
    steps = {f.__name__: f for f in (contents, imports, dry_run, readme_example)}
    if len(sys.argv) < 2 or sys.argv[1] not in steps: sys.exit(__doc__)
    steps[sys.argv[1]](*sys.argv[2:])
