"""Checks of the built site, offline: every internal link, fragment and image resolves; every public name of
`llm_perturb/_modidx.py` (and of each module's `__all__`) has its entry in the API reference, linked to the notebook
cell that defines it and back; every notebook of nbs/ is a page in the navigation.
Usage: python docs/check_site.py SITE_DIR        (python docs/check_site.py --self-test: the checker finds faults)"""
from __future__ import annotations
import importlib, json, os, re, sys, tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
EXTERNAL = ("http:", "https:", "mailto:", "data:", "javascript:", "tel:")


class Page(HTMLParser):
    "The ids of an HTML file, its outgoing references (tag, attribute, url) and the links of its sidebar navigation."
    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs = set(), []
        self.feed(text)
        navs = re.findall(r'<nav\b[^>]*class="[^"]*bd-docs-nav[^"]*"[^>]*>(.*?)</nav>', text, flags=re.S)
        self.nav = [h for n in navs for h in re.findall(r'<a\b[^>]*href="([^"]*)"', n)]

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"): self.ids.add(a["id"])
        if tag == "a" and a.get("name"): self.ids.add(a["name"])
        for attr in ("href", "src"):
            if a.get(attr) is not None and tag in ("a", "link", "img", "script", "source", "iframe"):
                if tag == "link" and not set((a.get("rel") or "").split()) & {"stylesheet", "icon", "preload"}: continue
                self.refs.append((tag, attr, a[attr]))


def load(site: Path) -> dict[Path, Page]:
    "Every page of the site (the theme's template fragments that it copies into _static/ are no pages)."
    return {p: Page(p.read_text(encoding="utf-8", errors="replace")) for p in sorted(site.rglob("*.html"))
            if p.relative_to(site).parts[0] != "_static"}

def resolve(page: Path, url: str) -> tuple[Path, str]:
    u = urlsplit(url)
    path = page if not u.path else (page.parent / unquote(u.path)).resolve()
    if u.path.endswith("/") or path.is_dir(): path = path / "index.html"
    return path, unquote(u.fragment)

def check_links(site: Path, pages: dict[Path, Page]) -> tuple[list[str], int, int]:
    "(problems, internal references checked, external references skipped)."
    problems, n, ext = [], 0, 0
    site = site.resolve()
    pages = {p.resolve(): v for p, v in pages.items()}
    for page, p in pages.items():
        rel = page.relative_to(site)
        for tag, attr, url in p.refs:
            if url.startswith(EXTERNAL) or url.startswith("//"): ext += 1; continue
            if url in ("", "#"): continue
            n += 1
            target, frag = resolve(page, url)
            what = "image" if tag == "img" else "link"
            if not target.exists():
                problems.append(f"{rel}: broken {what} {url!r} (no file {target.relative_to(site) if target.is_relative_to(site) else target})")
            elif frag and target.suffix == ".html" and frag not in pages[target].ids:
                problems.append(f"{rel}: link {url!r} names #{frag}, which {target.relative_to(site)} does not have")
    return problems, n, ext

def exported_names() -> dict[str, list[str]]:
    "module -> every public name of _modidx.py (methods as Class.method) and of the module's __all__."
    sys.path.insert(0, str(ROOT))
    from llm_perturb._modidx import d
    out = {}
    for mod, syms in d["syms"].items():
        names = [k[len(mod) + 1:] for k in syms]
        names = [n for n in names if not any(part.startswith("_") for part in n.split("."))]
        names += [n for n in getattr(importlib.import_module(mod), "__all__", []) if n not in names]
        out[mod] = names
    return out

def check_api(site: Path, pages: dict[Path, Page]) -> tuple[list[str], int]:
    "Every exported name has its entry (id = its full name) in the API page of its module, linked to its notebook cell."
    problems, n = [], 0
    for mod, names in exported_names().items():
        page = site / "api" / f"{mod.split('.', 1)[1]}.html"
        if page not in pages:
            problems.append(f"the API reference has no page for {mod} (api/{page.name})"); continue
        p = pages[page]
        back = {resolve(page, u)[0].relative_to(site.resolve()).as_posix() for _, _, u in p.refs if "nbs/" in u}
        for name in names:
            n += 1
            if f"{mod}.{name}" not in p.ids: problems.append(f"api/{page.name}: no entry for {mod}.{name}")
        if not back: problems.append(f"api/{page.name} links to no notebook")
    return problems, n

def check_notebooks(site: Path, pages: dict[Path, Page]) -> tuple[list[str], int]:
    """Every notebook of nbs/ is a page, reached from the landing page's navigation, and every notebook that defines
    exported names links to the API reference."""
    problems = []
    index = site / "index.html"
    if index not in pages: return [f"{site} has no index.html"], 0
    nav = {resolve(index, u)[0].resolve() for u in pages[index].nav}
    stems = sorted(p.stem for p in (ROOT / "nbs").glob("*.ipynb") if p.stem != "index")
    for stem in stems:
        page = site / "nbs" / f"{stem}.html"
        if page not in pages: problems.append(f"nbs/{stem}.ipynb has no page nbs/{stem}.html"); continue
        if page.resolve() not in nav: problems.append(f"nbs/{stem}.html is not in the navigation (toctree) of index.html")
        nb = json.loads((ROOT / "nbs" / f"{stem}.ipynb").read_text(encoding="utf-8"))
        exports = any(re.search(r"(?m)^\s*#\|\s*exports?\b", "".join(c["source"])) for c in nb["cells"] if c["cell_type"] == "code")
        if exports and not any("api/" in u for _, _, u in pages[page].refs):
            problems.append(f"nbs/{stem}.html exports names but links to no API page")
    return problems, len(stems)

def main(site: Path) -> int:
    pages = load(site)
    links, n_links, n_ext = check_links(site, pages)
    api, n_api = check_api(site, pages)
    nbs, n_nbs = check_notebooks(site, pages)
    problems = links + api + nbs
    for p in problems[:200]: print("FAIL", p)
    print(f"{len(pages)} pages; {n_links} internal links and images checked ({n_ext} external not followed): "
          f"{len(links)} broken; {n_api} exported names, {len(api)} without their API entry; {n_nbs} notebooks, "
          f"{len(nbs)} missing from the pages, the navigation or the API links")
    return 1 if problems else 0

def self_test() -> int:
    "A small site with one fault of each kind: the checker must report each."
    with tempfile.TemporaryDirectory() as t:
        s = Path(t)
        (s / "sub").mkdir()
        (s / "index.html").write_text('<nav class="bd-docs-nav"><a href="sub/a.html">a</a></nav><img src="x.png">'
                                      '<a href="sub/a.html#there">ok</a><a href="sub/a.html#nowhere">bad</a>'
                                      '<a href="missing.html">bad</a><a href="https://example.org">ext</a>')
        (s / "sub" / "a.html").write_text('<p id="there"><img src="../img.png"></p>')
        (s / "img.png").write_bytes(b"")
        problems, n, ext = check_links(s, load(s))
        want = ["x.png", "#nowhere", "missing.html"]
        assert n == 6 and ext == 1, (n, ext)
        assert len(problems) == 3 and all(any(w in p for p in problems) for w in want), problems
        nav = load(s)[s / "index.html"].nav
        assert nav == ["sub/a.html"], nav
    print("self-test: a missing image, a missing fragment and a missing page are each reported; external links skipped")
    return 0

if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]: sys.exit(self_test())
    if len(sys.argv) != 2: sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
