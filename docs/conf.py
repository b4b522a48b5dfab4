"""Sphinx configuration of the documentation site.

    pip install ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The markdown pages are read by myst-parser as they are: their code already ran
and their output blocks are checked by the tests (``docs/run_docs.py``), so the
site does not run them again.  The gallery (``examples/``) runs at build time
(sphinx-gallery); the tutorial is also offered as a notebook (``notebooks.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the local extensions notebooks.py and plain_docstrings.py

import lpboosting  # noqa: E402

project = "lpboosting"
author = "the lpboosting developers"
copyright = "the lpboosting developers"
release = version = lpboosting.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself, not from a CDN
    "sphinx_gallery.gen_gallery",
    "notebooks",
    "plain_docstrings",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_notebooks/*.ipynb", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]

# -- markdown pages ----------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# fenced blocks without a language (diagrams, printed output) are shown as they are
highlight_language = "none"
pygments_style = "sphinx"

# -- API reference -----------------------------------------------------------------------------
autosummary_generate = True
templates_path = ["_templates"]  # a class page: its docstring and its own members
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_numpy_docstring = True
napoleon_google_docstring = True  # "Attributes:" of a few records
napoleon_use_rtype = False

# -- gallery -----------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # every example runs
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "show_memory": False,
    "image_scrapers": ("matplotlib",),
}

# -- notebooks of pages ------------------------------------------------------------------------
notebook_pages = ["tutorial-duality"]

# -- HTML --------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"lpboosting {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 4,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
# the pages at the top level have no section to navigate: no left sidebar (the API reference and
# the gallery keep theirs)
html_sidebars = {"*": [], "api": ["sidebar-nav-bs"], "auto_examples/*": ["sidebar-nav-bs"]}
html_copy_source = False
