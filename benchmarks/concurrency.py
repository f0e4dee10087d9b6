"""Wall time of a section's LLM requests against a server at concurrency 1, 4 and 16.

LangPert's selection requests (one per query knockout: instructions, the candidate list, the query; the same rows
notebook 20 sends) go through the section's own path (`langpert.run_selections` -> `select.run_requests` ->
`llm.complete_many`, with the run's `Budget(api_base=..., concurrency=...)`) to `llm.FakeServer`, an OpenAI-compatible
server on 127.0.0.1 that takes a fixed time per answer (--latency, default 0.5 s) and counts the most requests in
flight. A GPU server (vLLM, llama.cpp with several slots) or a hosted provider behaves alike as long as it can serve
that many requests at once. Prints the wall time per concurrency and the speed-up against concurrency 1 (ideal:
min(concurrency, requests)).

    python benchmarks/concurrency.py [--n 32] [--latency 0.5] [--levels 1 4 16]
"""
import argparse, os, time
os.environ.pop("OPENAI_API_KEY", None)  # a server given by URL needs no key
from llm_perturb.llm import Budget, FakeServer
from llm_perturb.langpert import run_selections, selection_requests

GENES = ("TP53 MDM2 CDKN1A ATM CHEK2 MYC MAX RPL11 RPS19 POLR2A SF3B1 PSMB5 MED12 CDK8 CCNC MED13 EIF3A EIF4A1 "
         "RPL5 RPS6 SUPT5H BRD4 CDK9 NELFB XRCC5 PARP1 DDX3X HSPA9 SOD1 PCNA MCM2 ORC1 CDC45 GINS1 RPA1 POLE").split()

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32, help="requests (query knockouts)")
    ap.add_argument("--latency", type=float, default=0.5, help="seconds the server takes per answer")
    ap.add_argument("--levels", type=int, nargs="+", default=[1, 4, 16], help="concurrency levels")
    a = ap.parse_args()
    train, queries = GENES, [f"{GENES[i % len(GENES)]}-Q{i}" for i in range(a.n)]  # distinct queries: no request repeats
    rows = []
    with FakeServer(delay=a.latency) as srv:
        for c in a.levels:
            req = selection_requests(queries, train, cell_line="k562", model="openai/my-model", check_genes=False, task=f"c{c}")
            srv.peak = 0; t0 = time.perf_counter()
            sel = run_selections(req, cache=None, budget=Budget(api_base=srv.url, concurrency=c), progress=False, max_tokens=64)
            rows.append((c, time.perf_counter() - t0, srv.peak, int((sel.llm_status != "failed").sum())))
    base = rows[0][1]
    print(f"LangPert selections: {a.n} requests to a server taking {a.latency} s per answer (llm.FakeServer, 127.0.0.1)")
    print(f"{'concurrency':>11} {'peak in flight':>14} {'answered':>8} {'wall s':>8} {'speed-up vs ' + str(rows[0][0]):>16}")
    for c, secs, peak, ok in rows:
        print(f"{c:>11} {peak:>14} {ok:>8} {secs:>8.2f} {base / secs:>15.1f}x")

if __name__ == "__main__": main()
