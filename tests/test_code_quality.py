"""ruff and mypy are part of the test run, and the chat-platform boundary holds."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.code_checks import MYPY, ROOT, start_mypy

PLATFORM_PACKAGES = ("slack_bolt", "slack_sdk", "botbuilder", "aiohttp")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean(request: pytest.FixtureRequest) -> None:
    process = request.config.stash.get(MYPY, None) or start_mypy()  # started at collection
    output, _ = process.communicate(timeout=600)
    assert process.returncode == 0, output


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_pipeline_and_knowledge_import_no_chat_platform() -> None:
    offenders = []
    for folder in (ROOT / "bot" / "conversation", ROOT / "knowledge"):
        for path in folder.rglob("*.py"):
            for name in imported_modules(path):
                if name.split(".")[0] in PLATFORM_PACKAGES:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_knowledge_does_not_depend_on_the_chat_side() -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "knowledge").rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] == "bot"
    ]
    assert offenders == []


KNOWLEDGE = ROOT / "knowledge"
FACADE = {"service", "evaluation"}  # the knowledge side as one object, and its measuring


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def packages() -> dict[str, set[str]]:
    """Each sub-package of knowledge/ and the sibling packages its `__init__` docstring says
    it may import ("May import the shared modules of `knowledge`, `models` and `store`.")."""
    allowed = {}
    for init in sorted(KNOWLEDGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        rule = doc[doc.find("May import") :]
        assert rule, f"{init.relative_to(ROOT)}: the docstring must say what it may import"
        names = set(re.findall(r"`([a-z_]+)`", rule)) - {"knowledge"}
        allowed[init.parent.name] = names
    return allowed


def knowledge_imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """The knowledge modules `path` imports; `top_level_only`: those imported when it is
    (an import under `if TYPE_CHECKING:` counts, one inside a function does not)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    tops = [t for t in tree.body if not isinstance(t, ast.FunctionDef | ast.ClassDef)]
    nodes = [n for t in (tops if top_level_only else [tree]) for n in ast.walk(t)]
    names = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from knowledge.store import chunks` imports a module
                sub = f"{node.module}.{alias.name}"
                names.add(
                    sub
                    if (ROOT / sub.replace(".", "/")).with_suffix(".py").exists()
                    else node.module
                )
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
    return {n for n in names if n.startswith("knowledge.")}


def test_knowledge_packages_import_only_what_their_docstring_allows() -> None:
    allowed = packages()
    assert {"reading", "models", "store", "search", "ingest"} <= allowed.keys()
    offenders = []
    for path in KNOWLEDGE.rglob("*.py"):
        own = path.relative_to(KNOWLEDGE).parts
        home = own[0] if len(own) > 1 else None  # None: a shared module or the facade
        if home is None and path.stem in FACADE:
            continue
        for name in knowledge_imports(path):
            target = name.split(".")[1]
            if target == home or ((KNOWLEDGE / f"{target}.py").exists() and target not in FACADE):
                continue  # its own package, or a shared module
            if home is None or target not in allowed.get(home, set()):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_knowledge_has_no_import_circle() -> None:
    graph = {
        module_name(path): knowledge_imports(path, top_level_only=True)
        for path in KNOWLEDGE.rglob("*.py")
    }
    circles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph.get(node, set()):
                if nxt == start:
                    circles.append(" -> ".join([*trail, nxt]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    assert circles == []
