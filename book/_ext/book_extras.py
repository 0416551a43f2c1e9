"""Sphinx additions of the book (loaded through ``sphinx.local_extensions`` in ``_config.yml``).

- ``bibtex_default_style: authoryear``: the bibliography labels each entry the way the text cites it,
  "[Vaswani et al., 2017]" (sphinxcontrib-bibtex's ``author_year`` reference style), instead of pybtex's
  "[VSP+17]"; entries sorted by author, year and title.
- A ``{ref}`` to a section whose title contains maths shows the maths (Sphinx writes such a title into
  the link as raw TeX: "Scores are divided by \\sqrt{d_k}, ...").
- In the PDF, a square root in a title ("Why divide by √dₖ": titles are plain text so that the HTML navigation
  shows them without MathJax), and in the links that show that title, is typeset as maths, √ over dₖ, instead
  of a bare radical sign before the letters.
- In the PDF, the chapters of the table of contents' "Appendices" part are lettered appendices (A, B, ...),
  as in a printed book, instead of chapters 16, 17, ... continuing the numbering of the main text.
- Alt text for cell-output images: an image without alt text is described by its figure caption (the cell's
  ``mystnb.figure.caption``) or, for an uncaptioned figure, by the section it appears in, instead of Sphinx's
  default, the image's hashed file path.
"""

from __future__ import annotations

import posixpath
import re

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle


def _last_names(person) -> str:
    return " ".join(name.render_as("text") for name in person.rich_last_names)


class AuthorYearLabelStyle(BaseLabelStyle):
    """ "Vaswani et al., 2017"; "Ba and Kingma, 2016"; a, b, ... where two entries would get one label."""

    def format_labels(self, sorted_entries):
        labels = []
        for entry in sorted_entries:
            persons = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [_last_names(p) for p in persons]
            if not names:
                who = entry.fields.get("organization", entry.fields.get("title", entry.key))
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            labels.append(f"{who}, {entry.fields.get('year', 'n.d.')}")
        counts = {label: labels.count(label) for label in labels}
        seen: dict[str, int] = {}
        for label in labels:
            if counts[label] > 1:
                seen[label] = seen.get(label, 0) + 1
                label = f"{label}{'abcdefghijklmnopqrstuvwxyz'[seen[label] - 1]}"
            yield label


class AuthorYearStyle(UnsrtStyle):
    default_label_style = AuthorYearLabelStyle
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)


def _section_title(node: nodes.Node) -> str:
    while node is not None:
        if isinstance(node, nodes.section) and node.children and isinstance(node.children[0], nodes.title):
            return node.children[0].astext()
        node = node.parent
    return ""


def add_alt_text(app, doctree: nodes.document, docname: str) -> None:
    for image in doctree.findall(nodes.image):
        if image.get("alt"):
            continue
        figure = image.parent if isinstance(image.parent, nodes.figure) else None
        caption = next(iter(figure.findall(nodes.caption)), None) if figure is not None else None
        if caption is not None:
            image["alt"] = caption.astext()
        else:
            section = _section_title(image)
            image["alt"] = f"Figure drawn by the code above (section: {section})" if section else "Figure drawn by the code above"


def _title_with_maths(env, cache: dict, docname: str, labelid: str) -> nodes.title | None:
    if docname not in cache:
        try:
            cache[docname] = env.get_doctree(docname)
        except Exception:  # a page Sphinx has no doctree for (genindex, search)
            cache[docname] = None
    doctree = cache[docname]
    if doctree is None:
        return None
    for section in doctree.findall(nodes.section):
        if labelid in section["ids"] and section.children and isinstance(section.children[0], nodes.title):
            title = section.children[0]
            return title if any(True for _ in title.findall(nodes.math)) else None
    return None


def maths_in_reference_titles(app, doctree: nodes.document, docname: str) -> None:
    from sphinx.util.nodes import clean_astext

    env, cache = app.builder.env, {}
    for reference in list(doctree.findall(nodes.reference)):
        if not reference.get("internal") or len(reference.children) != 1:
            continue
        inline = reference.children[0]
        if not isinstance(inline, nodes.inline) or "std-ref" not in inline.get("classes", []):
            continue
        if reference.get("refid"):
            target_doc, labelid = docname, reference["refid"]
        else:
            uri, _, labelid = reference.get("refuri", "").partition("#")
            if not labelid:
                continue
            if uri.startswith("%"):  # the LaTeX builder's internal references: %docname#id
                target_doc = uri[1:]
            else:  # HTML: a page relative to this one
                target_doc = posixpath.normpath(posixpath.join(posixpath.dirname(docname), uri))
                target_doc = target_doc.removesuffix(app.builder.out_suffix if hasattr(app.builder, "out_suffix") else "")
            if target_doc not in env.all_docs:
                continue
        title = _title_with_maths(env, cache, target_doc, labelid)
        if title is None or clean_astext(title) != inline.astext():
            continue
        inline.children = []
        for child in title.children:
            inline += child.deepcopy()


