"""Sphinx configuration of spe's documentation site.

    pip install -e ".[docs]"
    sphinx-build -W docs docs/_build/html

Pages are MyST markdown (so they read on GitHub too); the API reference is generated from
the numpydoc docstrings; the gallery is built by sphinx-gallery from ``examples/``, whose
scripts run at every build (their printed output and figures are never stale).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import spe  # noqa: E402

project = "spe"
author = "the spe developers"
copyright = "2026, the spe developers"
release = version = spe.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
]
highlight_language = "text"  # unlabelled blocks are program output, not Python
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**.ipynb_checkpoints", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.codeobj.json"]
suppress_warnings = ["myst.header"]

# Figures on the user-guide pages are drawn at build time from the code beside them, so they
# never go stale: matplotlib's plot directive, as ```{plot} or inside ```{eval-rst}.
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_pre_code = "import numpy as np\nimport matplotlib.pyplot as plt\nimport spe"


def _plot_directive_in_myst():
    """Let ```{plot} run in MyST pages. The plot directive hands its output (a figure and
    the source) back as reStructuredText lines through ``state_machine.insert_input``,
    which MyST's mock state machine lacks; parse them as MyST parses an eval-rst block."""
    try:
        from myst_parser.mdit_to_docutils.base import make_document
        from myst_parser.mocking import MockRSTParser, MockStateMachine
    except ImportError:  # another MyST layout: pages use ```{eval-rst} instead
        return
    if "insert_input" in vars(MockStateMachine):
        return

    def insert_input(self, input_lines, source):
        document = make_document()
        document["source"] = self.document["source"]
        document.settings = self.document.settings
        document.reporter = self.reporter
        MockRSTParser().parse("\n".join(input_lines), document)
        self._renderer.current_node.extend(document.children)

    MockStateMachine.insert_input = insert_input


_plot_directive_in_myst()

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "plot_gallery": "True",
}

html_theme = "pydata_sphinx_theme"
html_title = f"spe {version}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_static_path = ["_static"]
html_css_files = ["spe.css"]
html_show_sourcelink = False


def _skip_scikit_learn_members(app, what, name, obj, skip, options):
    """scikit-learn's own methods on spe.sklearn's estimators (``set_fit_request``, the mixins'
    ``score``) are documented by scikit-learn, and their docstrings cross-reference its site."""
    module = getattr(obj, "__module__", "") or ""
    return True if module.startswith("sklearn") else None


def setup(app):
    app.connect("autodoc-skip-member", _skip_scikit_learn_members)
