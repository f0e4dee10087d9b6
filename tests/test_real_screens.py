"""Two real screens end to end (issue 36): the real cells of perturbench's development set (shared/data/singlecell/devel.h5ad)
written in GEARS' perturb_processed.h5ad layout by data.write_gears_screen (Norman et al. 2019, K562 CRISPRa: 18 single
genes, one of them, IER5L, without GO terms; McFaline-Figueroa et al. 2023, A172 CRISPRi: 9 kinase genes, a fold of one
test perturbation), run through `llm-perturb run langpert` (one test per screen) and `llm-perturb run kg_neighbours`
(both screens in one run) with -p pseudobulk_file, GEARS trained for one epoch beside them (LangPert: on the first of the
five folds only, -p gears_folds 1, which holds Norman's IER5L) and LangPert's LLM asked
about the screen. The embedded model's answers come from the committed cache (data/llm_cache/20_langpert.jsonl) and
llm_limit is 0, so CI makes no new call; a missing answer shows as LangPert rows missing. The other tasks of each
section are shrunk (one PerturbQA line, few bootstrap resamples, a small simulation) and the GRPO smoke test and the
demonstration cells are left out (`--skip-flags rl demo`; tests/test_demo_cells.py) to keep the run short. Measured
on the 2-core development machine while 7 other jobs ran (load ~10): langpert 505 s (Norman) + 435 s (A172)."""
import json
import pandas as pd
import pytest
from ci_lib import run

SCREENS = {"norman19": ("norman19",), "a172": ("mcfaline23", "A172")}  # folder: write_gears_screen's arguments
# the sections' other tasks, shrunk (their LLM requests are not sent: llm_limit 0)
ARGS = {"langpert": "-p llm_limit 0 -p gears_epochs 1 -p gears_folds 1 -p cell_lines [k562] -p n_boot 50 -p n_sim_perts 60 -p n_sim_genes 300 "
                    "-p layout_check false -p train_sizes [null]",
        "kg_neighbours": "-p llm_limit 0 -p gears_epochs 1 -p cell_lines [k562] -p holdout_line None -p qa_n_genes 0 -p n_boot 200"}


def _screens(tmp, names):
    "Write the screens `names` into tmp/<name>/perturb_processed.h5ad."
    from llm_perturb.data import write_gears_screen
    for n in names: write_gears_screen(tmp / n / "perturb_processed.h5ad", *SCREENS[n])


def _run(section, f, out, log):
    run(log, ["llm-perturb", "run", section, "-q", "--skip-flags", "rl", "demo", "-p", "pseudobulk_file", f, *ARGS[section].split(), "--out", out])
    r = json.loads((out / "results.json").read_text())
    t = pd.read_csv(out / "results.csv", keep_default_na=False)
    assert r["llm"]["calls"] == 0, r["llm"]  # nothing new was asked: llm_limit 0
    return r, t


@pytest.mark.parametrize("screen", list(SCREENS))
def test_real_screens_langpert(screen, tmp_path):
    "LangPert on one screen: pseudobulk rows of real data, GEARS and the mean beside LangPert, which answers one query per fold."
    _screens(tmp_path / "screens", [screen])
    r, t = _run("langpert", tmp_path / "screens" / screen / "perturb_processed.h5ad", tmp_path / "run", f"real_screens_langpert_{screen}")
    pb = t[t.task.str.startswith("pseudobulk")]
    assert (pb.data == "real").all() and len(pb), "no pseudobulk rows"
    methods = set(pb.method.str.split("@").str[0])
    assert {"mean", "gears", "langpert"} <= methods, methods  # GEARS beside LangPert, asked about the screen
    lp = pb[pb.method.eq("langpert") & pb.metric.eq("mae_top20")]
    assert len(lp) and (lp.task == "pseudobulk_llmsubset").all() and lp.uses_llm.astype(str).eq("True").all(), lp
    n_q = r["metrics"]["pseudobulk_llmsubset/langpert/n_queries"]
    assert n_q == 5, n_q  # one query per fold, answered from the committed cache
    unp = r["metrics"]["pseudobulk/gears/n_unpredicted"]
    assert unp == (1 if screen == "norman19" else 0), unp  # IER5L has no GO term: GEARS cannot embed it
    print(f"langpert on {screen}: {len(pb)} pseudobulk rows, methods {sorted(methods)}; LangPert on {n_q:.0f} queries; "
          f"GEARS unpredicted {int(unp)}")


def test_real_screens_kg_neighbours(tmp_path):
    "Both screens in one run (a folder of GEARS files): Table 1 rows for each, GEARS beside the graphs."
    _screens(tmp_path / "screens", list(SCREENS))
    r, t = _run("kg_neighbours", tmp_path / "screens", tmp_path / "run", "real_screens_kg_neighbours")
    tab = t[t.task.str.startswith("table1")]
    assert len(tab) and {"gears", "mean"} <= set(tab.method), sorted(set(tab.method))
    per = tab.groupby("dataset").method.agg(lambda m: {"gears", "mean", "kg_string", "kg_go"} <= set(m))
    assert len(per) == 2 and per.all(), per
    print(f"kg_neighbours on both screens: {len(tab)} Table 1 rows over {sorted(per.index)}, methods {sorted(set(tab.method))}")
