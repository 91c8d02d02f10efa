"""Sphinx configuration of the API reference (built by tox -e api-ref).

Self-contained: the pages use os-api-ref's ``rest_method`` directive
spelling, rendered here by a few lines of our own so that the build needs
Sphinx alone.
"""

from docutils import nodes
from docutils.parsers.rst import Directive

project = "Bare Metal API reference"
extensions: list[str] = []
master_doc = "index"
exclude_patterns = ["_build"]
# Resource pages are .inc files pulled into index.rst, not documents.
source_suffix = {".rst": "restructuredtext"}
html_theme = "alabaster"


class RestMethod(Directive):
    """``.. rest_method:: GET /v1/path``: the request line, set apart."""

    required_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list:
        line = nodes.paragraph(classes=["rest-method"])
        line += nodes.literal(text=self.arguments[0])
        return [line]


def setup(app) -> dict:
    app.add_directive("rest_method", RestMethod)
    return {"parallel_read_safe": True}
