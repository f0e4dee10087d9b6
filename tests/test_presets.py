"""The paper presets (llm_perturb/presets/paper/<section>.yaml): each names a section, sets only parameters its
notebook declares, and passes that notebook's parameter validation cell; the kernel preset's plate compounds are all
on the bundled plate, 42 samples. The preset's dry run (`llm-perturb run kernel --preset paper --dry-run`: it plans
every pair and sends nothing, with no key) is tested in nbs/90_cli.ipynb on a DE file in a user's layout, and the
claims test runs every preset in full against an oracle server."""
import json
from pathlib import Path
import pytest
import llm_perturb
from llm_perturb.cli import sections, notebook_parameters, load_preset
from ci_lib import ROOT

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


def test_presets_kernel_plate():
    "The kernel preset's 14 compounds are on the bundled L1000 plate, each with its 3 highest doses: 42 samples, the paper's size."
    from llm_perturb.data import l1000_de, load_l1000
    from llm_perturb.similarity import plate_replicates
    v = load_preset("paper", "kernel")
    sub = plate_replicates(l1000_de(load_l1000()), v["compounds"], replicates=v["replicates"])
    assert (sub.n_obs, sub.obs.compound.nunique(), v["max_genes"]) == (42, 14, 1000), (sub.n_obs, sub.obs.compound.nunique())
    assert set(sub.obs.compound.astype(str)) == set(v["compounds"])
