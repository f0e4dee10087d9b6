"""Grounded LangPert selection (beyond the papers): the same model, the same PerturbQA queries, with and without facts.

For each model, each cell line and each task (DE, direction), `n_queries` seeded test perturbations of the official
split get a LangPert selection twice: with the paper's prompt, and with `grounding=True` (the query's STRING
partners among its candidates, GO processes and CORUM complexes: `graphs.gene_facts`). Both are scored with
PerturbQA's per-gene AUROC on the same pairs, next to the base rate and the STRING graph's neighbours, with a 95%
bootstrap interval over perturbations and a paired bootstrap test grounded − plain. Answers are cached per model
(runs/bench-grounding/cache/), so a rerun or an interrupted run costs only what is missing.

Numbers of small local models on a subset: not the papers' results, and not comparable with a full-test-set number.

    python benchmarks/grounding.py [--models local/smollm2-135m-instruct ...] [--lines k562 rpe1 hepg2] [--n-queries 10]   (the md: --lines k562 rpe1 --n-queries 30)
"""
import argparse, time
from pathlib import Path
import numpy as np
import pandas as pd

from llm_perturb.data import load_perturbqa
from llm_perturb.graphs import graphs_for, kg_neighbours
from llm_perturb.langpert import selection_requests, run_selections, llm_settings, auroc_table, selection_stats
from llm_perturb.llm import ResponseCache
from llm_perturb.neighbours import perturbqa_predict

MODELS = ["local/smollm2-135m-instruct", "local/gemma3-270m", "local/qwen2.5-coder-1.5b"]

def line_data(line):
    "DE and direction labels of a line, its training perturbations and the test perturbations labelled in both tasks."
    d = {t: load_perturbqa(line, t) for t in ("de", "dir")}
    train = sorted(d["de"].query("split == 'train'").pert.unique())
    test = sorted(set(d["de"].query("split == 'test'").pert) & set(d["dir"].query("split == 'test'").pert))
    return d, train, test

def main(models, lines, n_queries, seed, out):
    out.mkdir(parents=True, exist_ok=True)
    data = {l: line_data(l) for l in lines}
    universe = sorted(set().union(*[set(d["de"].pert) for d, _, _ in data.values()]))
    string = graphs_for(universe, sources=("string",), union=False, verbose=False)["string"]
    rows, tests, stats = [], [], []
    for model in models:
        cache = ResponseCache(out / "cache" / f"{model.split('/')[-1]}.jsonl")
        cfg = llm_settings(model)
        for line, (d, train, test) in data.items():
            queries = sorted(np.random.default_rng([seed, len(line)]).permutation(test)[:n_queries].tolist())
            sels = {}
            for grounded in (False, True):
                t0 = time.time()
                req = selection_requests(queries, train, cell_line=line, model=model, max_candidates=cfg["max_candidates"],
                                         seed=seed, check_genes=False, grounding=grounded, task=line)
                sel = run_selections(req, cache, max_tokens=cfg["max_tokens"], progress=False)
                name = "langpert@grounded" if grounded else "langpert"
                sels[name] = dict(zip(sel["query"], sel.selected))
                st = selection_stats(sel)
                stats.append(dict(model=model, line=line, method=name, seconds=round(time.time() - t0, 1),
                                  answer_fallback_rate=st.get("fallback_rate"), distinct_per_answer=st.get("mean_selected")))
                print(f"{model} {line} {name}: {time.time() - t0:.0f} s", flush=True)
            for task, df in d.items():
                tr, te = df[df.split == "train"], df[(df.split == "test") & df.pert.isin(queries)]
                nbs = {"base_rate": {}, "kg_string": kg_neighbours(string, queries, train, k=20, seed=seed), **sels}
                scored = {m: perturbqa_predict(tr, te, n, return_info=True) for m, n in nbs.items()}
                tab, tst = auroc_table(te.pert.to_numpy(), te.gene.to_numpy(), te.label.to_numpy(),
                                       {m: s for m, (s, _) in scored.items()},
                                       {m: i["n_fallback"] / max(i["n_pairs"], 1) for m, (_, i) in scored.items()},
                                       [("langpert@grounded", "langpert"), ("langpert@grounded", "base_rate"),
                                        ("langpert", "base_rate")], seed=seed)
                rows.append(tab.assign(model=model, line=line, task=task).rename_axis("method").reset_index())
                tests.append(tst.assign(model=model, line=line, task=task).rename_axis("pair").reset_index())
    res, tst, st = pd.concat(rows), pd.concat(tests), pd.DataFrame(stats)
    res.to_csv(out / "auroc.csv", index=False); tst.to_csv(out / "paired.csv", index=False); st.to_csv(out / "selection.csv", index=False)
    pd.set_option("display.width", 200); pd.set_option("display.max_rows", 500)
    keep = res.method.isin(["langpert", "langpert@grounded"]) | (res.model == models[0])  # baselines once
    print(res[keep].set_index(["line", "task", "model", "method"])[["auroc", "ci_low", "ci_high", "fallback_rate", "n_perts"]]
          .astype(float).round(3).to_string())
    print(tst.set_index(["line", "task", "model", "pair"])[["diff", "ci_low", "ci_high", "pvalue"]].astype(float).round(3).to_string())
    print(st.to_string(index=False))
    print(f"\ntables under {out} (real PerturbQA labels, LLM subset of {n_queries} test perturbations per line; "
          "tiny local models: not the papers' results)")

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=MODELS)
    ap.add_argument("--lines", nargs="+", default=["k562", "rpe1", "hepg2"])
    ap.add_argument("--n-queries", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/bench-grounding")
    a = ap.parse_args()
    main(a.models, a.lines, a.n_queries, a.seed, Path(a.out).resolve())
