"""The session-end checks (tests/ci_session.py's `Untouched`) fail the run when they should: pytest runs inside this
test on a small project of its own (a data folder, a committed cache, a folder for new answers, one test that does
ACTION), and the run's exit status, its messages and its closing summary line are checked, with and without
pytest-xdist (where the check runs once, in the controller)."""
import os, re, subprocess, sys
from pathlib import Path
import pytest

CONFTEST = f"""
import os, sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
from ci_session import Untouched
HERE = Path(__file__).parent
def data():
    if os.environ["ACTION"] == "no_data": raise FileNotFoundError("no data directory found (searched: nowhere)")
    return HERE / "data"
def pytest_configure(config):
    if not hasattr(config, "workerinput"): config.pluginmanager.register(Untouched(data, HERE / "caches", HERE / "new"), "untouched")
"""
TEST = """
import os
from pathlib import Path
HERE = Path(__file__).parent
def test_action():
    a = os.environ["ACTION"].split()
    if "write_data" in a: (HERE / "data" / "a.txt").write_text("changed")
    if "add_data" in a: (HERE / "data" / "sub" / "b.txt").write_text("new")
    if "write_cache" in a: (HERE / "caches" / "10_kernel.jsonl").write_text('{"k": 1}\\n{"k": 2}\\n')
    if "new_answer" in a: (HERE / "new" / "10_kernel.jsonl").write_text('{"k": 3}\\n')
"""


def inner(tmp: Path, action: str, *args: str) -> tuple[int, str]:
    "Run pytest on the small project with ACTION; (exit status, output)."
    (tmp / "data" / "sub").mkdir(parents=True); (tmp / "caches").mkdir(); (tmp / "new").mkdir()
    (tmp / "data" / "a.txt").write_text("a"); (tmp / "data" / "sub" / "c.txt").write_text("c")
    (tmp / "caches" / "10_kernel.jsonl").write_text('{"k": 1}\n')
    (tmp / "conftest.py").write_text(CONFTEST); (tmp / "test_inner.py").write_text(TEST)
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", tmp, *args, tmp],
                       cwd=tmp, capture_output=True, text=True, env={**os.environ, "ACTION": action, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return p.returncode, p.stdout + p.stderr


@pytest.mark.parametrize("n", [[], ["-p", "xdist", "-n", "2"]], ids=["plain", "xdist"])
def test_session_checks_pass(tmp_path, n):
    rc, out = inner(tmp_path, "nothing", *n)
    assert rc == 0, out
    assert re.fullmatch(r"=+ 3 passed in .*=+", out.strip().splitlines()[-1]), out  # pytest's own line, the 2 checks counted
    assert "data directory" in out and "2 files byte-identical" in out and "new answers the tests needed: 0" in out, out


@pytest.mark.parametrize("n", [[], ["-p", "xdist", "-n", "2"]], ids=["plain", "xdist"])
def test_session_checks_fail(tmp_path, n):
    "A test that changes a data file, adds one, changes a committed cache and needed a new answer: each is reported."
    rc, out = inner(tmp_path, "write_data add_data write_cache new_answer", *n)
    assert rc == 1, out
    for message in ("changed a.txt", "added   sub/b.txt", "changed 10_kernel.jsonl",
                    "the tests needed 1 LLM answers the committed caches lack"):
        assert message in out, (message, out)
    assert re.fullmatch(r"=+ 2 failed, 1 passed in .*=+", out.strip().splitlines()[-1]), out
    for name in ("data_untouched", "caches_untouched"):
        assert out.count(f"session-end::{name} FAILED") == 1, out   # once: in the controller, not in each worker


def test_session_checks_no_data(tmp_path):
    rc, out = inner(tmp_path, "no_data")
    assert rc == 1 and "no data directory found" in out, out
    assert re.fullmatch(r"=+ 1 failed, 2 passed in .*=+", out.strip().splitlines()[-1]), out
