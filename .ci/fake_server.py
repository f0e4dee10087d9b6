"""Every LLM section against a user's own OpenAI-compatible server that answers badly (issues 29 and 23), end to end
through the command line.

    python .ci/fake_server.py [SECTION ...]      (default: the seven LLM sections; FAKE_JOBS runs at once, default 2)

Per section, on tiny parameters (a few LLM calls), two runs of `llm-perturb run SECTION --model openai/fake-llm`:
1. `--api-base` a fake server (`llm.FakeServer`: 127.0.0.1, answers after 0.3 s, counts requests and the most in
   flight) and `--concurrency 3`. The server answers as `broken/mixed` does (`llm.broken_answer`: prose without JSON,
   a JSON answer cut off with finish_reason 'length', empty content, in turn), so one run checks both issues:
   - the user's server (29): the run finishes, the server received every LLM call of the run (none went to the
     provider's default address), exactly 3 were in flight at once, and results.json records concurrency 3 and that peak;
   - a model whose every answer is bad (23, `.ci/broken_llm_check.py`): results.json and results.csv written, the
     section's failure rate (or its equivalent) is 1.0, exactly the truncated answers are counted as cut at
     max_tokens and the summary says so, and the cost is unknown (litellm has no price for the server's model).
   FAKE_ANSWERS=schema answers valid JSON that follows each request's schema instead (and skips the checks of 23).
   The kernel, ablation, batch, cross-modal and LangPert designs ask for more than their llm_limit: results.json counts
   requests left unsent (`not_sent`), the path a dry run's requests take in every section (nbs/90_cli.ipynb dry-runs
   the two sections whose designs stay within the limit, LGR and KG neighbours).
2. (sections in FAKE_CLOSED, default kernel: the stop is the shared `complete_many` path, tested on its own in
   00_llm, which every section's calls go through (run 1 shows they reach the address given), and each such run
   costs the section's non-LLM cells) `--api-base` a closed port: the run ends
   within 60 s of its first LLM request with a non-zero exit, the message names the URL, and the status is not "ok".
No API key is set: a server given by URL needs none. The committed caches are untouched: each run writes its new
answers to a temporary LLM_PERTURB_CACHE_DIR of its own (so that no run is answered from another's cache).
`.ci/broken_llm` runs the same sections in-process against the `broken/` provider (not part of CI: this covers it).
"""
import itertools, json, os, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from llm_perturb.llm import FakeServer, broken_answer, closed_port
sys.path.insert(0, str(Path(__file__).parent))
from broken_llm_check import check as broken_checks  # noqa: E402

CONC = 3
# tiny parameters per section: at least CONC requests in one batch (one model, one schema), a few calls in all
P = {
    "kernel": "-p n_compounds 2 -p replicates 2 -p max_genes 5 -p budgets [0] -p max_pairs 4 -p symmetry_pairs 0 -p llm_limit 6 -p max_tokens 64",
    "ablations": "-p n_compounds 2 -p replicates 2 -p max_genes 5 -p repeats 2 -p ablations [\"mask_ids\"] -p max_pairs 3 -p llm_limit 6 -p max_tokens 64",
    "batch_simulation": "-p prompts [\"numerical\"] -p mask_variants [false] -p batch_seeds 2 -p repeats 1 -p llm_limit 6 -p max_tokens 64",
    "cross_modal": "-p prompts [\"numerical\"] -p n_permutations 50 -p llm_limit 6 -p max_tokens 64",
    "langpert": "-p compare_model None -p cell_lines [\"k562\"] -p n_folds 2 -p train_sizes [null] -p n_test_llm 4 -p n_sim_perts 60 -p n_sim_genes 200 -p n_boot 50 -p grounding false -p llm_limit 8 -p max_tokens 64",
    "lgr": "-p datasets [\"l1000\"] -p regimes [\"unseen_drug\"] -p n_folds 2 -p n_queries_llm 4 -p llm_limit 8",
    "kg_neighbours": "-p cell_line k562 -p llm_n_test 4 -p llm_n_sim 1 -p n_boot 50 -p holdout_line None -p qa_n_genes 0 -p llm_limit 8 -p max_tokens 64",
}

PAST_LIMIT = {"kernel", "ablations", "batch_simulation", "cross_modal", "langpert"}  # designs that ask for more than llm_limit

