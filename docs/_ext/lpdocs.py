"""llm_perturb's Sphinx extension: the site's pages from the notebooks, the README's source and the library.

- The landing page, the guide pages and the section pages are generated at each build from `nbs/index.ipynb` (the
  README's one source): the landing page is its text before the first `##` heading (title, summary, sections table),
  each `##` section is a guide page, and the sections table orders and groups the notebook pages.
- Every notebook of `nbs/` is a page rendered by myst-nb from its stored outputs. Before myst-nb parses one, nbdev's
  rendering rules are applied (`#| hide` cells dropped, `#|` directive lines removed) and, before every exported cell,
  a line of links to the API reference of what the cell defines, with a target that the API reference links back to.
- The API reference, one page per module of `llm_perturb._modidx`: autodoc's signature and docstring, then every
  parameter with its docments comment (`fastcore.docments`) and its default, and the notebook cell that defines it.
- Inline code in the notebooks' and the README's prose that names a notebook or an exported name becomes a link.
"""
from __future__ import annotations
import ast, dataclasses, importlib, inspect, json, re
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

ROOT = Path(__file__).resolve().parents[2]
NBS = ROOT / "nbs"
LIB = "llm_perturb"
logger = logging.getLogger(__name__)
# Generated at every build into the source folder (docs/.gitignore lists them); never edited, never committed.
GENERATED = ["index.md", "guide", "sections", "api", "cli.rst"]


class DocsError(Exception):
    "A problem in the sources that the site cannot be built around; the message names the fix."


# ---------------------------------------------------------------------------------------------------- the sources
def read_nb(path: Path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))

def src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s

def directives(code: str) -> dict[str, str]:
    "nbdev's `#| name args` lines of a code cell: name -> args."
    out = {}
    for line in code.splitlines():
        m = re.match(r"\s*#\|\s*([\w-]+)\s*(.*)$", line)
        if m: out[m.group(1)] = m.group(2).strip()
    return out

def notebooks() -> list[str]:
    "Stems of every notebook page (every notebook of nbs/ but the README's source), sorted."
    return sorted(p.stem for p in NBS.glob("*.ipynb") if p.stem != "index")

def split_sections(md_cells: list[str]) -> tuple[str, list[tuple[str, str]]]:
    "The README's markdown split at its `##` headings: (text before the first, [(heading, body), ...])."
    text = "\n\n".join(md_cells)
    parts = re.split(r"(?m)^## (.+)$", text)
    head, rest = parts[0], parts[1:]
    return head, [(rest[i].strip(), rest[i + 1].strip()) for i in range(0, len(rest), 2)]

def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"

def sections_table(head: str, stems: list[str]) -> list[dict]:
    """The README's sections table (columns section | notebook | what it is) as rows with their notebooks.
    `A` … `B` in the notebook column stands for every notebook from A to B in file order."""
    lines = [l for l in head.splitlines() if l.startswith("|")]
    if not lines or "notebook" not in lines[0]:
        raise DocsError("nbs/index.ipynb: no sections table (| section | notebook | what it is |) before the first "
                        "'##' heading; the site's pages follow it")
    rows = []
    for line in lines[2:]:
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) < 3: continue
        names, what = cols[1], cols[2]
        found = []
        for part in re.split(r",", names):
            ends = re.findall(r"`([^`]+)`", part)
            if len(ends) == 2 and re.search(r"…|\.\.\.", part):
                a, b = ends
                for x in (a, b):
                    if x not in stems: raise DocsError(f"nbs/index.ipynb's sections table names `{x}`, which is no "
                                                       f"notebook of nbs/; fix the row {cols[0]!r}")
                found += stems[stems.index(a): stems.index(b) + 1]
            else:
                for x in ends:
                    if x not in stems: raise DocsError(f"nbs/index.ipynb's sections table names `{x}`, which is no "
                                                       f"notebook of nbs/; fix the row {cols[0]!r}")
                    found.append(x)
        rows.append(dict(section=cols[0], notebooks=found, what=what))
    listed = [s for r in rows for s in r["notebooks"]]
    missing = [s for s in stems if s not in listed]
    if missing:
        raise DocsError(f"notebook(s) {', '.join(f'nbs/{s}.ipynb' for s in missing)} are in no row of the sections "
                        "table of nbs/index.ipynb, so the site has no place for them: add each to the row of its "
                        "section (or a new row), then regenerate README.md (the command in tests/test_sync.py)")
    twice = sorted({s for s in listed if listed.count(s) > 1})
    if twice: raise DocsError(f"notebook(s) {twice} are in more than one row of the sections table of nbs/index.ipynb")
    return rows

