"""End to end over real HTTP: llama-cpp-python's OpenAI-compatible server on 127.0.0.1 serves the embedded SmolLM2
GGUF; `llm-perturb run kernel --model openai/smollm2 --api-base ...` (the LLM kernel on 1 of the pairs of 2
compounds x 2 doses, 5 genes per profile, one reasoning budget, 320 answer tokens) runs against it. Checks: the run
finishes, results.json and results.csv name the model, the server saw the requests, the structured-output mode is
recorded, no key or URL is stored, and a rerun on the same cache sends no request. The server is stopped by its PID."""
import csv, json, os, signal, socket, subprocess, sys, time, urllib.request
import pytest
from ci_lib import LOG, log_tail, run


@pytest.fixture
def server(tmp_path):
    "(port, server log) of a llama.cpp server serving SmolLM2 as `smollm2`; stopped afterwards."
    from llm_perturb.llm import embedded_model_path
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    log = LOG / "http_provider_server.log"
    with open(log, "wb") as f:
        p = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", embedded_model_path("smollm2-135m-instruct"),
                              "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192",
                              "--n_threads", "1"], stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(120):
            try: urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5); break
            except OSError: time.sleep(1)
        else: pytest.fail(f"the llama.cpp server did not start:\n{log_tail(log, 20)}", pytrace=False)
        yield port, log
    finally:
        os.killpg(p.pid, signal.SIGTERM)
        try: p.wait(10)
        except subprocess.TimeoutExpired: os.killpg(p.pid, signal.SIGKILL); p.wait()


def test_http_provider(server, tmp_path):
    port, log = server
    args = ["llm-perturb", "run", "kernel", "--model", "openai/smollm2", "--api-base", f"http://127.0.0.1:{port}/v1", "-q",
            "-p", "n_compounds", "2", "-p", "replicates", "2", "-p", "max_genes", "5", "-p", "budgets", "[0]",
            "-p", "symmetry_pairs", "0", "-p", "max_pairs", "1", "-p", "max_tokens", "320", "-p", "cache_path", tmp_path / "cache.jsonl"]
    env = {"OPENAI_API_KEY": "sk-dummy-not-a-real-key-0000"}
    requests = lambda: log.read_text(errors="replace").count("POST /v1/chat/completions")
    run("http_provider", [*args, "--out", tmp_path / "run1"], env=env)
    n1 = requests()
    run("http_provider", [*args, "--out", tmp_path / "run2"], env=env, append=True)
    n2 = requests()
    r1, r2 = (json.loads((tmp_path / d / "results.json").read_text()) for d in ("run1", "run2"))
    assert r1["model"] == r2["model"] == "openai/smollm2", r1["model"]
    rows = [r for r in csv.DictReader(open(tmp_path / "run1" / "results.csv")) if r["uses_llm"] == "True"]
    assert rows and {r["model"] for r in rows} == {"openai/smollm2"}, {r["model"] for r in rows}  # the kernel's rows name it
    assert n1 > 0 and r1["llm"]["calls"] > 0, (n1, r1["llm"])
    assert n2 == n1 and r2["llm"]["calls"] == 0 and r2["llm"]["cached"] > 0, (n1, n2, r2["llm"])  # the rerun: cache only
    cache = (tmp_path / "cache.jsonl").read_text()
    modes = {json.loads(l).get("mode") for l in cache.splitlines()}
    assert modes <= {"json_schema", "json_object", "prompt"} and None not in modes, modes
    assert f"127.0.0.1:{port}" not in cache, "the server URL is stored in the cache"
    for f in [tmp_path / "cache.jsonl", *(f for f in (tmp_path / "run1").rglob("*") if f.is_file())]:
        assert "sk-dummy" not in f.read_text(errors="ignore"), f"the API key is stored in {f.name}"
    print(f"http provider (kernel, {len(rows)} kernel result rows): {n1} requests to the server, structured output "
          f"mode(s) {sorted(modes)}, rerun from cache: 0 requests")
