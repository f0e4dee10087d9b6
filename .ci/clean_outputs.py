"""Stored notebook outputs hold no machine paths (/root/, /home/..., /tmp/, /work/, /check/) and no library banners."""
import json, re, sys
from pathlib import Path
BAD = re.compile(r"(/root/|/home/\w+|/tmp/|/work/|/check/|/private/var/|Give Feedback / Get Help|IProgress not found|LiteLLM\.Info)")
problems = []
for nb in sorted(Path("nbs").glob("*.ipynb")):
    for i, c in enumerate(json.loads(nb.read_text())["cells"]):
        for o in c.get("outputs", []):
            text = json.dumps({k: v for k, v in o.items() if k != "data"}) + json.dumps({k: v for k, v in o.get("data", {}).items() if k.startswith("text")})
            for m in set(BAD.findall(text)): problems.append(f"{nb.name} cell {i}: {m!r}")
print("\n".join(problems) or "stored outputs: no machine paths or banners")
sys.exit(1 if problems else 0)