def nb_title(stem: str) -> str:
    for c in read_nb(NBS / f"{stem}.ipynb")["cells"]:
        if c["cell_type"] == "markdown":
            m = re.search(r"(?m)^# (.+)$", src(c))
            if m: return m.group(1).strip()
    return stem

def nb_module(nb: dict) -> str | None:
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            d = directives(src(c))
            if "default_exp" in d: return f"{LIB}.{d['default_exp'].split()[0]}"
    return None

def export_cells(nb: dict) -> list[tuple[int, str, list[str]]]:
    "(cell index, module, top-level names it defines) of every exported cell of a notebook."
    default = nb_module(nb)
    out = []
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] != "code": continue
        code = src(c)
        d = directives(code)
        kind = next((k for k in ("export", "exports", "exporti") if k in d), None)
        if kind is None: continue
        mod = f"{LIB}.{d[kind].split()[0]}" if d[kind] else default
        body = "\n".join("" if re.match(r"\s*[%!]", l) else l for l in code.splitlines())
        try: tree = ast.parse(body)
        except SyntaxError: continue
        names = []
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): names.append(n.name)
            elif isinstance(n, ast.Assign): names += [t.id for t in n.targets if isinstance(t, ast.Name)]
            elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name): names.append(n.target.id)
        if mod and names: out.append((i, mod, names))
    return out


# ---------------------------------------------------------------------------------------------------- the library
def api_objects() -> dict[str, list[tuple[str, str, list[str]]]]:
    """module -> [(name, kind, public methods)] in definition order: every public name of `llm_perturb._modidx`
    and of the module's `__all__` (constants included)."""
    from llm_perturb._modidx import d
    out = {}
    for mod, syms in d["syms"].items():
        m = importlib.import_module(mod)
        public = lambda k: not any(p.startswith("_") for p in k[len(mod) + 1:].split("."))
        top = [k[len(mod) + 1:] for k in syms if public(k) and "." not in k[len(mod) + 1:]]
        methods: dict[str, list[str]] = {}
        for k in syms:
            rest = k[len(mod) + 1:].split(".")
            if len(rest) == 2 and public(k): methods.setdefault(rest[0], []).append(rest[1])
        names = list(getattr(m, "__all__", []))
        names += [n for n in top if n not in names]
        names += [n for n in methods if n not in names]
        objs = []
        for n in names:
            if not hasattr(m, n): raise DocsError(f"{mod}.{n} is listed by llm_perturb/_modidx.py or __all__ but the "
                                                  f"module has no such name; rerun nbdev_export")
            o = getattr(m, n)
            kind = "class" if inspect.isclass(o) else "function" if callable(o) else "data"
            objs.append((n, kind, methods.get(n, [])))
        out[mod] = objs
    return out

def rst_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*").replace("`", "\\`")

def _rst_plain(text: str) -> str:
    "Markdown prose outside inline code as RST: `*em*` and `**strong**` kept, every other RST markup character escaped."
    keep = []
    def protect(m):
        keep.append(m.group(0)); return f"\x00{len(keep) - 1}\x00"
    text = re.sub(r"(?<![\w*])(\*\*?)([^\s*](?:[^*]*?[^\s*])?)\1(?![\w*])", protect, text)
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("|", "\\|")
    text = re.sub(r"(\w)_(?=\W|$)", r"\1\\_", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: keep[int(m.group(1))], text)

