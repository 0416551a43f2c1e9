"""Find claims that cannot fail in a chapter: typed verdicts and numbers typed into prose.

Used by tests/book/test_notebooks.py and runnable by hand:
    python tools/claim_lint.py book/ch02_attention.ipynb    # lists what it finds

1. Typed verdicts: a string literal in a code cell whose text is a verdict word
   ("agrees", "wrong", "unsourced", ...), alone or followed by ":" or " (".
   Verdicts come from ``bk.claims`` (a rule applied to values), so a flipped
   value flips the printed verdict.
2. Typed computed values: the ``computed=`` (or ``values``) of an audit call
   (``Audit.check``, the errata's ``erratum`` and ``printed_claim``) that is a
   literal, or an expression with no call whose names are all bound, in this
   notebook, only to literals (``computed=not keeps_softmax`` after
   ``keeps_softmax = True``). Such a value replays a verdict typed by hand: compute
   it from code, or make the ledger record a citation (``bk.ledger.cited``).
3. Unglued numbers: a number in a markdown cell, outside maths, code, roles
   ({glue}, {cite}, {ref}, ...), labels and links, that is not a section,
   equation, table, figure, chapter or step number, not a year or a source
   document's name, not a small count (0-12), not written in a sentence that
   cites its source ({cite...} or "paper"/"Table"/"§" reference), and does not
   appear in an output of the same notebook.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

VERDICT_WORDS = (
    "agrees", "agree", "wrong", "unsourced", "imprecise", "unsupported", "correct", "incorrect",
    "assumed", "not derivable", "confirmed", "misreads the paper", "wrong reason", "ok", "fails", "holds",
    "inherited", "circular",
)  # fmt: skip
_VERDICT = re.compile(r"^(" + "|".join(re.escape(w) for w in VERDICT_WORDS) + r")(\s*$|:|\s\(|\s-|,)", re.IGNORECASE)


def _code_strings(source: str) -> list[str]:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append(node.value)
        elif isinstance(node, ast.JoinedStr):  # the literal parts of an f-string
            found.extend(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return found


def typed_verdicts(notebook: dict) -> list[str]:
    hits = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        for text in _code_strings("".join(cell["source"])):
            if _VERDICT.match(text.strip()):
                hits.append(f"cell {index}: {text.strip()!r}")
    return hits


_STRIP = [
    re.compile(r"```.*?```", re.S),  # fenced blocks (directives, code)
    re.compile(r":::.*?\n", re.S),  # colon-fence openers
    re.compile(r"\$\$.*?\$\$", re.S),  # display maths
    re.compile(r"\$[^$\n]+\$"),  # inline maths
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {glue}`x`, {cite}`x`, {ref}`x`, {eq}`x` ...
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"^\([\w:-]+\)=\s*$", re.M),  # labels
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"<[^>]+>"),  # html tags
    re.compile(r"^:[\w-]+:.*$", re.M),  # directive options
]
_NUMBER = re.compile(r"(?<![\w.§/-])(\d+(?:[ ,\u202f\u2009]\d{3})*(?:\.\d+)?)(?![\w%]|\.\d)")
_REFERENCE_BEFORE = re.compile(
    r"(§|section|sections|chapter|chapters|table|tables|figure|figures|fig\.|eq\.|eqs\.|equation|equations|step|steps|"
    r"document|documents|appendix|footnote|line|lines|page|pages|p\.|theorem|row|rows|part|parts|exercise|version|"
    r"python|torch|pytorch|jupyter book|layer|layers|head|heads|stop|issue|rule|column|columns|cell|cells)[\s.:(]*$",
    re.IGNORECASE,
)
_CITED_SENTENCE = re.compile(r"\{cite[\w:]*\}|§|\bTable \d|\bEq\. \d|\bSection \d|\bpaper\b|\bthe paper's\b", re.IGNORECASE)


def _normalise(number: str) -> str:
    return re.sub(r"[ ,\u202f\u2009]", "", number)


def _output_text(notebook: dict) -> str:
    parts = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", "")))
            for mime, data in output.get("data", {}).items():
                if "text" in mime or "markdown" in mime:
                    parts.append("".join(data) if isinstance(data, list) else str(data))
    text = "\n".join(parts)
    return text + "\n" + _normalise(text)


def unglued_numbers(notebook: dict) -> list[str]:
    outputs = _output_text(notebook)
    hits = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for pattern in _STRIP:
            text = pattern.sub(" ", text)
        for sentence in re.split(r"(?<=[.;!?])\s+|\n\s*\n|\n[-*] ", text):
            cited = bool(_CITED_SENTENCE.search(sentence))
            for match in _NUMBER.finditer(sentence):
                number = match.group(1)
                plain = _normalise(number)
                before = sentence[max(0, match.start() - 20) : match.start()]
                if cited or _REFERENCE_BEFORE.search(before):
                    continue
                if re.fullmatch(r"00\d", plain) or re.fullmatch(r"(19|20)\d\d", plain):
                    continue  # a source document's name, a year
                if "." not in plain and int(plain) <= 12:
                    continue  # a small count written as a numeral
                if number in outputs or plain in outputs:
                    continue
                hits.append(f"cell {index}: {number!r} in {sentence.strip()[:90]!r}")
    return hits


def _literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _code_trees(notebook: dict) -> list[tuple[int, ast.AST, str]]:
    trees: list[tuple[int, ast.AST, str]] = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in "".join(cell["source"]).splitlines())
        try:
            trees.append((index, ast.parse(source), source))
        except SyntaxError:
            continue
    return trees


def _literal_names(trees: list[tuple[int, ast.AST, str]]) -> set[str]:
    """Names whose every binding in the notebook (assignment, loop, parameter, import) is a literal."""
    bound: dict[str, bool] = {}

    def bind(target: ast.AST, literal: bool) -> None:
        if isinstance(target, ast.Name):
            bound[target.id] = bound.get(target.id, True) and literal
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                bind(element, literal)

    for _, tree, _ in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(node.value, (ast.Tuple, ast.List)):
                        for element, value in zip(target.elts, node.value.elts, strict=False):
                            bind(element, _literal(value))
                    else:
                        bind(target, _literal(node.value))
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                bind(node.target, node.value is not None and _literal(node.value) and isinstance(node, ast.AnnAssign))
            elif isinstance(node, (ast.For, ast.comprehension)):
                bind(node.target, False)
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)):
                for argument in ast.walk(node.args):
                    if isinstance(argument, ast.arg):
                        bound[argument.arg] = False
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    bound[(alias.asname or alias.name).split(".")[0]] = False
            elif isinstance(node, ast.NamedExpr):
                bind(node.target, _literal(node.value))
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                root = node.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name):
                    bound[root.id] = False  # filled in item by item: its values are whatever is stored
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                bound[node.func.value.id] = False  # a method call (append, update, ...) may fill it
            elif isinstance(node, (ast.With, ast.ExceptHandler)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                        bound[sub.id] = False
    return {name for name, literal in bound.items() if literal}


def _arithmetic(node: ast.AST) -> bool:
    """Arithmetic on numbers only (0.9**100, 0.1 / 36_999): the document's own arithmetic, recomputed."""
    if not any(isinstance(sub, ast.BinOp) for sub in ast.walk(node)):
        return False
    allowed = (ast.BinOp, ast.UnaryOp, ast.operator, ast.unaryop, ast.Constant, ast.Tuple, ast.List, ast.expr_context)
    return all(isinstance(sub, allowed) for sub in ast.walk(node)) and all(
        isinstance(sub.value, (int, float)) for sub in ast.walk(node) if isinstance(sub, ast.Constant)
    )


