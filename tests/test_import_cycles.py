"""No import cycle among kalkulator's modules: data flows one way (STYLE.md), so each module imports only below it.

Imports are read from the source (ast), at module level and inside functions alike: a function-level import
that closes a cycle is still a cycle, only deferred. Imports under `if TYPE_CHECKING:` never run and are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import kalkulator


def module_imports(root: Path, package: str) -> dict[str, set[str]]:
    """Module → the package's modules it imports (`from a.b import c` counts a.b.c when that is a module)."""
    files = {}
    for path in root.rglob("*.py"):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def known(name: str) -> str:
        while name not in files:
            name = name.rpartition(".")[0]
        return name

    edges: dict[str, set[str]] = {}
    for module, path in files.items():
        found: set[str] = set()
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {known(a.name) for a in node.names if a.name.split(".")[0] == package}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == package:
                module_of = node.module or ""
                found |= {
                    f"{module_of}.{a.name}" if f"{module_of}.{a.name}" in files else known(module_of)
                    for a in node.names
                }
        edges[module] = found - {module}
    return edges


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_kalkulator_has_no_import_cycle():
    root = Path(kalkulator.__file__).parent
    assert cycles(module_imports(root, "kalkulator")) == []


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    # pkg.a imports pkg.b at the top; pkg.b imports pkg.a inside a function; pkg.c is only typed against pkg.a
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
    (pkg / "d.py").write_text("import pkg.c\n")
    edges = module_imports(pkg, "pkg")
    assert edges["pkg.c"] == set()
    assert edges["pkg.d"] == {"pkg.c"}
    assert cycles(edges) == [["pkg.a", "pkg.b"]]