def run(section, url, out, extra=()):
    args = ["llm-perturb", "run", section, "--model", "openai/fake-llm", "--api-base", url, "-q", "--skip-flags", "rl", "demo",
            "--out", str(out), *extra]
    for tok in P[section].split(" -p "):
        name, value = tok.removeprefix("-p ").split(" ", 1); args += ["-p", name, value]
    t = time.perf_counter()
    env = dict(os.environ, LLM_PERTURB_CACHE_DIR=f"{out}-cache")  # a cache per run: the next run finds no answer of this one
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    Path(f"{out}.log").write_text(p.stdout + p.stderr)
    return p.returncode, p.stdout + p.stderr, time.perf_counter() - t

def check(section, tmp):
    fails = []
    broken = os.environ.get("FAKE_ANSWERS", "mixed") != "schema"
    turns = itertools.count()
    with FakeServer(delay=0.3, answer=(lambda body: broken_answer("mixed", next(turns))) if broken else None) as srv:
        rc, log, secs = run(section, srv.url, tmp / f"{section}-ok", ("--concurrency", str(CONC)))
        n, peak = srv.count, srv.peak
    res = json.loads((tmp / f"{section}-ok" / "results.json").read_text()) if (tmp / f"{section}-ok" / "results.json").is_file() else {}
    llm = res.get("llm") or {}
    if rc != 0: fails.append(f"run against the fake server exited {rc}: {log[-1500:]}")
    if n == 0: fails.append("the fake server received no request (they went elsewhere)")
    if peak != CONC: fails.append(f"{peak} requests in flight at most, asked {CONC}")
    if (llm.get("concurrency"), llm.get("peak_in_flight")) != (CONC, CONC): fails.append(f"results.json llm block: {llm}")
    if llm.get("calls") != n: fails.append(f"results.json counts {llm.get('calls')} LLM calls, the server received {n}")
    if section in PAST_LIMIT and not llm.get("not_sent"): fails.append(f"no request left unsent past llm_limit: {llm}")
    line = (f"{section}: {n} requests reached the fake server, {peak} in flight at most (asked {CONC}), "
            f"{llm.get('not_sent')} left unsent past llm_limit, {secs:.0f} s")
    if broken and rc == 0:
        try: line += f"; bad answers: {broken_checks(section, 'mixed', tmp / f'{section}-ok', rc, cost=None)}"
        except AssertionError as e: fails.append(f"bad answers: {e}")
    if section not in os.environ.get("FAKE_CLOSED", "kernel").split(): return section, line, fails
    url = f"http://127.0.0.1:{closed_port()}/v1"
    rc2, log2, secs2 = run(section, url, tmp / f"{section}-closed")
    rec = json.loads((tmp / f"{section}-closed" / "run.json").read_text())
    if rc2 == 0 or rec.get("status") == "ok": fails.append(f"closed port: exit {rc2}, status {rec.get('status')}")
    if url not in log2: fails.append(f"closed port: the message does not name {url}: {log2[-800:]}")
    before = secs - n * 0.3 / CONC  # the run's time outside the LLM calls, from the first run
    if secs2 > before + 60: fails.append(f"closed port: {secs2:.0f} s, {before:.0f} s of it before the LLM (more than 60 s after)")
    line += f"; closed port: exit {rc2}, {rec.get('status')}, {secs2:.0f} s"
    return section, line, fails

def main():
    secs = sys.argv[1:] or list(P)
    unknown = [s for s in secs if s not in P]
    if unknown: sys.exit(f"unknown section(s) {unknown}; choose from {list(P)}")
    os.environ.pop("OPENAI_API_KEY", None)
    t0, failed = time.perf_counter(), 0
    with tempfile.TemporaryDirectory() as d:
        with ThreadPoolExecutor(int(os.environ.get("FAKE_JOBS", 2))) as ex:
            for s, line, fails in ex.map(lambda s: check(s, Path(d)), secs):
                print(("ok   " if not fails else "FAIL ") + line, flush=True)
                for f in fails: print(f"     {f}")
                failed += bool(fails)
    print(f"fake_server: {len(secs)} sections, {len(secs) - failed} passed, {failed} failed, wall time {time.perf_counter() - t0:.0f} s")
    sys.exit(1 if failed else 0)

if __name__ == "__main__": main()
