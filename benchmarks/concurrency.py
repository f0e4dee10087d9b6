"""Speed-up of a section's LLM requests with N in flight, against a server that takes a fixed time per answer.

LangPert's selection requests (one per query knockout: instructions, the candidate list, the query; the same rows
notebook 20 sends) go through the section's own path (`langpert.run_selections` -> `select.run_requests` ->
`llm.complete_many`, with the run's `Budget(api_base=..., concurrency=N)` and a JSONL response cache on disk, as a
run writes one) to `llm.FakeServer`, an OpenAI-compatible server on 127.0.0.1 that takes a fixed time per answer
(--latency, default 0.5 s) and counts the most requests in flight. The model is `hosted_vllm/my-model`, a server of
your own: its requests go straight to the server (`llm._post_chat`, aiohttp) or, with LLM_PERTURB_TRANSPORT=litellm,
through litellm; both are measured, one after the other (--transports). The server runs in its own process, as a vLLM or
llama.cpp server does (--server thread puts it in the client's process, where its Python threads take the client's
CPU and GIL). Every level sends the same number of distinct requests (no answer is cached at the start), so the
wall time at N=1 is about requests x latency, and the ideal speed-up at N is min(N, requests).

Printed in one run, side by side: per N the peak in flight, the answers, the wall time, the client's CPU time per
request (this process: litellm, the cache, parsing), the server's CPU time per request (its process, from /stats), the speed-up against N=1, the ideal and the fraction of the
ideal reached; the machine's load (os.getloadavg) before and after. Each level is checked: every request answered
once, one whole cache line per answer, the run's counts (calls, cached, failed, cost unknown) as expected; a replay
of the same requests is served from the cache without a call.

The goals of issue 46 are printed against the measured ratios (at least 0.8 x 64 at N=64, 0.7 x 128 at N=128).
When a goal is not met (or with --profile), the largest level is sent once more, fresh, under cProfile, and the
client's time is printed grouped by where it goes (litellm, the OpenAI client and HTTP stack, asyncio, this
package, the rest), with the largest functions: what stands between the client and the ideal.

    python benchmarks/concurrency.py [--n 64] [--latency 0.5] [--levels 1 8 32] [--server process|thread]
                                     [--transports direct litellm] [--profile]
"""
import argparse, json, os, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path
os.environ.pop("OPENAI_API_KEY", None)  # a server given by URL needs no key
from llm_perturb.llm import Budget, FakeServer, ResponseCache, load_litellm
from llm_perturb.langpert import run_selections, selection_requests

GENES = ("TP53 MDM2 CDKN1A ATM CHEK2 MYC MAX RPL11 RPS19 POLR2A SF3B1 PSMB5 MED12 CDK8 CCNC MED13 EIF3A EIF4A1 "
         "RPL5 RPS6 SUPT5H BRD4 CDK9 NELFB XRCC5 PARP1 DDX3X HSPA9 SOD1 PCNA MCM2 ORC1 CDC45 GINS1 RPA1 POLE").split()
_SERVE = ("import sys; from llm_perturb.llm import FakeServer\n"
          "with FakeServer(delay=float(sys.argv[1])) as s: print(s.url, flush=True); sys.stdin.read()")

class Server:
    "FakeServer in its own process (`process`) or in this one (`thread`); `stats()` reads its counts."
    def __init__(self, latency:float, where:str): self.latency, self.where = latency, where
    def __enter__(self):
        if self.where == "thread":
            self._srv = FakeServer(delay=self.latency).__enter__(); self.url = self._srv.url
        else:
            self._p = subprocess.Popen([sys.executable, "-c", _SERVE, str(self.latency)], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)
            self.url = self._p.stdout.readline().strip()
            if not self.url.startswith("http"): raise RuntimeError("the server process did not start")
        return self
    def stats(self, reset=False) -> dict:
        with urllib.request.urlopen(self.url.removesuffix("/v1") + "/stats" + ("?reset" if reset else "")) as r:
            return json.loads(r.read())
    def __exit__(self, *exc):
        if self.where == "thread": self._srv.__exit__(*exc)
        else: self._p.stdin.close(); self._p.wait(timeout=30)

