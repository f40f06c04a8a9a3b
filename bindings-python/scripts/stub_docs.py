"""One source for the documentation: the Rust ``///`` docs of the binding, which PyO3 makes
the runtime docstrings (what ``help()`` shows), are copied into ``_native.pyi`` (what an
IDE hover shows), so the two never disagree.

    python bindings-python/scripts/stub_docs.py --check   # fail listing every difference
    python bindings-python/scripts/stub_docs.py --write   # rewrite the stub's docstrings

Every class of the stub and every non-dunder method and property in it must have a
runtime docstring; the stub's docstring is that text, ``inspect.cleandoc``-normalized.
Constructors are documented in the class docstring (CPython shows no ``__new__`` doc).
"""

from __future__ import annotations

import ast
import inspect
import pathlib
import sys

import memory_core._native as native

STUB = pathlib.Path(__file__).resolve().parents[1] / "python" / "memory_core" / "_native.pyi"


def runtime_doc(class_name: str, member: str | None) -> str | None:
    cls = getattr(native, class_name, None)
    if cls is None:
        return None
    if member is None:
        doc = cls.__doc__
    else:
        try:
            found = inspect.getattr_static(cls, member)
        except AttributeError:
            return None
        # A staticmethod's own __doc__ is the staticmethod type's; the function's is wanted.
        if isinstance(found, (staticmethod, classmethod)):
            found = found.__func__
        doc = found.__doc__
    return inspect.cleandoc(doc) if doc else None


def docstring_lines(doc: str, indent: int) -> list[str]:
    pad = " " * indent
    lines = doc.replace('"""', '\\"\\"\\"').split("\n")
    if len(lines) == 1:
        return [f'{pad}"""{lines[0]}"""']
    body = [f'{pad}"""{lines[0]}'] + [f"{pad}{line}" if line else "" for line in lines[1:]]
    body[-1] += '"""'
    return body


def targets(tree: ast.Module) -> list[tuple[str, str | None, ast.ClassDef | ast.FunctionDef]]:
    found: list[tuple[str, str | None, ast.ClassDef | ast.FunctionDef]] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        found.append((node.name, None, node))
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                found.append((node.name, item.name, item))
    return found


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    text = STUB.read_text(encoding="utf-8")
    lines = text.split("\n")
    tree = ast.parse(text)
    problems: list[str] = []
    edits: list[tuple[int, int, list[str]]] = []  # (first line, last line, new lines), 0-based
    for class_name, member, node in targets(tree):
        where = f"{class_name}.{member}" if member else class_name
        wanted = runtime_doc(class_name, member)
        if wanted is None:
            problems.append(f"{where}: no runtime docstring (add a /// doc in the Rust source)")
            continue
        first = node.body[0]
        has_doc = (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
        )
        current = inspect.cleandoc(first.value.value) if has_doc else None  # type: ignore[union-attr]
        if current == wanted:
            continue
        problems.append(f"{where}: the stub's docstring differs from the runtime one")
        indent = node.col_offset + 4
        new = docstring_lines(wanted, indent)
        if has_doc:
            edits.append((first.lineno - 1, (first.end_lineno or first.lineno) - 1, new))
        elif (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and first.value.value is Ellipsis
            and first.lineno == first.end_lineno
            and len(node.body) == 1
        ):
            row = first.lineno - 1
            head = lines[row][: first.col_offset].rstrip()
            edits.append((row, row, [head] + new))
        else:
            row = first.lineno - 1
            edits.append((row, row - 1, new))
    if mode == "--write":
        for start, end, new in sorted(edits, key=lambda e: e[0], reverse=True):
            lines[start : end + 1] = new
        STUB.write_text("\n".join(lines), encoding="utf-8")
        print(f"rewrote {len(edits)} docstrings of {STUB}")
        return 0
    for problem in problems:
        print(f"{STUB.name}: {problem}", file=sys.stderr)
    if problems:
        print("run: python bindings-python/scripts/stub_docs.py --write", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
