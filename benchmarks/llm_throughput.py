"""Throughput of the embedded model with and without prefix reuse.

32 requests share a ~1,500-token prefix (instructions + a candidate list) and differ in a short suffix (the
query). (a) naive: the KV cache is cleared before every request, as a backend without prefix caching would;
(b) `complete_many`: requests sorted so shared prefixes run back to back, llama.cpp reusing its KV cache.
Prints requests/second for both and the ratio (aim: >= 3).

    python benchmarks/llm_throughput.py [--model local/smollm2-135m-instruct] [--n 32]
"""
import argparse, os, random, time
from llm_perturb.llm import complete_many, load_embedded, DEFAULT_MODEL

def prompts(n, seed=0):
    rng = random.Random(seed)
    letters = "ABCDEFGHIKLMNPRSTVWXYZ"
    cands = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 5))) + str(rng.randint(1, 20)) for _ in range(270)})
    prefix = ("You are an expert in functional genomics. Below is the list of candidate gene knockouts measured in "
              "K562 cells. Pick the candidates whose knockout has the most similar transcriptional response to the "
              "query knockout.\nCandidates: " + ", ".join(cands) + "\n")
    return [prefix + f"Query knockout: {rng.choice(cands)}{i}. Answer with one candidate name." for i in range(n)]

def run(model, ps, reuse):
    llm, _ = load_embedded(model.split("/", 1)[1])
    llm.reset()
    t0 = time.perf_counter()
    if reuse: rs = complete_many(ps, model=model, max_tokens=12, progress=False, concurrency=1)
    else:
        rs = []
        for p in ps:
            llm.reset()  # no prefix reuse
            rs += complete_many([p], model=model, max_tokens=12, progress=False)
    dt = time.perf_counter() - t0
    assert all(r.error is None for r in rs), [r.error for r in rs if r.error][:3]
    return len(ps) / dt, rs[0].usage.get("prompt_tokens")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--model", default=DEFAULT_MODEL); ap.add_argument("--n", type=int, default=32)
    a = ap.parse_args()
    ps = prompts(a.n)
    random.Random(1).shuffle(ps)
    complete_many(ps[:1], model=a.model, max_tokens=4, progress=False)  # load litellm and the model once, untimed
    naive, ntok = run(a.model, ps, reuse=False)
    reuse, _ = run(a.model, ps, reuse=True)
    print(f"model {a.model}; {a.n} requests of ~{ntok} prompt tokens sharing one prefix; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"(a) naive, no prefix reuse : {naive:6.2f} requests/s")
    print(f"(b) prefix-ordered, KV reuse: {reuse:6.2f} requests/s")
    print(f"ratio (b)/(a): {reuse / naive:.1f}x (aim >= 3)")