def level(srv, n, c, cache_path, tag, model="hosted_vllm/my-model"):
    "Send n distinct requests with c in flight; (wall s, client CPU s, peak in flight, answered, budget usage)."
    queries = [f"{GENES[i % len(GENES)]}-Q{i}" for i in range(n)]  # distinct queries: no request repeats
    req = selection_requests(queries, GENES, cell_line="k562", model=model, check_genes=False, task=tag)
    srv.stats(reset=True); st0 = srv.stats(); before = st0["count"]
    b = Budget(api_base=srv.url, concurrency=c)
    t0, c0 = time.perf_counter(), time.process_time()
    sel = run_selections(req, cache=ResponseCache(cache_path), budget=b, progress=False, max_tokens=64)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = srv.stats()
    lines = cache_path.read_text().splitlines()
    assert len(lines) == n and all(json.loads(l)["text"] for l in lines), "one whole cache line per answer"
    u = b.usage()
    assert st["count"] - before == n and (u["calls"], u["cached"], u["failed"], u["cost"]) == (n, 0, 0, None), (st, u)
    b2 = Budget(api_base=srv.url, concurrency=c)  # the same requests again: all from the cache, no call
    again = run_selections(req, cache=ResponseCache(cache_path), budget=b2, progress=False, max_tokens=64)
    assert srv.stats()["count"] - before == n and b2.usage()["calls"] == 0 and b2.usage()["cached"] == n
    assert again["answer"].tolist() == sel["answer"].tolist()
    return wall, cpu, st["peak"], int((sel.llm_status != "failed").sum()), st["cpu_s"] - st0["cpu_s"]

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=64, help="requests (query knockouts) per level")
    ap.add_argument("--latency", type=float, default=0.5, help="seconds the server takes per answer")
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 8, 32], help="requests in flight (N)")
    ap.add_argument("--server", choices=["process", "thread"], default="process", help="where the server runs")
    ap.add_argument("--transports", nargs="+", choices=["direct", "litellm"], default=["direct", "litellm"],
                    help="how hosted_vllm/ requests are sent (LLM_PERTURB_TRANSPORT): straight to the server, or through litellm")
    ap.add_argument("--profile", action="store_true", help="profile the largest level even when the goals are met")
    a = ap.parse_args()
    load0 = os.getloadavg()
    rows, goals, profs = {}, {}, {}
    with Server(a.latency, a.server) as srv, tempfile.TemporaryDirectory() as d:
        load_litellm()  # litellm's import (seconds, paid once by the first request a run sends) is not request time
        for t in a.transports:
            os.environ["LLM_PERTURB_TRANSPORT"] = t
            level(srv, 4, 4, Path(d) / f"warm_{t}.jsonl", f"warm_{t}")  # first connection, first call: not part of any level
            rows[t] = [(c, *level(srv, a.n, c, Path(d) / f"{t}_c{c}.jsonl", f"{t}_c{c}")) for c in a.levels]
            base_c, base = rows[t][0][0], rows[t][0][1]
            goals[t] = [(n, f, base / secs / (min(n, a.n) / min(base_c, a.n))) for n, f in ((64, 0.8), (128, 0.7))
                        for c, secs, *_ in rows[t] if c == n]
            if a.profile or any(got < f for n, f, got in goals[t]):
                c = max(a.levels); profs[t] = profile_level(srv, a.n, c, Path(d) / f"profiled_{t}.jsonl")
        os.environ.pop("LLM_PERTURB_TRANSPORT")
        load1 = os.getloadavg()
    print(f"LangPert selections of hosted_vllm/my-model: {a.n} requests per level to a server taking {a.latency} s per answer "
          f"(llm.FakeServer on 127.0.0.1, {'its own process' if a.server == 'process' else 'in the client process'}); "
          f"a response cache on disk; sent straight to the server (direct) or through litellm")
    print(f"machine: {os.cpu_count()} cores, load average (1, 5, 15 min) {load0[0]:.1f} {load0[1]:.1f} {load0[2]:.1f} before, "
          f"{load1[0]:.1f} {load1[1]:.1f} {load1[2]:.1f} after")
    print(f"{'transport':>9} {'N in flight':>11} {'peak':>5} {'answered':>8} {'wall s':>7} {'client CPU ms/req':>17} {'server CPU ms/req':>17} "
          f"{'speed-up vs N=' + str(a.levels[0]):>16} {'ideal':>6} {'of ideal':>8}")
    for t, rs in rows.items():
        base_c, base = rs[0][0], rs[0][1]
        for c, secs, cpu, peak, ok, scpu in rs:
            ideal = min(c, a.n) / min(base_c, a.n)
            print(f"{t:>9} {c:>11} {peak:>5} {ok:>8} {secs:>7.2f} {cpu / a.n * 1000:>17.1f} {scpu / a.n * 1000:>17.1f} {base / secs:>15.1f}x {ideal:>5.0f}x "
                  f"{base / secs / ideal:>8.2f}")
    for t, gs in goals.items():
        for n, f, got in gs:
            base_c = rows[t][0][0]
            print(f"GOAL ({t}) at N={n}: at least {f} of ideal ({f * min(n, a.n) / min(base_c, a.n):.1f}x): {got:.2f} of ideal "
                  f"({got * min(n, a.n) / min(base_c, a.n):.1f}x) -> {'met' if got >= f else 'NOT met'} "
                  f"(load average {load1[0]:.1f} on {os.cpu_count()} cores)")
    for t, prof in profs.items(): print(f"[{t}] {prof}")

