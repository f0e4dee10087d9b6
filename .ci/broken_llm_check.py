"""The checks of one `.ci/broken_llm` run: python .ci/broken_llm_check.py SECTION MODE OUT_DIR EXIT_CODE SECONDS.
Exits non-zero, naming what is wrong, unless the run finished, wrote results.json and results.csv, wrote the section's
failure rate (or its equivalent) as 1.0 for every LLM method, cost nothing, and counted (and said) the answers cut at
max_tokens exactly for the truncated answers (all of them in mode truncated, every third from the second on in mode
mixed, which takes turns garbage, truncated, empty), and said so."""
import json, re, sys
from pathlib import Path

RATES = {"kernel": r"/kernel_\w+/failure_rate$", "ablations": r"/kernel_\w+(@\w+)?/failure_rate$",
         "batch_simulation": r"/kernel_\w+/failure_rate$", "cross_modal": r"/kernel_\w+/failure_rate$",
         "langpert": r"_llmsubset/langpert/answer_fallback_rate$", "lgr": r"_llm_subset/lgr/k_used_zero_rate$",
         "kg_neighbours": r"/kg_llm_edit/failure_rate$"}

def check(s:str, m:str, out:Path, rc:int, cost=0.0) -> str:
    "What the run did (one line), or an AssertionError naming what is wrong; `cost`: what the run must record (None: unknown, an unpriced server model)."
    log = Path(f"{out}.log").read_text()
    err = (out / "error.txt").read_text()[-1500:] if (out / "error.txt").is_file() else ""
    assert rc == 0, f"the run failed (exit {rc}):\n{log[-800:]}\n{err}"
    assert (out / "results.json").is_file() and (out / "results.csv").is_file(), f"no results.json / results.csv in {out}"
    r = json.loads((out / "results.json").read_text())
    rates = {k: v for k, v in r["metrics"].items() if re.search(RATES[s], k)}
    assert rates, f"no metric matching {RATES[s]!r} in results.json: the failure rate is not written"
    assert all(v == 1.0 for v in rates.values()), f"every answer was bad, yet not every failure rate is 1.0: {rates}"
    u = r["llm"]
    assert u["calls"] > 0 and u["cost"] == cost, f"expected some calls at cost {cost}: {u}"
    cut = {"truncated": u["calls"], "mixed": (u["calls"] + 1) // 3}.get(m, 0)  # calls 1, 4, 7, ... of mixed are cut
    if m == "mixed": assert u["calls"] >= 3, f"only {u['calls']} call(s): broken/mixed needs 3 to meet every kind of answer"
    if cut:
        assert u.get("truncated") == cut, f"{u.get('truncated')} of {u['calls']} answers counted as cut at max_tokens, expected {cut}"
        assert "cut at max_tokens" in log, "the run summary does not say that answers were cut at max_tokens"
    else: assert u.get("truncated") == 0, f"answers counted as cut at max_tokens in mode {m}: {u}"
    return f"{len(rates)} rate(s) = 1.0; llm " + ", ".join(f"{k} {u.get(k)}" for k in ("calls", "invalid", "failed", "truncated"))

if __name__ == "__main__":
    s, m, out, rc, secs = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    try: print(f"ok   {s:17s} broken/{m:9s} {secs:>4s} s  {check(s, m, out, rc)}", flush=True)
    except AssertionError as e: print(f"     {s} broken/{m}: {e}", flush=True); sys.exit(1)
