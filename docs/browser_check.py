"""The built site in a real browser (headless Chromium), offline: the landing page, a section notebook with figures
(21_lgr) and the API page of `similarity`, each at 1400 and 390 pixels wide. On each: the page does not scroll
sideways (the document is no wider than the window) and every image loads. Then the search page, whose search runs
in JavaScript, must find `kernel_anndata` and link to its API entry. Screenshots of every page and width go to SHOTS.
Usage: python docs/browser_check.py SITE_DIR [SHOTS_DIR]     (CHROMIUM names the browser; default: found on PATH)"""
from __future__ import annotations
import html, json, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

PAGES = ["index.html", "nbs/21_lgr.html", "api/similarity.html"]
WIDTHS = [1400, 390]
QUERY, EXPECT = "kernel_anndata", "api/similarity.html#llm_perturb.similarity.kernel_anndata"

# Written into a copy of each page beside it (so that its relative links hold): once loaded, every image made eager
# and awaited, the measures are sent to the harness, a page that holds every page and width in iframes of those
# widths (headless Chromium has no window narrower than 500 px; an iframe's document has the iframe's viewport), and
# the harness writes them into its DOM, which --dump-dom prints. One browser run measures everything.
PROBE = """<script>
window.addEventListener('load', async () => {
  const imgs = [...document.images];
  imgs.forEach(i => { i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => { i.onload = i.onerror = r; })));
  const W = document.documentElement.clientWidth;
  const wide = [...document.querySelectorAll('body *')].filter(e => {
      const r = e.getBoundingClientRect(); if (r.right <= W + 1 || r.width === 0) return false;
      for (let p = e.parentElement; p; p = p.parentElement) {           // inside a box that scrolls or clips: fine
        const s = getComputedStyle(p); if (['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX)) return false; }
      return true; })
    .slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '')
                     + ' ends at ' + Math.ceil(e.getBoundingClientRect().right) + ': ' + e.textContent.slice(0, 60));
  parent.postMessage({key: location.hash.slice(1), page: document.documentElement.scrollWidth, window: W,
    images: imgs.length, broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src')),
    wide}, '*');
});
</script>"""
# The search page runs its search in JavaScript; its copy waits for the results and sends their links.
SEARCH_PROBE = """<script>
window.addEventListener('load', () => { let n = 0; const t = setInterval(() => {
  const links = [...document.querySelectorAll('#search-results li a')].map(a => a.getAttribute('href'));
  const done = (document.querySelector('#search-results p.search-summary, #search-results .search-summary') || {}).textContent;
  if (links.length || done || ++n > 200) { clearInterval(t);
    parent.postMessage({key: 'search', links, summary: done || ''}, '*'); } }, 100); });
</script>"""
HARNESS = """<!doctype html><html><body style="margin:0"><div id="frames">{frames}</div><script>
const got = {{}}; window.addEventListener('message', e => {{ got[e.data.key] = e.data;
  document.body.setAttribute('data-probe', JSON.stringify(got)); }});
</script></body></html>"""

def browser() -> str:
    b = os.environ.get("CHROMIUM") or next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                                            if shutil.which(n)), None)
    if not b: sys.exit("no chromium found: install Debian's `chromium` (apt-get install chromium) or set CHROMIUM")
    return b

def run(b: str, args: list[str], profile: str) -> str:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", f"--user-data-dir={profile}"]
    r = subprocess.run([b, *flags, *args], capture_output=True, text=True, timeout=120)
    return r.stdout

