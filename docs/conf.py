# Sphinx configuration of the llm_perturb site, built by `bash .ci/docs [OUT]`. The pages are generated at each
# build by the extension in _ext/lpdocs.py from nbs/ (the notebooks, rendered from their stored outputs, never
# executed), nbs/index.ipynb (the README's source: landing page, guide, sections table) and the library (API and
# command-line reference). Nothing here names a notebook: a new one appears once the README's sections table lists it.
import configparser, os, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).parent / "_ext")]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm looks for the network at import otherwise
cfg = configparser.ConfigParser(delimiters=["="]); cfg.read(ROOT / "settings.ini", encoding="utf-8")
ini = cfg["DEFAULT"]

project = ini["lib_name"]
author = ini["author"]
copyright = ini["copyright"]
release = version = ini["version"]

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinxarg.ext", "lpdocs"]
root_doc = "index"
exclude_patterns = ["_build", "_ext", "_static", "nbs/index.ipynb", "**/.ipynb_checkpoints"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}

# Text as written: `--dry-run` stays two hyphens, quotes stay straight. In RST (the argparse help strings), `x` is code,
# as in the library's markdown.
smartquotes = False
default_role = "code"

# Warnings are errors (.ci/docs runs sphinx-build -W --keep-going -n): every reference must resolve.
nitpicky = True

# myst-nb: the notebooks' stored outputs, as committed (CI checks that they are a fresh run's); never executed.
nb_execution_mode = "off"
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

# autodoc: the signature as the code has it; the docstring and the docments comments come through lpdocs.
autodoc_typehints = "signature"
autodoc_member_order = "bysource"
autodoc_class_signature = "mixed"
autodoc_inherit_docstrings = False
python_use_unqualified_type_names = True
add_module_names = False

html_theme = "sphinx_book_theme"
html_title = project
html_static_path = ["_static"]
html_css_files = ["lpdocs.css"]
html_theme_options = {
    "repository_url": ini["git_url"],
    "repository_branch": ini["branch"],
    "path_to_docs": "docs",
    "use_repository_button": True,
    "use_download_button": False,  # it offers the page's source, which the site does not copy (html_copy_source)
    "show_toc_level": 2,
    "navigation_with_keys": False,
}
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
