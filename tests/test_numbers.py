"""Numbers as Indonesians and others type them: read when only one convention produces the form, refused with both
readings when the quantity allows both, never a silent guess."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kalkulator.catalog.numbers import NumberFormatError, read_number
from kalkulator.cli import main


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("16500", 16500.0),
        ("2.000.000", 2_000_000.0),  # two thousands points: Indonesian grouping, nothing else
        ("1.234,5", 1234.5),
        ("2,000,000", 2_000_000.0),
        ("1,234.5", 1234.5),
        ("1,5", 1.5),  # a comma with one digit after it is a decimal comma
        ("0,75", 0.75),
        ("0.125", 0.125),  # a leading zero is never a thousands group
        ("1e9", 1e9),
        ("1_000", 1000.0),
    ],
)
def test_unambiguous_forms(text, value):
    assert read_number(text) == value


def test_the_quantity_decides_when_only_one_reading_is_allowed():
    bits = lambda v: 0 < v <= 64  # noqa: E731  (weight bits per parameter)
    assert read_number("4.156", bits) == 4.156  # 4,156 bits per weight is impossible
    assert read_number("1.444", lambda v: v > 100) == 1444.0


@pytest.mark.parametrize(
    ("text", "both"), [("16.500", ("16500", "16.5")), ("16,500", ("16500", "16.5")), ("1.444", ("1444", "1.4440"))]
)
def test_both_readings_allowed_is_refused_showing_both(text, both):
    with pytest.raises(NumberFormatError) as err:
        read_number(text)
    assert f"write {both[0]} or {both[1]}" in str(err.value)


def test_cli_and_scenario_csv_refuse_an_ambiguous_rate(tmp_path):
    result = CliRunner().invoke(main, ["hitung", "--set", "usd_idr=16.500"])
    assert result.exit_code == 2
    assert "--set usd_idr: usd_idr needs a number (Rp): '16.500' is ambiguous: 16500" in result.stderr
    path = tmp_path / "id.csv"  # Excel in an Indonesian locale saves ;-separated files with decimal commas
    path.write_text("gpu_name;electricity_idr_per_kwh;pue\nRTX 4090 24GB;1.444,70;1,3\nRTX 4090 24GB;1.444;1,3\n")
    result = CliRunner().invoke(main, ["hitung", "--scenarios", str(path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert f"{path}:3:electricity_idr_per_kwh: electricity_idr_per_kwh needs a number" in result.stderr
    path.write_text("gpu_name;electricity_idr_per_kwh;pue\nRTX 4090 24GB;1.444,70;1,3\n")
    rows = CliRunner().invoke(main, ["hitung", "--scenarios", str(path), "--json"]).stdout.splitlines()
    row = json.loads(rows[0])
    assert row["electricity_idr_per_kwh"] == 1444.7 and row["pue"] == 1.3
