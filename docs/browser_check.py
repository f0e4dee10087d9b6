"""The built site in a real browser, offline: headless Chromium driven by selenium through Debian's chromium-driver
(`apt-get install chromium chromium-driver`, which `.ci/install` runs where /usr/bin/chromedriver is missing). The
landing page, a section notebook with figures (21_lgr) and the API page of `similarity`, each in a window of its own
at 1400 and at 390 pixels wide: the page does not scroll sideways (the document is no wider than the window) and
every image loads (naturalWidth > 0). The search page, whose search runs in JavaScript, must find `kernel_anndata`
and link to its API entry. Every wait is explicit (WebDriverWait on the condition itself, never a fixed time). A
screenshot of every page and width goes to SHOTS. A canary page that does scroll sideways and has a missing image
is checked first: the checks must catch both, or they are broken.
Usage: python docs/browser_check.py SITE_DIR [SHOTS_DIR]
(CHROMIUM and CHROMEDRIVER name the browser and its driver; default: /usr/bin/chromium, /usr/bin/chromedriver)"""
from __future__ import annotations
import base64, os, shutil, sys, tempfile
from pathlib import Path

PAGES = ["index.html", "nbs/21_lgr.html", "api/similarity.html"]
WIDTHS = [1400, 390]
HEIGHT = 900
QUERY, EXPECT = "kernel_anndata", "api/similarity.html#llm_perturb.similarity.kernel_anndata"
WAIT = 60   # seconds any one condition may take (the machine may be busy)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]

# Once the page has loaded: every image made eager (a lazy image below the fold would never load), then, when all are
# complete, the document's width, the window's, the images that did not load, and the first elements that end beyond
# the window outside any box that scrolls or clips (what makes a page scroll sideways).
IMAGES_DONE = "return [...document.images].every(i => { i.loading = 'eager'; return i.complete; })"
MEASURE = """
const imgs = [...document.images], W = document.documentElement.clientWidth;
const wide = [...document.querySelectorAll('body *')].filter(e => {
    const r = e.getBoundingClientRect(); if (r.right <= W + 1 || r.width === 0) return false;
    for (let p = e.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p); if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) return false; }
    return true; })
  .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '')
                   + ' ends at ' + Math.ceil(e.getBoundingClientRect().right) + ': ' + e.textContent.slice(0, 60));
return {page: document.documentElement.scrollWidth, window: W, height: document.documentElement.scrollHeight,
        images: imgs.length, broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')), wide};
"""
SEARCH = """
const links = [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'));
const done = (document.querySelector('#search-results p.search-summary, #search-results .search-summary') || {}).textContent;
return (links.length || done) ? {links, summary: done || ''} : null;
"""


def window(width: int, profile: str):
    "A headless Chromium window whose viewport is `width` px wide (headless windows are at least 500 px: the viewport is set)."
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    browser = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    driver = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    for f in (browser, driver):
        if not shutil.which(f): sys.exit(f"no {f}: install Debian's chromium and chromium-driver (`apt-get install chromium "
                                         "chromium-driver`; .ci/install does) or set CHROMIUM and CHROMEDRIVER")
    o = webdriver.ChromeOptions()
    o.binary_location = browser
    for f in FLAGS + [f"--user-data-dir={profile}", f"--window-size={max(width, 500)},{HEIGHT}"]: o.add_argument(f)
    d = webdriver.Chrome(options=o, service=Service(driver))   # a driver path given: selenium fetches nothing
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return d


def measure(d, url: str) -> dict:
    "Load `url`, wait until every image is complete, and measure (MEASURE)."
    from selenium.webdriver.support.ui import WebDriverWait
    d.get(url)
    WebDriverWait(d, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
    WebDriverWait(d, WAIT).until(lambda d: d.execute_script(IMAGES_DONE))
    return d.execute_script(MEASURE)


def screenshot(d, png: Path, width: int, height: int):
    "The whole page (up to 8000 px tall), not only the window."
    shot = d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                             "clip": {"x": 0, "y": 0, "width": width, "height": min(height, 8000), "scale": 1}})
    png.write_bytes(base64.b64decode(shot["data"]))


def check_page(d, site: Path, page: str, w: int, shots: Path | None, report: bool = True) -> list[str]:
    "The problems of one page at one width (none: an empty list); `report`: print a line for it."
    from selenium.common.exceptions import TimeoutException
    try: p = measure(d, (site / page).as_uri())
    except TimeoutException: return [f"{page} at {w} px: not loaded, or its images not complete, after {WAIT} s"]
    ok = p["page"] <= p["window"] and not p["broken"]
    if report: print(f"{'ok  ' if ok else 'FAIL'} {page} at {w} px: document {p['page']} px wide in a {p['window']} px window; "
          f"{p['images']} images, {len(p['broken'])} not loaded")
    fails = []
    if p["window"] != w: fails.append(f"{page}: the window was {p['window']} px wide, not {w}")
    if p["page"] > p["window"]:
        fails.append(f"{page} at {w} px scrolls sideways: {p['page']} px > {p['window']} px "
                     f"({'; '.join(p['wide']) or 'no single element found'})")
    if p["broken"]: fails.append(f"{page} at {w} px: images not loaded: {p['broken'][:5]}")
    if shots:
        png = shots / f"{page.replace('/', '_').removesuffix('.html')}@{w}.png"
        screenshot(d, png, w, p["height"])
        print(f"     screenshot: {png}")
    return fails


def search(d, site: Path) -> list[str]:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait
    d.get((site / "search.html").as_uri() + f"?q={QUERY}")
    try: s = WebDriverWait(d, WAIT).until(lambda d: d.execute_script(SEARCH))
    except TimeoutException: return [f"the search page showed no results and no summary after {WAIT} s"]
    found = any(EXPECT in h for h in s["links"])
    print(f"{'ok  ' if found else 'FAIL'} search for {QUERY!r}: {len(s['links'])} results"
          + (f", the first {s['links'][0]!r}" if s["links"] else f" ({s['summary']})"))
    return [] if found else [f"the search page does not find {QUERY} ({EXPECT}) among {len(s['links'])} results"]


def canary(d, tmp: Path) -> list[str]:
    "A page with a 600-px block and a missing image, at 390 px: the checks must report both."
    page = tmp / "canary.html"
    page.write_text("<!doctype html><html><body style='margin:0'><div style='width:600px'>wide</div>"
                    "<img src='no-such-image.png'></body></html>")
    f = check_page(d, tmp, "canary.html", 390, None, report=False)
    if len(f) != 2 or not any("scrolls sideways" in x for x in f) or not any("not loaded" in x for x in f):
        return [f"the checks missed the canary's faults (a 600-px block in a 390-px window, one missing image): {f}"]
    print("ok   canary: its 600-px block and its missing image are both caught")
    return []


def main(site: Path, shots: Path | None) -> int:
    site = site.resolve()
    if shots: shots.mkdir(parents=True, exist_ok=True)
    fails = [f"{p}: no such page" for p in PAGES + ["search.html"] if not (site / p).exists()]
    if fails:
        for f in fails: print("FAIL", f)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for w in WIDTHS:   # one window per width, each with a fresh profile
            d = window(w, f"{tmp}/profile{w}")
            try:
                if w == min(WIDTHS): fails += canary(d, Path(tmp))
                for page in PAGES: fails += check_page(d, site, page, w, shots)
                if w == max(WIDTHS): fails += search(d, site)
            finally: d.quit()
    for f in fails: print("FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3): sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else None))