def _typed(node: ast.AST, literal_names: set[str]) -> bool:
    if _literal(node):
        return True
    if _arithmetic(node):
        return False
    if any(isinstance(sub, (ast.Call, ast.Await, ast.Yield, ast.Lambda)) for sub in ast.walk(node)):
        return False
    names = [sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name)]
    return all(name in literal_names for name in names)


AUDIT_CALLS = {"check": "computed", "erratum": "computed", "printed_claim": "values"}


def typed_computed(notebook: dict) -> list[str]:
    """Audit calls whose computed value is typed by hand (see the module docstring, rule 2)."""
    trees = _code_trees(notebook)
    literal_names = _literal_names(trees)
    hits = []
    for index, tree, source in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name not in AUDIT_CALLS:
                continue
            values = [k.value for k in node.keywords if k.arg == AUDIT_CALLS[name]]
            if name == "printed_claim" and len(node.args) >= 3:
                values.append(node.args[2])
            for value in values:
                if _typed(value, literal_names):
                    hits.append(f"cell {index}: {AUDIT_CALLS[name]}={ast.get_source_segment(source, value)}")
    return hits


def main(paths: list[str]) -> int:
    total = 0
    for name in paths:
        notebook = json.loads(Path(name).read_text())
        verdicts, typed, numbers = typed_verdicts(notebook), typed_computed(notebook), unglued_numbers(notebook)
        total += len(verdicts) + len(typed) + len(numbers)
        print(f"{name}: {len(verdicts)} typed verdicts, {len(typed)} typed computed values, {len(numbers)} unglued numbers")
        for hit in verdicts + typed + numbers:
            print("   ", hit)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
