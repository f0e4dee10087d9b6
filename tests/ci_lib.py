"""What the tests of `tests/` share: the checkout's paths, the CI log folder, and `run`, which runs one step of a check
in a subprocess, writes its output to the check's log in runs/ci/ and, when the step fails, fails the test with the
tail of that log (as `.ci/test` printed it before these checks were pytest tests)."""
from __future__ import annotations
import hashlib, os, signal, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]   # the checkout
LOG = ROOT / "runs" / "ci"                    # logs, executed notebooks and the built site of this run
PY = sys.executable


def log_tail(path: Path, n: int = 40) -> str:
    "The last `n` lines of the log at `path` (a note when there is none)."
    if not path.is_file(): return f"(no log at {path})"
    lines = path.read_text(errors="replace").splitlines()
    return "\n".join(lines[-n:])


def run(name: str,              # the log's name: runs/ci/<name>.log
        cmd: list[str] | str,   # a command (a string runs in bash)
        env: dict | None = None,  # variables set on top of this process's environment (None: unset it)
        cwd: Path = ROOT,       # where it runs
        tail: int = 40,         # lines of the log a failure shows
        append: bool = False,   # add to the log (a later step of the same check) instead of starting it
        check: bool = True,     # fail the test on a non-zero exit
        ) -> str:
    "Run `cmd` with its output in runs/ci/<name>.log; fail the test with the log's tail if it exits non-zero; the output."
    log = LOG / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    e = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None: e.pop(k, None)
        else: e[k] = str(v)
    if isinstance(cmd, str): cmd = ["bash", "-c", cmd]
    start = log.stat().st_size if append and log.is_file() else 0
    with open(log, "ab" if append else "wb") as f:
        f.write(f"$ {' '.join(map(str, cmd))}\n".encode()); f.flush()
        # its own process group: a test stopped by pytest-timeout (or ^C) stops the step's children too
        p = subprocess.Popen(cmd, cwd=cwd, env=e, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try: rc = p.wait()
        except BaseException as e:   # pytest-timeout's Failed, ^C: the step's whole process group goes, then its log shows
            os.killpg(p.pid, signal.SIGKILL); p.wait()
            if isinstance(e, KeyboardInterrupt): raise
            out = log.read_bytes()[start:].decode(errors="replace")
            pytest.fail(f"{name}: stopped ({str(e).strip() or type(e).__name__}) while running {' '.join(map(str, cmd))[:300]}\n"
                        f"the last {tail} lines of {log.relative_to(ROOT)}:\n" + "\n".join(out.splitlines()[-tail:]), pytrace=False)
    out = log.read_bytes()[start:].decode(errors="replace")
    if rc != 0 and check:
        pytest.fail(f"{name}: exit status {rc} of {' '.join(map(str, cmd))[:300]}\nthe last {tail} lines of {log.relative_to(ROOT)}:\n"
                    + "\n".join(out.splitlines()[-tail:]), pytrace=False)
    return out


def sha256_tree(folder: Path) -> dict[str, str]:
    "relative path -> sha256 of every file under `folder`, links followed (as `find -L . -type f | sha256sum`)."
    out = {}
    for dirpath, _, files in os.walk(folder, followlinks=True):
        for n in files:
            p = Path(dirpath) / n
            out[p.relative_to(folder).as_posix()] = hashlib.sha256(p.read_bytes()).hexdigest()
    return dict(sorted(out.items()))


def tree_diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    "The files added, removed or changed between two `sha256_tree`s, one line each."
    return ([f"added   {p}" for p in sorted(set(after) - set(before))]
            + [f"removed {p}" for p in sorted(set(before) - set(after))]
            + [f"changed {p}" for p in sorted(set(before) & set(after)) if before[p] != after[p]])