_SUBSCRIPTS = dict(zip("ₐₑₒₓₕₖₗₘₙₚₛₜ₀₁₂₃₄₅₆₇₈₉", "aeoxhklmnpst0123456789", strict=True))
_ROOT_IN_TITLE = re.compile(r"√([A-Za-z])([" + "".join(_SUBSCRIPTS) + r"]*)")


def _ancestors(node: nodes.Node):
    while node.parent is not None:
        node = node.parent
        yield node


def roots_in_titles_as_maths(app, doctree: nodes.document, docname: str) -> None:
    """LaTeX only: "√dₖ" in a title, or in a link that shows a title, becomes the math node \\sqrt{d_{k}}.

    Text in code and cell outputs (literal nodes) is left as it is.
    """
    if app.builder.format != "latex":
        return
    for text in list(doctree.findall(nodes.Text)):
        if "√" not in text or any(isinstance(a, (nodes.literal_block, nodes.literal, nodes.raw)) for a in _ancestors(text)):
            continue
        pieces = _ROOT_IN_TITLE.split(str(text))
        if len(pieces) == 1:
            continue
        new: list[nodes.Node] = []
        for i in range(0, len(pieces) - 1, 3):
            before, letter, subscript = pieces[i : i + 3]
            if before:
                new.append(nodes.Text(before))
            sub = "".join(_SUBSCRIPTS[c] for c in subscript)
            latex = rf"\sqrt{{{letter}_{{{sub}}}}}" if sub else rf"\sqrt{{{letter}}}"
            new.append(nodes.math(latex, latex))
        if pieces[-1]:
            new.append(nodes.Text(pieces[-1]))
        text.parent.replace(text, new)


APPENDICES_PART = "\\part{Appendices}"  # the caption of the last part in _toc.yml


def rewrite_latex_documents(app, exception, transform) -> None:
    """After a successful LaTeX build, replace each written .tex by ``transform(tex, targetname)``."""
    if exception is not None or app.builder.format != "latex":
        return
    for _, targetname, *_ in app.config.latex_documents:
        path = posixpath.join(app.outdir, targetname)
        with open(path, encoding="utf-8") as f:
            tex = f.read()
        with open(path, "w", encoding="utf-8") as f:
            f.write(transform(tex, targetname))


def _appendix_before_appendices_part(tex: str, targetname: str) -> str:
    if tex.count(APPENDICES_PART) != 1:
        raise RuntimeError(f"{targetname}: expected one {APPENDICES_PART} (the last part of _toc.yml)")
    return tex.replace(APPENDICES_PART, "\\appendix\n" + APPENDICES_PART)


def lettered_appendices(app, exception) -> None:
    """LaTeX only: ``\\appendix`` before the Appendices part, so its chapters are lettered A, B, ... ."""
    rewrite_latex_documents(app, exception, _appendix_before_appendices_part)


def _is_thebe_script(script) -> bool:
    filename = str(getattr(script, "filename", "") or "")
    body = str(getattr(script, "attributes", {}).get("body", ""))
    return filename.endswith("sphinx-thebe.js") or "THEBE_JS_URL" in body or "thebe@" in filename


def no_unused_network_scripts(app, pagename, templatename, context, doctree):
    """Drop sphinx-thebe's scripts from every page: the book has no Thebe button (its launch buttons are Colab
    and Binder links), yet jupyter-book loads sphinx_thebe, which wrote the CDN address of thebe's bundle
    (THEBE_JS_URL, unpkg.com) into every page. A page names no network resource it does not need."""
    scripts = context.get("script_files")
    if scripts:
        context["script_files"] = [script for script in scripts if not _is_thebe_script(script)]


def setup(app):
    app.connect("html-page-context", no_unused_network_scripts)
    app.connect("build-finished", lettered_appendices)
    app.connect("doctree-resolved", roots_in_titles_as_maths)
    app.connect("doctree-resolved", add_alt_text)
    app.connect("doctree-resolved", maths_in_reference_titles)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