def _where(filename:str) -> str:
    "The part of the client a function belongs to"
    for key, name in (("/litellm/", "litellm (cost, logging, parameter mapping, its HTTP handler)"),
                      ("/openai/", "OpenAI client and HTTP (openai, httpx, aiohttp, h11, anyio)"),
                      ("/httpx/", "OpenAI client and HTTP (openai, httpx, aiohttp, h11, anyio)"),
                      ("/aiohttp/", "OpenAI client and HTTP (openai, httpx, aiohttp, h11, anyio)"),
                      ("/httpcore/", "OpenAI client and HTTP (openai, httpx, aiohttp, h11, anyio)"),
                      ("/anyio/", "OpenAI client and HTTP (openai, httpx, aiohttp, h11, anyio)"),
                      ("/pydantic", "pydantic (response objects)"), ("/asyncio/", "asyncio (event loop, tasks)"),
                      ("llm_perturb", "llm_perturb (requests, slots, cache, accounting)"),
                      ("/pandas/", "pandas (the section's tables)")):
        if key in filename: return name
    return "other (builtins, json, re, ...: called from all of the above)"

def profile_level(srv, n:int, c:int, cache_path) -> str:
    "Send the level again under cProfile: where the client's CPU time goes, grouped, and its largest functions"
    import cProfile, io, pstats
    pr = cProfile.Profile()
    t0, c0 = time.perf_counter(), time.process_time()
    pr.enable(); level(srv, n, c, cache_path, f"profiled{c}"); pr.disable()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    st = pstats.Stats(pr); groups = {}
    for (file, _, _), (_, _, tt, _, _) in st.stats.items(): groups[_where(file)] = groups.get(_where(file), 0.0) + tt
    total = sum(groups.values()) or 1.0
    out = [f"PROFILE of the client at N={c} ({n} requests, run again under cProfile, which slows it: wall {wall:.2f} s, "
           f"client CPU {cpu:.2f} s = {cpu / n * 1000:.1f} ms per request; load average {os.getloadavg()[0]:.1f} on "
           f"{os.cpu_count()} cores). The ideal wall at N={c} is about {-(-n // c)} x the latency; the client's CPU time "
           f"alone takes {cpu:.2f} s, on a core it shares with the load. Own time by part of the client:"]
    for k, v in sorted(groups.items(), key=lambda kv: -kv[1]): out.append(f"  {v:7.2f} s  {v / total:6.1%}  {k}")
    s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(r"litellm|llm_perturb", 18)
    body = [l for l in s.getvalue().splitlines() if l.strip() and ("/" in l or "ncalls" in l)]
    out.append("  the largest functions of litellm and llm_perturb by cumulative time:")
    out += ["    " + l.replace(str(Path(sys.prefix)), "<venv>") for l in body[:20]]
    out.append(f"  (ncalls of an async function counts each resumption after an await, not requests: the server counted "
               f"exactly {n} requests, as the level asserts)")
    return "\n".join(out)

if __name__ == "__main__": main()
