"""The README is a front door (short, linking every reference page), and the generated parts of the reference pages
are what their generators print today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"


def test_readme_is_a_front_door_linking_every_reference_page():
    assert len(README.encode("utf-8")) <= 20_000
    linked = set(re.findall(r"\]\((docs/[\w-]+\.md)\)", README))
    assert linked == {f"docs/{p.name}" for p in DOCS.glob("*.md")}
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\((?!https?:)([^)#]+)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).resolve().exists(), f"{page.name} links {target}"


def test_the_serving_line_is_what_the_serving_fit_prints():
    from kalkulator.catalog import load_catalog
    from kalkulator.serving_calibration import calibrate_serving, serving_summary

    line = serving_summary(calibrate_serving(load_catalog()))
    assert line in (DOCS / "accuracy.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_accuracy_table_is_what_kalkulator_accuracy_prints():
    from kalkulator import calibration as cal
    from kalkulator.catalog import load_catalog
    from kalkulator.cli.calibration import format_table

    rows = cal.accuracy_table(cal.shipped_report(load_catalog()))
    page = (DOCS / "accuracy.md").read_text(encoding="utf-8")
    assert format_table(rows) in page
    assert cal.summary_line(rows) in page


def test_the_names_contract_is_what_kalkulator_list_names_prints():
    from click.testing import CliRunner

    from kalkulator.cli import main

    page = (DOCS / "names.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- names:begin[^>]*-->\n```text\n(.*?)```\n<!-- names:end -->", page, re.DOTALL)
    assert block, "docs/names.md lost its generated block (between the names:begin and names:end markers)"
    printed = CliRunner().invoke(main, ["list", "names", "--lang", "en"]).stdout
    assert block.group(1) == printed, "regenerate docs/names.md's block with `kalkulator list names --lang en`"
    # The contract names of the design card are all in it (a rename would break users' scripts).
    listed = {line.split()[0] for line in printed.splitlines()}
    assert {"gpu_name", "fits_in_vram", "decode_tok_s", "tco_idr", "breakeven_months", "tokens_per_month"} <= listed
