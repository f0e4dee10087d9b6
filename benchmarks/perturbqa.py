"""PerturbQA evaluation: this tree against a reference commit, on the work of two notebook cells, with exact equality.

    python benchmarks/perturbqa.py [--ref b94d491] [--lines hepg2,k562,rpe1] [--n-boot 1000] [--only kg,langpert]

`kg`: 22_kg_neighbours' PerturbQA cell: `kg.evaluate_perturbqa(line, task, graphs, n_folds=3, return_details=True)`
and `kg.perturbqa_bootstrap` for every line and task (graphs: `graphs_for(..., union_mode='paper')`, the union renamed
as the notebook does). `langpert`: the full-test part of 20_langpert's `perturbqa_line`: `neighbours.perturbqa_predict`
(given `perturbqa_labels` once, as the cell does, where the tree has it) for the base rate, each graph's `kg_neighbours(k=20)` and the label oracle at k = 5 and 10, then
`langpert.auroc_table` with the paired tests of the notebook's PAIRS_FULL. The reference is the package of `--ref`
(`git archive`), run in its own process on the same graphs (built once, pickled); every table, score and bootstrap
draw of the two trees must be equal bit for bit. Prints seconds per workload side by side and the load average.
"""
import argparse, inspect, os, pickle, subprocess, sys, tarfile, tempfile, time, io
from pathlib import Path
import numpy as np, pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def build_graphs(lines, path):
    from llm_perturb.data import load_perturbqa
    from llm_perturb.graphs import graphs_for
    universe = sorted({p for l in lines for t in ('de', 'dir') for p in load_perturbqa(l, t).pert})
    kg = graphs_for(universe, union_mode='paper', verbose=False)
    kg['union_string_go_corum_genesets'] = kg.pop('union'); kg['union_string_go_corum_genesets'].name = 'union_string_go_corum_genesets'
    pickle.dump(dict(kg=kg, langpert=graphs_for(universe, verbose=False)), open(path, 'wb'))


def work_kg(lines, graphs, n_boot):
    from llm_perturb.kg import evaluate_perturbqa, perturbqa_bootstrap
    out = {}
    for l in lines:
        for t in ('de', 'dir'):
            r, d = evaluate_perturbqa(l, t, graphs, n_folds=3, seed=0, return_details=True, verbose=False)
            ci, draws = perturbqa_bootstrap(d['test'].pert, d['test'].gene, d['test'].label, d['scores'], n_boot=n_boot, seed=0)
            out[l, t] = dict(table=r, ci=ci, draws=draws, scores=d['scores'], cv=d['cv'])
    return out


def work_langpert(lines, graphs, n_boot):
    from llm_perturb.data import load_perturbqa
    from llm_perturb.graphs import kg_neighbours
    from llm_perturb.neighbours import perturbqa_predict
    from llm_perturb.langpert import label_oracle_neighbours, auroc_table
    pairs = [("kg_union", "base_rate"), ("kg_string", "base_rate"), ("kg_union", "kg_string")]
    out = {}
    for l in lines:
        for t in ('de', 'dir'):
            df = load_perturbqa(l, t)
            tr, te = df[df.split == "train"], df[df.split == "test"]
            te_p, tr_p = list(pd.unique(te.pert)), list(pd.unique(tr.pert))
            oracle = label_oracle_neighbours(tr, te)
            nbs = {"base_rate": ({}, None), **{f"kg_{g}": (kg_neighbours(G, te_p, tr_p, k=20, seed=0), None) for g, G in graphs.items()},
                   **{f"oracle_knn@k{kk}": (oracle, kk) for kk in (5, 10)}}
            r, kw = {}, {}
            if 'labels' in inspect.signature(perturbqa_predict).parameters:  # this tree: the notebook's label tables, made once
                from llm_perturb.neighbours import perturbqa_labels
                kw = dict(labels=perturbqa_labels(tr, te))
            for m, (nb, kk) in nbs.items():
                s, info = perturbqa_predict(tr, te, nb, k=kk, return_info=True, **kw)
                r[m] = (s, info["n_fallback"] / max(info["n_pairs"], 1))
            out[l, t] = auroc_table(te.pert.to_numpy(), te.gene.to_numpy(), te.label.to_numpy(), {m: s for m, (s, _) in r.items()},
                                    {m: f for m, (_, f) in r.items()}, pairs, n_boot, 0)
    return out