def md_to_rst(text: str, resolve) -> str:
    "A docstring or docments comment (nbdev's markdown) as RST: inline code that names an object of ours is a link."
    out, pos = [], 0
    for m in re.finditer(r"`([^`\n]+)`", text):
        out.append(_rst_plain(text[pos:m.start()]))
        target = resolve(m.group(1))
        out.append(f":py:obj:`~{target}`" if target else f"``{m.group(1)}``" if m.group(1).strip() == m.group(1)
                   else f":code:`{m.group(1)}`")
        # inline markup must be followed by a space or punctuation
        pos = m.end()
        if pos < len(text) and re.match(r"\w", text[pos]): out.append("\\ ")
    out.append(_rst_plain(text[pos:]))
    return "".join(out)


class Names:
    "Every documented object, to turn inline code into links."
    def __init__(self, objs: dict):
        self.full: set[str] = set(objs)
        self.short: dict[str, list[str]] = {}
        for mod, lst in objs.items():
            self.full.add(mod)
            for n, kind, meths in lst:
                self.full.add(f"{mod}.{n}")
                self.short.setdefault(n, []).append(f"{mod}.{n}")
                for mm in meths:
                    self.full.add(f"{mod}.{n}.{mm}")
                    self.short.setdefault(f"{n}.{mm}", []).append(f"{mod}.{n}.{mm}")

    def resolve(self, code: str, module: str | None = None) -> str | None:
        "The full name `code` stands for, or None: `name`, `name(...)`, `module.name`, `llm_perturb.module.name`."
        c = re.sub(r"\(.*\)$", "", code.strip())
        if not re.fullmatch(r"[A-Za-z_][\w.]*", c): return None
        if c in self.full: return c
        if f"{LIB}.{c}" in self.full: return f"{LIB}.{c}"
        hits = self.short.get(c, [])
        if module and f"{module}.{c}" in hits: return f"{module}.{c}"
        return hits[0] if len(hits) == 1 else None


def linkify_md(text: str, names: Names, stems: set[str], docpath: str, module: str | None = None) -> str:
    """Markdown with inline code that names a notebook or an object of ours as a MyST link (fenced blocks, links and
    headings untouched). `docpath` is the page's folder relative to the source root, for notebook links."""
    out = []
    fence = None
    for line in text.split("\n"):
        f = re.match(r"\s*(```+|~~~+)", line)
        if fence:
            out.append(line)
            if f and f.group(1)[0] == fence[0] and len(f.group(1)) >= len(fence): fence = None
            continue
        if f:
            fence = f.group(1); out.append(line); continue
        if line.lstrip().startswith("#"):
            out.append(line); continue
        def sub(m):
            before = line[:m.start()]
            if before.count("[") > before.count("]"): return m.group(0)  # inside a link's text
            code = m.group(1)
            if code in stems: return f"{{doc}}`{code} <{docpath}nbs/{code}>`"
            t = names.resolve(code, module)
            if t: return f"{{py:obj}}`{code} <{t}>`"
            return m.group(0)
        out.append(re.sub(r"(?<!`)`([^`\n]+)`(?!`)", sub, line))
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------- docments
_DOCMENTS: dict = {}

def _docments(obj) -> dict:
    "`fastcore.docments(obj, full=True)`, read once per object (each reading parses the source file of `obj`)."
    from fastcore.docments import docments
    try: return _DOCMENTS[obj]
    except KeyError: pass
    except TypeError: return docments(obj, full=True)  # an unhashable object: read it each time
    _DOCMENTS[obj] = d = docments(obj, full=True)
    return d

def param_docs(obj) -> list[tuple[str, str | None, object]]:
    """(name, docments comment, default) of every parameter of a function or a class, in signature order.
    Functions and dataclasses through `fastcore.docments`; other classes with annotated fields (pydantic models)
    from the comments beside their fields in the class body, read the same way."""
    empty = inspect.Parameter.empty
    if inspect.isclass(obj) and not dataclasses.is_dataclass(obj) and (fields := _field_lines(obj)):
        try: sig = inspect.signature(obj)
        except (TypeError, ValueError): return []
        out = []
        for name, p in sig.parameters.items():
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL): continue
            out.append((name, fields.get(name), p.default))
        return out
    try: d = _docments(obj)
    except Exception: return []
    out = []
    for name, v in d.items():
        if name in ("return", "self", "cls") or v.get("kind") in (inspect.Parameter.VAR_KEYWORD,): continue
        default = v.get("default", empty)
        if dataclasses.is_dataclass(obj) and inspect.isclass(obj):
            f = obj.__dataclass_fields__.get(name)
            if f is not None and f.default_factory is not dataclasses.MISSING: default = _Factory(f.default_factory)
        out.append((name, v.get("docment"), default))
    return out

