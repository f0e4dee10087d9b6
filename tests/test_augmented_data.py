"""A user's data directory holds more than the bundle: the data-sensitive notebooks must pass their tests on one, and
never write into it. Each test builds such a directory in its temporary folder (a COPY of the data directory, plus
real-looking extra files: PerturbQA `jurkat` and `hek293t` pairs resampled from K562, two more Tahoe lines made from
existing lines under new names, holding drugs the bundle's Tahoe lists do not have), runs one notebook's tests
(.ci/nbtest.py: nbdev_test's rules; cells flagged `rl`, the GRPO smoke test, which reads no data, and `demo`, which run on
toys, fixtures and named files of the bundle that extra files cannot change (tests/test_demo_cells.py), left out) with
LLM_PERTURB_DATA pointing there, and checks that both the copy's files and the real data directory are byte-identical
afterwards (sha256 of every file). 01 and 22 run with their `llm` cells (22 asks the LLM on one fixed line: the
committed cache answers); 20 and 21 without them: on the extra lines every LLM request is a cache miss answered by
the embedded model (minutes on two cores), and the code those cells run is the same for every line and runs on the
bundle's lines in the notebook tests and in .ci/broken_llm."""
import gzip, json, shutil
from pathlib import Path
import numpy as np, pandas as pd
import pytest
from ci_lib import PY, ROOT, run, sha256_tree, tree_diff

NOTEBOOKS = {"21_lgr": "none", "20_langpert": "none", "22_kg_neighbours": "llm", "01_data": "llm"}  # longest first: --flags


def augment(aug: Path):
    "Add to the copy `aug` of the data directory: PerturbQA jurkat and hek293t, Tahoe hela and calu_3, and notes/."
    rng = np.random.default_rng(0)
    pq = aug / "perturbqa"
    for line, n_perts in (("jurkat", None), ("hek293t", 400)):  # PerturbQA publishes Jurkat; hek293t has no published column
        for task in ("de", "dir"):
            k = pd.read_csv(pq / f"k562-{task}.csv", keep_default_na=False)
            perts = k.pert.drop_duplicates().sample(frac=0.8, random_state=1)
            if n_perts: perts = perts.iloc[:n_perts]
            d = k[k.pert.isin(set(perts))].copy()
            d["label"] = d.groupby("gene").label.transform(lambda s: s.sample(frac=1, random_state=2).to_numpy())
            assert not (pq / f"{line}-{task}.csv").exists()
            d.to_csv(pq / f"{line}-{task}.csv", index=False)
    sig = aug / "signatures"
    have = set().union(*(json.load(gzip.open(p, "rt")) for p in sig.glob("tahoe_*.json.gz")))
    hub = pd.read_csv(aug / "drugs/repurposing_drugs_20200324.txt", sep="\t", comment="!", dtype=str).pert_iname.dropna()
    new_drugs = sorted(set(hub) - {d.lower() for d in have} - have)[:12]  # real drugs the bundle's Tahoe lists lack
    for src, new in (("a498", "hela"), ("snu_1", "calu_3")):
        s = json.load(gzip.open(sig / f"tahoe_{src}.json.gz", "rt"))
        names = [d for d in s if not d.upper().startswith("DMSO")]
        for old_name, drug in zip(rng.choice(names, 6, replace=False), new_drugs[:6] if new == "hela" else new_drugs[6:]):
            s[drug] = s.pop(old_name)  # a response under a drug name the bundle's lists do not have
        assert not (sig / f"tahoe_{new}.json.gz").exists()
        with gzip.open(sig / f"tahoe_{new}.json.gz", "wt") as f: json.dump(s, f)
    (aug / "notes").mkdir(); (aug / "notes" / "README.txt").write_text("a user's own notes: not data\n")


@pytest.mark.parametrize("nb", list(NOTEBOOKS))
def test_augmented_data(nb, tmp_path):
    from llm_perturb.data import data_dir
    real = data_dir().resolve()
    real_before = sha256_tree(real)
    aug = tmp_path / "data"
    shutil.copytree(real, aug, symlinks=False)
    for p in [aug, *aug.rglob("*")]: p.chmod(p.stat().st_mode | 0o200)
    augment(aug)
    aug_before = sha256_tree(aug)
    # answers of the embedded model to the extra lines' prompts go to a copy of the committed LLM caches, never to them
    shutil.copytree(ROOT / "data" / "llm_cache", tmp_path / "llm_cache")
    run(f"augmented_data_{nb}", [PY, ".ci/nbtest.py", "--flags", NOTEBOOKS[nb], "--skip", "rl demo", f"nbs/{nb}.ipynb",
                                 tmp_path / "executed" / f"{nb}.ipynb"],
        env={"LLM_PERTURB_DATA": aug, "LLM_PERTURB_CACHE_DIR": tmp_path / "llm_cache"})
    d = tree_diff(aug_before, sha256_tree(aug))
    assert not d, f"{nb} changed the data directory it read:\n" + "\n".join(d[:10])
    assert not tree_diff(real_before, sha256_tree(real)), "the real data directory changed"
