"""The paper presets (llm_perturb/presets/paper/<section>.yaml): each names a section, sets only parameters its
notebook declares, and passes that notebook's parameter validation cell; `llm-perturb run kernel --preset paper
--dry-run` prints its planned calls and cost, sends nothing and needs no key (shrunk to one budget and one repeat
so that CI plans 903 calls, not 54,180; the full plan is the same command without the two -p)."""
import json
from pathlib import Path
import pytest
import llm_perturb
from llm_perturb.cli import sections, notebook_parameters, load_preset
from ci_lib import ROOT, run

PRESETS = Path(llm_perturb.__file__).parent / "presets" / "paper"
SECTIONS = ["ablations", "batch_simulation", "cross_modal", "kernel", "kg_neighbours", "langpert", "lgr"]


def test_presets_paper_sections():
    "One paper preset per LLM section, no more, no less."
    assert sorted(f.stem for f in PRESETS.glob("*.yaml")) == SECTIONS


@pytest.mark.parametrize("section", SECTIONS)
def test_presets_valid(section):
    "The preset names a section, sets only parameters its notebook declares, and passes its validation cell."
    secs = sections(ROOT / "nbs")
    assert section in secs, f"preset {section}.yaml names no section"
    nb = secs[section]
    values = load_preset("paper", section)
    unknown = sorted(set(values) - set(notebook_parameters(nb)))
    assert not unknown, f"{section}.yaml: {unknown} are not parameters of {nb.name}"
    cells = json.loads(nb.read_text())["cells"]
    i = next(k for k, c in enumerate(cells) if "parameters" in c.get("metadata", {}).get("tags", []))
    pcell, vcell = "".join(cells[i]["source"]), "".join(cells[i + 1]["source"])
    assert "check_params(" in vcell, f"{nb.name} has no validation cell after its parameters"
    ns = {}; exec(pcell, {}, ns)
    exec(vcell, {**ns, **values})  # raises ParamError if the preset's values are not allowed


def test_presets_same_compounds():
    "One compound list for the kernel, ablation and batch presets, so that Tables 1, 2 and the batch rows compare."
    lists = {s: load_preset("paper", s).get("compounds") for s in ("kernel", "ablations", "batch_simulation")}
    assert lists["kernel"] and len(lists["kernel"]) == 14, lists["kernel"]
    assert all(v == lists["kernel"] for v in lists.values()), {s: v for s, v in lists.items() if v != lists["kernel"]}


def test_presets_kg_runs_qa():
    "The KG preset runs §6.3 (PerturbQA questions asked of the model), on the policy's split, with both classes sampled."
    v = load_preset("paper", "kg_neighbours")
    assert v.get("qa_n_genes", 0) > 0 and v.get("qa_per_class", 0) > 0 and v.get("qa_split") == "rl", v


def test_presets_dry_run(tmp_path):
    "The kernel's paper preset, dry run: 903 planned calls, none sent, no key needed."
    out = run("presets_dry_run", ["llm-perturb", "run", "kernel", "--preset", "paper", "--dry-run", "-q", "-p", "budgets", "[6144]",
                                  "-p", "repeats", "1", "-p", "cache_path", tmp_path / "cache.jsonl", "--out", tmp_path / "run"],
              env={"GEMINI_API_KEY": None, "GOOGLE_API_KEY": None})
    r = json.loads((tmp_path / "run" / "results.json").read_text())
    plan = r["llm"]["plan"]
    assert r["params"]["compounds"] and len(r["params"]["compounds"]) == 14 and r["params"]["max_genes"] == 1000, r["params"]
    assert r["llm"]["calls"] == 0 and not (tmp_path / "cache.jsonl").exists(), r["llm"]  # nothing was sent
    new = sum(p["new"] for p in plan)
    assert new == 42 * 43 // 2 + 3, new  # 903 pairs of 42 samples + 3 symmetry checks, all planned
    assert all(p["model"] == "gemini/gemini-2.5-flash" for p in plan)
    assert all(p["completion_tokens_max"] == p["new"] * (6144 + 8192) for p in plan), plan  # thinking budget + answer tokens
    assert "total:" in out and f"{new} new calls" in out, out[-800:]