def main(site: Path, shots: Path | None) -> int:
    b = browser()
    fails, copies = [], []
    site = site.resolve()
    def copy(page: str, probe: str) -> str:
        src = site / page
        dst = src.with_name(f".probe-{src.name}")
        dst.write_text(src.read_text(encoding="utf-8").replace("</body>", probe + "</body>"), encoding="utf-8")
        copies.append(dst)
        return dst.relative_to(site).as_posix()
    frames = []
    for page in PAGES:
        if not (site / page).exists(): fails.append(f"{page}: no such page"); continue
        c = copy(page, PROBE)
        frames.append("<div style='display:flex;gap:20px;align-items:flex-start'>" + "".join(
            f"<iframe src='{c}#{page}@{w}' style='width:{w}px;height:1600px;border:1px solid #999'></iframe>"
            for w in WIDTHS) + "</div>")
    frames.append(f"<iframe src='{copy('search.html', SEARCH_PROBE)}?q={QUERY}' style='width:1400px;height:600px'></iframe>")
    # A canary in the same run: a page that does scroll sideways at 390 px and has a missing image must be caught,
    # or the probe itself is broken.
    canary = site / ".probe-canary.html"
    canary.write_text("<!doctype html><html><body style='margin:0'><div style='width:600px'>wide</div>"
                      "<img src='.probe-no-such-image.png'>" + PROBE + "</body></html>", encoding="utf-8")
    copies.append(canary)
    frames.append("<iframe src='.probe-canary.html#canary' style='width:390px;height:300px'></iframe>")
    harness = site / ".probe-harness.html"
    harness.write_text(HARNESS.format(frames="".join(frames)), encoding="utf-8")
    copies.append(harness)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            dom = run(b, ["--window-size=1900,900", "--virtual-time-budget=30000", "--dump-dom", harness.as_uri()],
                      f"{tmp}/probe")
            if shots:
                shots.mkdir(parents=True, exist_ok=True)
                png = (shots / "site.png").resolve()
                run(b, [f"--window-size={sum(WIDTHS) + 40},{1620 * len(PAGES) + 620}", f"--screenshot={png}",
                        harness.as_uri()], f"{tmp}/shot")
                if png.exists(): print(f"screenshot of every page and width: {png}")
                else: fails.append("no screenshot was written")
    finally:
        for c in copies: c.unlink(missing_ok=True)
    m = re.search(r'data-probe="([^"]+)"', dom)
    got = json.loads(html.unescape(m.group(1))) if m else {}
    for page in PAGES:
        for w in WIDTHS:
            p = got.get(f"{page}@{w}")
            if p is None: fails.append(f"{page} at {w} px: the probe sent nothing (the page did not load?)"); continue
            ok = p["page"] <= p["window"] and not p["broken"]
            print(f"{'ok  ' if ok else 'FAIL'} {page} at {w} px: document {p['page']} px wide in a {p['window']} px "
                  f"window; {p['images']} images, {len(p['broken'])} not loaded")
            if p["window"] != w: fails.append(f"{page}: the window was {p['window']} px wide, not {w}")
            if p["page"] > p["window"]:
                fails.append(f"{page} at {w} px scrolls sideways: {p['page']} px > {p['window']} px "
                             f"({'; '.join(p['wide']) or 'no single element found'})")
            if p["broken"]: fails.append(f"{page} at {w} px: images not loaded: {p['broken'][:5]}")
    c = got.get("canary")
    if not c or c["page"] <= c["window"] or len(c["broken"]) != 1:
        fails.append(f"the probe missed the canary's faults (a 600-px block in a 390-px window, one missing image): {c}")
    else: print(f"ok   canary: the probe sees its {c['page']} px document in a {c['window']} px window and its missing image")
    s = got.get("search", {"links": [], "summary": "the search page sent nothing"})
    found = any(EXPECT in h for h in s["links"])
    print(f"{'ok  ' if found else 'FAIL'} search for {QUERY!r}: {len(s['links'])} results"
          + (f", the first {s['links'][0]!r}" if s["links"] else f" ({s['summary']})"))
    if not found: fails.append(f"the search page does not find {QUERY} ({EXPECT}) among {len(s['links'])} results")
    for f in fails: print("FAIL", f)
    return 1 if fails else 0

if __name__ == "__main__":
    if len(sys.argv) not in (2, 3): sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else None))
