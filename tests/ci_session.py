"""Three pytest plugins of the test run, registered by tests/conftest.py.

`Untouched`: the data directory the tests read and the committed LLM caches must be byte-identical after every test,
and no test may need an LLM answer the committed caches lack. Checksums are taken when the session starts and
compared when it ends, after every test (with pytest-xdist: in the controller only, once, after both workers have
finished). Each comparison is reported as one more result of the run (`session-end::data_untouched`,
`session-end::caches_untouched`), counted in pytest's closing summary line; a difference fails the run (exit status
1) with a message naming the files.

`LongestFirst`: the tests run longest first, so that the two workers of `-n 2` finish together: the collected items
are sorted by their last measured duration (pytest's cache, `.pytest_cache`, written after each run; else the table
committed in tests/durations.json, seconds of a CI run), a test never measured first. Every worker sorts alike (the
same files), which pytest-xdist requires.

`Notes`: lines a test records with `record_property("ci_log", text)` (the data rebuild's time, say) are printed in
a section of their own after the last test, so that the CI log shows them without `-s`."""
from __future__ import annotations
import json
from pathlib import Path
import pytest
from _pytest.reports import TestReport
from ci_lib import sha256_tree, tree_diff

CACHE_KEY = "llm_perturb/durations"


class Untouched:
    def __init__(self,
                 data_dir,          # a callable returning the data directory (it may raise: no data directory)
                 caches: Path,      # the folder of the committed LLM caches (its *.jsonl)
                 new_answers: Path, # the folder new LLM answers go to in this run (LLM_PERTURB_CACHE_DIR)
                 ):
        self.data_dir, self.caches, self.new_answers = data_dir, caches, new_answers

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session):
        try:
            self.data = Path(self.data_dir()).resolve()
            self.data_before, self.data_error = sha256_tree(self.data), None
        except Exception as e:  # reported at the end, as a failure
            self.data, self.data_error = None, f"no data directory found: {type(e).__name__}: {e}"
        self.caches_before = sha256_tree(self.caches)

    def checks(self) -> list[tuple[str, bool, str]]:
        "(name, passed, message) of each session-end check."
        out = []
        if self.data_error: out.append(("data_untouched", False, self.data_error))
        else:
            d = tree_diff(self.data_before, sha256_tree(self.data))
            out.append(("data_untouched", not d, f"data directory {self.data}: {len(self.data_before)} files byte-identical" if not d else
                        f"the tests changed the data directory {self.data} (read-only to everything but `llm-perturb data "
                        f"fetch`; a test copies what it writes into a temporary folder):\n  " + "\n  ".join(d[:40])))
        d = [l for l in tree_diff(self.caches_before, sha256_tree(self.caches)) if l.endswith(".jsonl")]
        new = sum(len(p.read_text().splitlines()) for p in sorted(self.new_answers.glob("*.jsonl")))
        problems = ([f"the tests changed the committed LLM caches in {self.caches} (read, never written):\n  " + "\n  ".join(d)] if d else []) + (
            [f"the tests needed {new} LLM answers the committed caches lack (they are in {self.new_answers}; "
             f"`llm-perturb cache commit` folds them into the committed caches)"] if new else [])
        out.append(("caches_untouched", not problems, "\n".join(problems) or
                    f"{self.caches}: every committed cache byte-identical; new answers the tests needed: 0"))
        return out

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        if session.config.option.collectonly: return
        tr = session.config.pluginmanager.get_plugin("terminalreporter")
        failed = False
        for name, ok, msg in self.checks():
            rep = TestReport(nodeid=f"session-end::{name}", location=("session-end", None, name), keywords={},
                             outcome="passed" if ok else "failed", longrepr=None if ok else msg, when="call")
            if tr is not None:
                if tr._tw.width_of_current_line: tr._tw.line()   # after the progress dots
                tr.stats.setdefault(rep.outcome, []).append(rep)   # counted in the closing summary line
                tr.write_line(f"session-end::{name} {'PASSED' if ok else 'FAILED'}: {msg.splitlines()[0]}")
            failed |= not ok
        if failed and session.exitstatus == pytest.ExitCode.OK: session.exitstatus = pytest.ExitCode.TESTS_FAILED


class LongestFirst:
    def __init__(self,
                 table: Path,   # the committed table of durations (tests/durations.json)
                 record: bool,  # write this run's durations to pytest's cache (the controller only: one writer)
                 ):
        self.table, self.record, self.measured = table, record, {}

    def pytest_collection_modifyitems(self, config, items):
        known = json.loads(self.table.read_text())["seconds"] if self.table.is_file() else {}
        if getattr(config, "cache", None) is not None: known.update(config.cache.get(CACHE_KEY, {}))
        items.sort(key=lambda it: -known.get(it.nodeid, float("inf")))   # stable: ties keep the collection order

    def pytest_runtest_logreport(self, report):  # in the controller: every worker's reports come here
        if report.when == "call" and report.passed: self.measured[report.nodeid] = round(report.duration, 1)

    def pytest_sessionfinish(self, session):
        if self.record and getattr(session.config, "cache", None) is not None and self.measured:
            d = session.config.cache.get(CACHE_KEY, {}); d.update(self.measured)
            session.config.cache.set(CACHE_KEY, d)


class Notes:
    "Lines a test asks to show in the CI log (`record_property('ci_log', text)`), printed after the last test: e.g. the data rebuild's time."
    def __init__(self): self.lines = []

    def pytest_runtest_logreport(self, report):  # in the controller: every worker's reports come here
        if report.when == "call": self.lines += [f"{report.nodeid}: {v}" for k, v in report.user_properties if k == "ci_log"]

    def pytest_terminal_summary(self, terminalreporter):
        if self.lines:
            terminalreporter.section("notes from the tests")
            for line in self.lines: terminalreporter.write_line(line)