def return_doc(obj) -> str | None:
    if inspect.isclass(obj): return None
    try: return _docments(obj).get("return", {}).get("docment")
    except Exception: return None

class _Factory:
    def __init__(self, f): self.f = f
    def __repr__(self): return f"{getattr(self.f, '__name__', repr(self.f))}()"

def _field_lines(cls) -> dict[str, str]:
    "name -> the comment on (or above) an annotated field of a class body."
    try: source = inspect.getsource(cls)
    except (OSError, TypeError): return {}
    import textwrap, tokenize, io
    source = textwrap.dedent(source)
    try: tree = ast.parse(source)
    except SyntaxError: return {}
    if not tree.body or not isinstance(tree.body[0], ast.ClassDef): return {}
    fields = {n.lineno: n.target.id for n in tree.body[0].body
              if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    if not fields: return {}
    comments = {t.start[0]: t.string.lstrip("#").strip()
                for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT}
    out = {}
    for line, name in fields.items():
        if line in comments: out[name] = comments[line]
        else:
            above, k = [], line - 1
            while k in comments and k not in fields: above.insert(0, comments[k]); k -= 1
            if above: out[name] = " ".join(above)
    return out

def default_text(v) -> str:
    r = repr(v)
    return r if len(r) <= 60 else r[:57] + "..."


# ---------------------------------------------------------------------------------------------------- generation
class Site:
    "Everything generated for one build, computed once from the sources."
    def __init__(self):
        index = read_nb(NBS / "index.ipynb")
        self.stems = notebooks()
        md = [src(c) for c in index["cells"] if c["cell_type"] == "markdown"]
        self.head, self.guide = split_sections(md)
        self.rows = sections_table(self.head, self.stems)
        self.objs = api_objects()
        self.names = Names(self.objs)
        self.module_nb: dict[str, str] = {}  # module -> notebook stem
        self.defs: dict[str, tuple[str, str]] = {}  # full name -> (notebook stem, label)
        self.nb_cells: dict[str, dict[int, list[str]]] = {}  # stem -> cell index -> full names
        for stem in self.stems:
            nb = read_nb(NBS / f"{stem}.ipynb")
            mod = nb_module(nb)
            if mod: self.module_nb.setdefault(mod, stem)
            for i, m, names in export_cells(nb):
                for n in names:
                    full = f"{m}.{n}"
                    if full in self.names.full and full not in self.defs:
                        self.defs[full] = (stem, label(full))
                        self.nb_cells.setdefault(stem, {}).setdefault(i, []).append(full)
        for mod in self.objs:
            if mod not in self.module_nb:
                raise DocsError(f"module {mod} has no notebook with `#| default_exp {mod.split('.', 1)[1]}` in nbs/")

    def row_doc(self, row) -> str:
        return row["notebooks"][0] if len(row["notebooks"]) == 1 else f"sections/{slug(row['section'])}"

    def write(self, srcdir: Path):
        for g in GENERATED:
            p = srcdir / g
            if p.is_dir():
                import shutil; shutil.rmtree(p)
            elif p.exists(): p.unlink()
        stems = set(self.stems)
        # the landing page: the README's text before its first `##` section, then the site's tables of contents
        guide = [(h, body, f"guide/{slug(h)}") for h, body in self.guide]
        rows = []
        for r in self.rows:
            rows.append(f"{r['section']} <{'nbs/' + r['notebooks'][0] if len(r['notebooks']) == 1 else self.row_doc(r)}>")
        landing = [linkify_md(self.head.strip(), self.names, stems, ""), "",
                   "```{toctree}", ":caption: Guide", ":maxdepth: 1", "",
                   *[f"{h} <{doc}>" for h, _, doc in guide], "```", "",
                   "```{toctree}", ":caption: Sections", ":maxdepth: 1", "", *rows, "```", "",
                   "```{toctree}", ":caption: Reference", ":maxdepth: 1", "", "api/index", "cli", "```", ""]
        (srcdir / "index.md").write_text("\n".join(landing), encoding="utf-8")
        (srcdir / "guide").mkdir()
        for h, body, doc in guide:
            body = re.sub(r"(?m)^(#{3,6}) ", lambda m: m.group(1)[1:] + " ", body)
            text = (f"# {h}\n\n{linkify_md(body, self.names, stems, '../')}\n\n"
                    f"<small>This page is the section *{h}* of the README (its source: `nbs/index.ipynb`).</small>\n")
            (srcdir / f"{doc}.md").write_text(text, encoding="utf-8")
        (srcdir / "sections").mkdir()
        for r in self.rows:
            if len(r["notebooks"]) == 1: continue
            what = linkify_md(r["what"], self.names, stems, "../")
            text = [f"# {r['section']}", "", what[0].upper() + what[1:] + ".", "",
                    "```{toctree}", ":maxdepth: 1", "", *[f"../nbs/{s}" for s in r["notebooks"]], "```", ""]
            (srcdir / f"{self.row_doc(r)}.md").write_text("\n".join(text), encoding="utf-8")
        # the API reference
        (srcdir / "api").mkdir()
        mods = sorted(self.objs, key=lambda m: self.module_nb[m])
        idx = ["# API reference", "",
               "Every public function, class and constant of the library, module by module, with its signature, its "
               "docstring, every parameter with its comment and default, and the notebook cell that defines it.", "",
               "| module | notebook | what it is |", "| --- | --- | --- |"]
        for m in mods:
            first = (importlib.import_module(m).__doc__ or "").strip().splitlines()
            idx.append(f"| {{py:mod}}`{m}` | {{doc}}`{self.module_nb[m]} <../nbs/{self.module_nb[m]}>` | "
                       f"{(first[0] if first else '').replace('|', '/')} |")
        idx += ["", "```{toctree}", ":hidden:", "", *[m.split(".", 1)[1] for m in mods], "```", ""]
        (srcdir / "api" / "index.md").write_text("\n".join(idx), encoding="utf-8")
        for m in mods:
            stem = self.module_nb[m]
            title = f"``{m.split('.', 1)[1]}``"
            lines = [title, "=" * len(title), "", f".. py:module:: {m}", "", f"Module ``{m}``.", "",
                     md_to_rst((importlib.import_module(m).__doc__ or "").strip(), lambda c: self.names.resolve(c, m)), "",
                     f"Notebook: :doc:`{stem} <../nbs/{stem}>`", ""]
            for n, kind, meths in self.objs[m]:
                full = f"{m}.{n}"
                if kind == "class":
                    lines += [f".. autoclass:: {full}"]
                    lines += [f"   :members: {', '.join(meths)}", "   :undoc-members:"] if meths else []
                    lines += [""]
                elif kind == "function": lines += [f".. autofunction:: {full}", ""]
                else:
                    v = getattr(importlib.import_module(m), n)
                    lines += [f".. autodata:: {full}"]
                    if len(repr(v)) > 80: lines += ["   :no-value:"]
                    lines += [""]
            (srcdir / "api" / f"{m.split('.', 1)[1]}.rst").write_text("\n".join(lines), encoding="utf-8")
        # the command line, from the argparse parser itself
        cli = ["Command line", "============", "",
               "Generated from ``llm_perturb.cli.build_parser``, the parser the ``llm-perturb`` command runs; the "
               ":doc:`90_cli <nbs/90_cli>` notebook explains and tests it.", "",
               ".. argparse::", "   :module: llm_perturb.cli", "   :func: build_parser", "   :prog: llm-perturb", ""]
        (srcdir / "cli.rst").write_text("\n".join(cli), encoding="utf-8")

def label(full: str) -> str:
    "The target of a definition in its notebook page (labels ignore case: a name with capitals gets a suffix)."
    import hashlib
    return "nbdef-" + full.lower() + ("" if full == full.lower() else "-" + hashlib.md5(full.encode()).hexdigest()[:6])


# ---------------------------------------------------------------------------------------------------- Sphinx hooks
def builder_inited(app):
    try: app.env.lpdocs = Site()
    except DocsError as e:
        raise SystemExit(f"docs: {e}")
    app.env.lpdocs.write(Path(app.srcdir))

def source_read(app, docname, source):
    "nbdev's rendering rules and the links to the API reference, applied to a notebook before myst-nb reads it."
    site = app.env.lpdocs
    if not docname.startswith("nbs/"): return
    stem = docname.split("/", 1)[1]
    nb = json.loads(source[0])
    module = nb_module(nb)
    cells_defs = site.nb_cells.get(stem, {})
    out = []
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code":
            code = src(c)
            d = directives(code)
            if "hide" in d or "default_exp" in d: continue
            if i in cells_defs:
                fulls = cells_defs[i]
                links = " · ".join(f"{{py:obj}}`{f.rsplit('.', 1)[1]} <{f}>`" for f in fulls)
                out.append({"cell_type": "markdown", "id": f"lpapi{i}", "metadata": {},
                            "source": "".join(f"({label(f)})=\n" for f in fulls) +
                                      f":::{{container}} lp-api-link\nAPI reference: {links}\n:::\n"})
            c = dict(c, source="\n".join(l for l in code.splitlines() if not re.match(r"\s*#\|", l)).strip("\n"))
            if not c["source"].strip() and not c.get("outputs"): continue
        elif c["cell_type"] == "markdown":
            c = dict(c, source=linkify_md(src(c), site.names, set(site.stems), "../", module))
        out.append(c)
    nb["cells"] = out
    source[0] = json.dumps(nb)

def process_docstring(app, what, name, obj, options, lines):
    "After autodoc's docstring: every parameter with its docments comment and default, and where it is defined."
    site = app.env.lpdocs
    if what in ("data", "attribute") and "\n".join(lines).strip() == inspect.cleandoc(type(obj).__doc__ or ""):
        lines[:] = []  # autodoc shows a constant's type's docstring (dict's, say): not the constant's
    if what == "data" and len(repr(obj)) > 80:  # its value is not shown (too long): say what it is
        size = f" of {len(obj)} entries" if hasattr(obj, "__len__") else ""
        lines += ["", f"A `{type(obj).__name__}`{size}; the notebook shows it."]
    module = name.rsplit(".", 2)[0] if what == "method" else name.rsplit(".", 1)[0]
    resolve = lambda c: site.names.resolve(c, module if module in site.objs else None)
    text = md_to_rst("\n".join(lines), resolve)
    lines[:] = text.split("\n")
    if what in ("function", "method", "class"):
        target = obj.__init__ if what == "class" and dataclasses.is_dataclass(obj) else obj
        params = param_docs(obj)
        if params:
            lines += [""]
            for pname, doc, default in params:
                desc = md_to_rst(doc, resolve) if doc else ""
                if default is not inspect.Parameter.empty:
                    desc += f"{' ' if desc else ''}(default: ``{default_text(default)}``)"
                lines += [f":param {pname}: {desc}"]
        r = return_doc(obj)
        if r: lines += [f":returns: {md_to_rst(r, resolve)}"]
    top = name if what != "method" else name.rsplit(".", 1)[0]
    if what != "method" and top in site.defs:
        stem, lab = site.defs[top]
        lines += ["", f"Defined in notebook :ref:`{stem} <{lab}>`."]
        lines += [""]

def missing_reference(app, env, node, contnode):
    "References to objects outside llm_perturb (numpy, pandas, builtins: no inventory offline) render as code."
    if node.get("refdomain") != "py": return None
    target = node.get("reftarget", "")
    site = env.lpdocs
    if target.startswith(LIB) or target in site.names.short: return None  # ours: unresolved is an error
    return contnode

def setup(app):
    app.connect("builder-inited", builder_inited)
    app.connect("source-read", source_read)
    app.connect("autodoc-process-docstring", process_docstring)
    app.connect("missing-reference", missing_reference)
    return {"parallel_read_safe": False, "parallel_write_safe": True}
