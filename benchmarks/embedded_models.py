"""The three embedded models on the same small tasks, next to the non-LLM baselines of the same runs.

Each (model, task) runs the section notebook through `llm-perturb run` with the same parameters, so every model
sees the same prompts and the same queries; only the model string changes. Answers are cached per model under
runs/bench-embedded/cache/, so a rerun (or an interrupted run) costs only what is missing.

    kernel   : L1000 A375, 3 compounds x 3 dose-replicates (45 pairs): AURecall, failure rate, distinct scores,
               global correlation with the Pearson baseline
    langpert : the whole LangPert notebook (simulated CV, PerturbQA K562, ranked lists), 15 test knockouts per task
               (slow: for the PerturbQA comparison on the same 30 queries use benchmarks/grounding.py, which also
               asks each model with and without retrieved facts)
    lgr      : Tahoe ranked lists, one cell line, unseen drugs, 30 queries: top-k precision

Prints one table (task, method, metric, value per model; baselines once) and the ratio of each LLM method to the
best baseline of its task. Numbers from these small models are not the papers' results.

    python benchmarks/embedded_models.py [--models local/smollm2-135m-instruct ...] [--tasks kernel langpert lgr]
"""
import argparse, json, os, subprocess, sys, time
from pathlib import Path
import pandas as pd

MODELS = ["local/smollm2-135m-instruct", "local/gemma3-270m", "local/qwen2.5-coder-1.5b"]
TASKS = {
    "kernel": ["-p", "n_compounds", "3", "-p", "replicates", "3", "-p", "max_genes", "10", "-p", "symmetry_pairs", "0",
               "-p", "llm_limit", "100"],
    "langpert": ["-p", "cell_lines", "[k562]", "-p", "n_test_llm", "15", "-p", "llm_train_sizes", "[null]",
                 "-p", "compare_model", "null", "-p", "llm_limit", "60"],
    "lgr": ["-p", "datasets", "[tahoe]", "-p", "regimes", "[unseen_drug]", "-p", "cell_lines", "[a498]",
            "-p", "n_queries_llm", "30", "-p", "llm_limit", "60"],
}
LLM_METHODS = ("kernel_numerical", "kernel_functional", "langpert", "lgr")

def run(model, task, root):
    "Run one section for one model (cached answers replay); return its results.json (or None) and wall seconds."
    tag = model.split("/")[-1]
    out, cache = root / tag / task, root / "cache" / f"{tag}-{task}.jsonl"
    from llm_perturb.cli import find_nbs, resolve_section, notebook_parameters
    own_cache = "cache_path" in notebook_parameters(resolve_section(task, find_nbs())[1])  # else: the notebook's cache
    cmd = ["llm-perturb", "run", task, "--model", model, "--out", str(out), "-q", *TASKS[task],
           *(["-p", "cache_path", str(cache)] if own_cache else [])]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    res = out / "results.json"
    if p.returncode or not res.is_file():
        print(f"{model} {task}: FAILED\n{p.stdout[-1500:]}{p.stderr[-1500:]}", file=sys.stderr); return None, time.time() - t0
    return json.loads(res.read_text()), time.time() - t0

def table(results:dict) -> pd.DataFrame:
    "task/method/metric rows, one column per model; non-LLM methods are the same for every model (shown once)."
    rows = []
    for (model, task), (res, secs) in results.items():
        if res is None: continue
        for k, v in res["metrics"].items():
            t, m, metric = k.split("/")
            llm = m.split("@")[0] in LLM_METHODS
            rows.append(dict(section=task, task=t, method=m, metric=metric, model=model if llm else "(no LLM)", value=v))
        rows.append(dict(section=task, task="run", method="llm", metric="new_calls", model=model, value=res["llm"]["calls"]))
        rows.append(dict(section=task, task="run", method="llm", metric="seconds", model=model, value=round(secs, 1)))
    df = pd.DataFrame(rows).drop_duplicates(["section", "task", "method", "metric", "model"])
    return df.pivot_table(index=["section", "task", "method", "metric"], columns="model", values="value", aggfunc="first")

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=MODELS); ap.add_argument("--tasks", nargs="+", default=list(TASKS))
    ap.add_argument("--out", default="runs/bench-embedded")
    a = ap.parse_args()
    root = Path(a.out).resolve(); root.mkdir(parents=True, exist_ok=True)
    results = {(m, t): run(m, t, root) for t in a.tasks for m in a.models}
    tab = table(results)
    pd.set_option("display.width", 200); pd.set_option("display.max_rows", 500)
    keep = tab.index.get_level_values("metric").isin(["aurecall", "global_correlation", "failure_rate", "distinct_scores",
                                                       "auroc", "precision", "precision_at_k", "new_calls", "seconds"])
    print(tab[keep].round(3).to_string())
    tab.to_csv(root / "table.csv")
    print(f"\nfull table: {root / 'table.csv'} (numbers of tiny local models: not the papers' results)")
