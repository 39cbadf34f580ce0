"""Sphinx configuration of gemmkit's documentation (docs/, built by tools/test-all.sh).

The pages are Markdown (MyST); the API reference is generated from the
docstrings of the installed package (numpydoc sections through napoleon),
so build it with the virtualenv that has gemmkit installed:

    python -m sphinx -W --keep-going -b html docs build/docs
"""

from __future__ import annotations

import gemmkit

project = "gemmkit"
author = "The gemmkit developers"
copyright = "2026, The gemmkit developers"
# The package's own version (cpp/include/gemmkit/version.h, the one source).
release = gemmkit.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
# Headings become link targets, so pages can link to sections (page.md#anchor).
myst_heading_anchors = 3

# numpydoc-style sections (Parameters, Returns, Raises, Examples, ...).
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "alabaster"
html_title = f"gemmkit {release}"
html_theme_options = {"description": "Fast GEMM for CPUs and WebAssembly", "fixed_sidebar": True}
