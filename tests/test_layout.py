"""The folders show the architecture (issue 43): the top level of kalkulator/ holds only packages and its entry
modules, and no two modules share a name in different folders (a name then says which module it is)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import kalkulator

ROOT = Path(kalkulator.__file__).parent
ENTRY_MODULES = {"__init__.py", "__main__.py"}


def duplicate_names(root: Path) -> dict[str, list[str]]:
    """Module file name → its paths, for the names more than one folder uses (__init__.py aside)."""
    names = Counter(p.name for p in root.rglob("*.py") if p.name != "__init__.py")
    return {
        name: sorted(str(p.relative_to(root)) for p in root.rglob(name)) for name, count in names.items() if count > 1
    }


def test_top_level_holds_only_packages_and_entry_modules():
    assert sorted(p.name for p in ROOT.glob("*.py")) == sorted(ENTRY_MODULES)


def test_no_two_modules_share_a_name():
    assert duplicate_names(ROOT) == {}


def test_a_shared_name_is_found(tmp_path):
    for folder in ("a", "b", "b/c"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "a" / "plan.py").write_text("")
    (tmp_path / "b" / "c" / "plan.py").write_text("")
    (tmp_path / "b" / "only.py").write_text("")
    assert duplicate_names(tmp_path) == {"plan.py": ["a/plan.py", "b/c/plan.py"]}
