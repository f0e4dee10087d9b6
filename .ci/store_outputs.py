"""Store a fresh run's outputs in the committed notebook: the outputs of every cell that ran in an executed copy
written by `.ci/nbtest.py` replace that cell's stored outputs (matched by cell id); cells that did not run keep theirs.

    python .ci/nbtest.py --flags llm nbs/21_lgr.ipynb runs/ci/executed/21_lgr.ipynb
    python .ci/store_outputs.py runs/ci/executed/21_lgr.ipynb            # into nbs/21_lgr.ipynb
    nbdev_clean && python .ci/clean_outputs.py && python .ci/stored_outputs.py runs/ci/executed/21_lgr.ipynb

stderr streams (warnings, progress bars) are dropped, as `.ci/stored_outputs.py` never compares them; a cell whose fresh
outputs show a machine path (`.ci/clean_outputs.py`'s rule) keeps its stored outputs and is named. Store only from a run
that passed: after a failure the later cells did not run and keep their old outputs.
"""
import argparse, json, re, sys
from pathlib import Path

PATHS = re.compile(r"(/root/|/home/\w+|/tmp/|/work/|/check/|/private/var/)")  # as .ci/clean_outputs.py


def store(executed: Path, stored: Path) -> int:
    "Copy the outputs of the cells that ran in `executed` into `stored`; the number of cells updated."
    fresh = json.loads(executed.read_text(encoding="utf-8"))
    ran = {c.get("id"): c.get("outputs", []) for c in fresh["cells"]
           if c["cell_type"] == "code" and c.get("metadata", {}).get("ci_executed")}
    nb = json.loads(stored.read_text(encoding="utf-8"))
    n = 0
    for c in nb["cells"]:
        if c["cell_type"] != "code" or c.get("id") not in ran: continue
        outs = [o for o in ran[c["id"]] if not (o.get("output_type") == "stream" and o.get("name") == "stderr")]
        for o in outs:
            if o.get("output_type") == "execute_result": o["execution_count"] = None
        if PATHS.search(json.dumps(outs)): print(f"  {stored.name} cell {c['id']}: fresh outputs show a machine path; kept as stored"); continue
        if outs != c.get("outputs"): c["outputs"] = outs; n += 1
    stored.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return n


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("executed", type=Path, nargs="+", help="executed notebooks (runs/ci/executed/NN_name.ipynb)")
    p.add_argument("--nbs", type=Path, default=Path("nbs"), help="folder of the committed notebooks")
    a = p.parse_args()
    for ex in a.executed:
        print(f"{ex.name}: {store(ex, a.nbs / ex.name)} cells' outputs stored")


if __name__ == "__main__": main()
