"""The report in a real browser, 1400 px wide (issue 23 §2): headless Chromium through selenium (docs/browser_check.py's
window). The report of the synthetic example (`example_runs`), or REPORT_HTML's; with every <details> opened, the page
does not scroll sideways and no table, figure or image ends beyond the window; a full-page screenshot, 1400 px wide,
goes to REPORT_PNG (default runs/ci/report_1400.png). `bash .ci/report_screenshot [REPORT_HTML [OUT_PNG]]` runs this."""
import os, sys
from pathlib import Path
from PIL import Image
from ci_lib import LOG, ROOT

sys.path.insert(0, str(ROOT / "docs"))
from browser_check import measure, screenshot, window  # noqa: E402

WIDEST = """document.querySelectorAll('details').forEach(d => { d.open = true; });
return Math.max(0, ...[...document.querySelectorAll('table, figure, img')].map(e => Math.ceil(e.getBoundingClientRect().right)));"""


def test_report_screenshot(tmp_path):
    html = os.environ.get("REPORT_HTML")
    png = Path(os.environ.get("REPORT_PNG") or LOG / "report_1400.png").resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    if not html:
        from llm_perturb.report import example_runs, write_report
        html = tmp_path / "report.html"
        write_report([example_runs(tmp_path / "example")], html)
    d = window(1400, str(tmp_path / "profile"))
    try:
        p = measure(d, Path(html).resolve().as_uri())
        widest = d.execute_script(WIDEST)
        p = {**p, **d.execute_script("return {page: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight}")}
        screenshot(d, png, 1400, p["height"])
    finally: d.quit()
    w = Image.open(png).width
    print(f"page {p['page']} px wide in a {p['window']} px window; the widest table or figure ends at {widest} px; "
          f"screenshot {png} is {w} px wide")
    assert p["window"] == 1400 and w == 1400, f"the window is {p['window']} px wide and the screenshot {w} px, not 1400"
    assert p["page"] <= p["window"] and widest <= p["window"], "something is wider than the 1400-px window: the page scrolls sideways"
    assert not p["broken"], f"images not loaded: {p['broken'][:5]}"
