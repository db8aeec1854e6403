# Copyright (c) 2026, the Silero VAD on Ethos-U contributors.
#
# This source code is licensed under the BSD-style license found in the
# LICENSE file in the root directory of this source tree.

"""The layout by role: what a product copies imports nothing from verification or the
lab, the C++ runtime folder holds no Python but its build helpers, and the backend code
imports nothing from the example."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[4]
EXAMPLE = REPO_ROOT / "examples" / "arm" / "silero_vad"
PACKAGE = "examples.arm.silero_vad"
# The folders a product copies (README.md says so).
PRODUCT = ("model_export", "streaming", "runtime")
# Python in the C++ runtime folder: the bare-metal build's helpers only.
RUNTIME_BUILD_HELPERS = {"__init__.py", "bake_arrays.py", "pool_sizes.py", "object_sizes.py"}


def _imported_modules(path: Path) -> set[str]:
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


@pytest.mark.parametrize("folder", PRODUCT)
def test_what_a_product_copies_imports_only_the_product(folder: str) -> None:
    allowed = tuple(f"{PACKAGE}.{name}" for name in PRODUCT)
    for path in sorted((EXAMPLE / folder).rglob("*.py")):
        ours = {m for m in _imported_modules(path) if m.startswith(PACKAGE + ".")}
        foreign = sorted(m for m in ours if not m.startswith(allowed))
        assert not foreign, f"{path.relative_to(REPO_ROOT)} imports {foreign}"


def test_the_cpp_runtime_folder_holds_cpp_and_its_build_helpers() -> None:
    python = {path.name for path in (EXAMPLE / "runtime").rglob("*.py")}
    assert python <= RUNTIME_BUILD_HELPERS, sorted(python - RUNTIME_BUILD_HELPERS)


def test_backend_code_imports_nothing_from_the_example() -> None:
    backend = REPO_ROOT / "backends" / "arm"
    for path in sorted(backend.rglob("*.py")):
        if "test" in path.relative_to(backend).parts:
            continue
        examples = sorted(m for m in _imported_modules(path) if m.startswith("examples"))
        assert not examples, f"{path.relative_to(REPO_ROOT)} imports {examples}"
        assert (
            "silero"
            not in path.read_text(encoding="utf-8")
            .replace("the Silero VAD on Ethos-U contributors", "")
            .lower()
        ), f"{path.relative_to(REPO_ROOT)} names the model"


def test_readme_is_short_and_starts_with_the_two_commands() -> None:
    lines = (REPO_ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, len(lines)
    commands = "\n".join(lines[:6])
    assert "examples/arm/silero_vad/run.sh" in commands
    assert "backends/arm/test/test_silero_vad.sh" in commands
    product = [line for line in lines if "**copy**" in line]
    for folder in PRODUCT:
        assert any(f"examples/arm/silero_vad/{folder}/" in line for line in product), folder