def worker(a):
    g = pickle.load(open(a.graphs, 'rb'))
    import llm_perturb, llm_perturb.kg, llm_perturb.langpert, llm_perturb.metrics  # imported, and the symbol table read,
    from llm_perturb.data import normalize_symbols                                  # before the clock starts, as in the
    normalize_symbols(['TP53'])                                                     # notebooks by the time of these cells
    t0, c0 = time.perf_counter(), time.process_time()
    res = (work_kg if a.worker == 'kg' else work_langpert)(a.lines.split(','), g[a.worker], a.n_boot)
    pickle.dump(dict(wall=time.perf_counter() - t0, cpu=time.process_time() - c0, res=res, pkg=llm_perturb.__file__), open(a.out, 'wb'))


def same(x, y, path=''):
    "Exact equality of nested results: frames (check_exact), arrays (NaN equal), dicts (same key order), scalars."
    if isinstance(x, pd.DataFrame): pd.testing.assert_frame_equal(x, y, check_exact=True); return
    if isinstance(x, np.ndarray): assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), path; return
    if isinstance(x, dict):
        assert list(x) == list(y), path
        for k in x: same(x[k], y[k], f'{path}/{k}')
        return
    if isinstance(x, (list, tuple)):
        assert len(x) == len(y), path
        for i, (u, v) in enumerate(zip(x, y)): same(u, v, f'{path}[{i}]')
        return
    assert (x != x and y != y) or (type(x) == type(y) and x == y), (path, x, y)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--ref', default='b94d491', help='git revision of the reference package')
    p.add_argument('--lines', default='hepg2,k562,rpe1')
    p.add_argument('--n-boot', type=int, default=1000)
    p.add_argument('--only', default='kg,langpert')
    p.add_argument('--worker'); p.add_argument('--graphs'); p.add_argument('--out')
    a = p.parse_args()
    if a.worker: return worker(a)
    tmp = Path(tempfile.mkdtemp(prefix='pq_bench_'))
    ref = tmp / 'ref'; ref.mkdir()
    tar = subprocess.run(['git', 'archive', a.ref, 'llm_perturb'], cwd=ROOT, capture_output=True, check=True).stdout
    tarfile.open(fileobj=io.BytesIO(tar)).extractall(ref)
    sys.path.insert(0, str(ROOT))
    build_graphs(a.lines.split(','), tmp / 'graphs.pkl')
    print(f"lines {a.lines}, n_boot {a.n_boot}, reference {a.ref}; load average before: {os.getloadavg()[0]:.2f}")
    print(f"{'workload':10} {'ref wall s':>10} {'ref CPU s':>10} {'new wall s':>10} {'new CPU s':>10} {'speed-up (CPU)':>15}  load  exact")
    for w in a.only.split(','):
        r = {}
        for name, tree in (('ref', ref), ('new', ROOT)):
            env = dict(os.environ, PYTHONPATH=str(tree))
            subprocess.run([sys.executable, __file__, '--worker', w, '--graphs', str(tmp / 'graphs.pkl'), '--out', str(tmp / f'{w}_{name}.pkl'),
                            '--lines', a.lines, '--n-boot', str(a.n_boot)], env=env, check=True, cwd=ROOT)
            r[name] = pickle.load(open(tmp / f'{w}_{name}.pkl', 'rb'))
            assert Path(r[name]['pkg']).resolve().is_relative_to(Path(tree).resolve()), r[name]['pkg']
        same(r['ref']['res'], r['new']['res'])
        print(f"{w:10} {r['ref']['wall']:10.1f} {r['ref']['cpu']:10.1f} {r['new']['wall']:10.1f} {r['new']['cpu']:10.1f} "
              f"{r['ref']['cpu'] / r['new']['cpu']:14.2f}x  {os.getloadavg()[0]:.2f}  identical", flush=True)


if __name__ == '__main__':
    main()
