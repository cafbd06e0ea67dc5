"""Second oracle: LibreOffice recalculates the workbook headless and must agree with the engine.

Skipped without LibreOffice, except in CI (CI=true), where its absence is a failure.
"""

from __future__ import annotations

import os

import pytest

from kalkulator.build import check_with_libreoffice, verification_passes
from kalkulator.workbook.libreoffice import soffice
from kalkulator.workbook.verify import InputSet

if soffice() is None:
    if os.environ.get("CI") == "true":
        pytest.fail("LibreOffice is required in CI (install libreoffice-calc-nogui)", pytrace=False)
    pytest.skip("LibreOffice is not installed", allow_module_level=True)


def test_libreoffice_agrees_on_every_cell_under_every_input_set(catalog, built_id, tmp_path):
    passes = [InputSet(p.name, p.settings) for p in verification_passes(catalog, built_id.layout)]
    report = check_with_libreoffice("id", catalog, passes, tmp_path)
    assert report.mismatches == []
    assert report.cells_checked == len(built_id.layout.formulas) * len(passes)
