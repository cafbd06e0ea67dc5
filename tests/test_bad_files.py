"""Bad files and paths: one clear error (file:line:column or the option), exit 2, nothing written, no traceback.

Covers issue 14's probes: scenario CSVs saved by Excel (UTF-8 with a byte-order mark, UTF-16, a Windows code
page), duplicate columns, short rows, file line numbers, empty or missing catalogs, catalogs without the defaults
or the preview's names, corrupt workbooks, unwritable --out, absurd config.json numbers, and formula-looking text
in the CSV output.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import LLAMA_3_8B

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_clear_error(result, message: str) -> None:
    """Exit 2, `error: …` holding `message` on stderr, nothing on stdout, no traceback."""
    assert result.exit_code == 2, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    assert result.stderr.startswith("error: "), result.stderr
    assert message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- scenario CSVs --------------------------------------------------------------------------------------------

SCENARIOS = "gpu_name,model_name,context_tokens\nRTX 4090 24GB,Llama-3.1-8B,2048\nL4 24GB,Qwen2.5-7B,\n"


def _hitung_csv(path: Path):
    return run("hitung", "--scenarios", str(path), "--json")


@pytest.fixture(scope="module")
def utf8_rows(tmp_path_factory) -> list[dict]:
    path = tmp_path_factory.mktemp("csv") / "in.csv"
    path.write_text(SCENARIOS, encoding="utf-8")
    result = _hitung_csv(path)
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("CSV UTF-8 (Excel: byte-order mark)", b"\xef\xbb\xbf" + SCENARIOS.encode("utf-8")),
        ("UTF-16 LE with BOM", SCENARIOS.encode("utf-16")),  # Python writes the BOM in native order (LE here)
        ("UTF-16 BE with BOM", b"\xfe\xff" + SCENARIOS.encode("utf-16-be")),
        ("Excel Unicode Text (UTF-16, tabs)", b"\xff\xfe" + SCENARIOS.replace(",", "\t").encode("utf-16-le")),
        ("semicolons", SCENARIOS.replace(",", ";").encode("utf-8")),
        ("CRLF and blank lines", SCENARIOS.replace("\n", "\r\n\r\n").encode("utf-8")),
    ],
)
def test_excel_encodings_read_like_utf8(tmp_path, utf8_rows, label, data):
    path = tmp_path / "in.csv"
    path.write_bytes(data)
    result = _hitung_csv(path)
    assert result.exit_code == 0, (label, result.stderr)
    assert [json.loads(line) for line in result.stdout.splitlines()] == utf8_rows


# Each case: file bytes, the expected message. Lines are file lines: blank lines and a quoted cell spanning two
# lines shift them away from record numbers.
BAD_SCENARIOS = {
    "cp1252 byte": (
        "gpu_name,context_tokens\n\nRTX 4090 24GB,2048\nMy GPU \u00e9,2048\n".encode("cp1252"),
        "in.csv:4:gpu_name: byte 0xE9 in b'My GPU \\xe9' is not UTF-8 text (saved in a Windows code page?); "
        "save it as CSV UTF-8",
    ),
    "cp1252 byte in the header": (
        "gpu_name,contexte_\u00e9\n".encode("cp1252"),
        "in.csv:1:column 2: byte 0xE9",
    ),
    "UTF-16 without a byte-order mark": (
        "gpu_name\nRTX 4090 24GB\n".encode("utf-16-le"),
        "in.csv:1: holds NUL bytes, so it is not a CSV text file (UTF-16 without a byte-order mark?)",
    ),
    "UTF-16 cut in the middle of a character": (
        b"\xff\xfe" + "gpu_name\nRTX 4090 24GB\n".encode("utf-16-le") + b"R",
        "in.csv:3: not valid UTF-16 text",
    ),
    "duplicate column": (
        b"gpu_name,context_tokens,gpu_name\nRTX 4090 24GB,2048,L4 24GB\n",
        "in.csv:1:gpu_name: the column appears twice (columns 1 and 3)",
    ),
    "column without a name": (b"gpu_name,,context_tokens\n", "in.csv:1: column 2 has no name in the header row"),
    "short row after blank lines": (
        b"gpu_name,context_tokens\n\nRTX 4090 24GB,2048\n\nL4 24GB\n",
        "in.csv:5: 1 field but the header has 2 columns (a short row;",
    ),
    "long row": (
        b"gpu_name,context_tokens\nRTX 4090 24GB,2048,8192\n",
        "in.csv:2: 3 fields but the header has 2 columns (more fields than header columns)",
    ),
    "bad cell after a quoted newline": (
        b'gpu_name,model_name,context_tokens\n"RTX 4090 24GB",Llama-3.1-8B,"20\n48"\nL4 24GB,Qwen2.5-7B,lots\n',
        "in.csv:2:context_tokens: context_tokens needs a number",
    ),
    "bad cell on the line after a quoted newline": (
        b'gpu_name,model_name,context_tokens\n"RTX 4090 24GB","Llama-3.1-8B\n",2048\nL4 24GB,Qwen2.5-7B,lots\n',
        "in.csv:4:context_tokens: context_tokens needs a number",
    ),
    "quote left open": (
        b'gpu_name,context_tokens\nRTX 4090 24GB,2048\n"L4 24GB,2048\n\n',
        "in.csv:3: not a well-formed CSV record",
    ),
    "empty file": (b"", "in.csv:1: empty file; expected a header row of names"),
    "byte-order mark only": (b"\xef\xbb\xbf", "in.csv:1: empty file"),
    "header only": (b"\n\ngpu_name,context_tokens\n\n", "in.csv:3: no scenario rows below the header"),
}


@pytest.mark.parametrize("case", list(BAD_SCENARIOS))
def test_bad_scenario_file_is_one_clear_error(tmp_path, case):
    data, message = BAD_SCENARIOS[case]
    path = tmp_path / "in.csv"
    path.write_bytes(data)
    assert_clear_error(run("hitung", "--scenarios", str(path)), f"{tmp_path}/{message}")


def test_unknown_column_names_its_file_line(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes(b"\n\ngpu_nam\nRTX 4090 24GB\n")
    assert_clear_error(run("hitung", "--scenarios", str(path)), f"{path}:3:gpu_nam: unknown name 'gpu_nam'")


def test_a_folder_as_scenario_file_is_a_usage_error(tmp_path):
    result = run("hitung", "--scenarios", str(tmp_path))
    assert result.exit_code == 2 and "is a directory" in result.stderr and "Traceback" not in result.stderr


# --- CSV output -----------------------------------------------------------------------------------------------

CUSTOM_GPU = "gpu_mem_bandwidth_gbs,gpu_vram_gib,gpu_fp16_tflops,gpu_fp32_tflops,gpu_tdp_w,gpu_backend,gpu_memory_type"


@pytest.mark.parametrize(
    "name",
    ['=HYPERLINK("http://example.invalid/?x","click")', "+1+2", "-2+3", "@SUM(1)", "\t=1+2", "\r=1+2"],
)
def test_csv_output_escapes_formula_looking_text(tmp_path, name):
    quoted = '"' + name.replace('"', '""') + '"'
    path = tmp_path / "in.csv"
    path.write_text(f"gpu_name,{CUSTOM_GPU}\n{quoted},1000,24,100,25,300,cuda,gddr\n", encoding="utf-8", newline="")
    result = run("hitung", "--scenarios", str(path))
    assert result.exit_code == 0, result.stderr
    header, row = list(csv.reader(io.StringIO(result.stdout)))
    values = dict(zip(header, row, strict=True))
    assert values["gpu_name"] == "'" + name.strip()  # a spreadsheet shows the text, never evaluates it
    for cell in row:
        if cell[:1] in ("=", "+", "@", "\t", "\r"):
            raise AssertionError(f"unescaped cell {cell!r}")
        if cell.startswith("-"):
            float(cell)  # only numbers may start with a minus sign: negative numbers stay numbers
    assert float(values["speed_error_low_frac"]) < 0  # llama.cpp/cuda's lower error band, a negative number


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("RTX 4090 24GB", "RTX 4090 24GB"),
        ("", ""),
        (-0.25, -0.25),
        (-3, -3),
        (True, True),
    ],
)
def test_csv_cell_escapes_text_only(value, written):
    from kalkulator.scenario.batch import _csv_cell

    assert _csv_cell(value) == written


# --- catalogs -------------------------------------------------------------------------------------------------


def _build_fails(catalog: Path, out: Path, message: str) -> None:
    assert_clear_error(run("build", "--catalog", str(catalog), "--out", str(out)), message)
    assert not out.exists()


def test_empty_catalog_file(catalog_copy, tmp_path):
    (catalog_copy / "engines.csv").write_bytes(b"")
    _build_fails(catalog_copy, tmp_path / "out", f"{catalog_copy}/engines.csv:1: empty file; expected the header name,")


def test_folder_in_place_of_a_catalog_file(catalog_copy, tmp_path):
    (catalog_copy / "tariffs.csv").unlink()
    (catalog_copy / "tariffs.csv").mkdir()
    _build_fails(catalog_copy, tmp_path / "out", f"{catalog_copy}/tariffs.csv: is a folder, not a CSV file")


def test_missing_catalog_folder(tmp_path):
    _build_fails(tmp_path / "nowhere", tmp_path / "out", f"--catalog: {tmp_path}/nowhere: no such folder")


def test_missing_catalog_file(catalog_copy, tmp_path):
    (catalog_copy / "hosting.csv").unlink()
    _build_fails(catalog_copy, tmp_path / "out", f"{catalog_copy}/hosting.csv: file not found")


def test_catalog_in_a_windows_code_page(catalog_copy, tmp_path):
    path = catalog_copy / "api_prices.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace(",", ",Caf\u00e9 ", 1)  # the provider column of line 4, saved in cp1252
    path.write_bytes("".join(lines[:3]).encode("utf-8") + lines[3].encode("cp1252") + "".join(lines[4:]).encode())
    _build_fails(catalog_copy, tmp_path / "out", f"{path}:4:provider: byte 0xE9")


def test_catalog_short_row_names_its_file_line(catalog_copy, tmp_path):
    path = catalog_copy / "quants.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    columns = len(lines[0].split(","))  # the header holds no quoted comma
    lines[5] = lines[5].split(",")[0] + "\n"
    lines[2:2] = ["\n", "\n"]  # two blank lines above it: the short row is now line 8 of the file
    path.write_text("".join(lines), encoding="utf-8")
    _build_fails(catalog_copy, tmp_path / "out", f"{path}:8: 1 field but the header has {columns} columns")


def test_catalog_errors_count_quoted_newlines_and_blank_lines(catalog_copy):
    path = catalog_copy / "gpus.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    fields = next(csv.reader([lines[1]]))
    fields[header.index("source")] = "first line\nsecond line"  # a quoted cell over two lines
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(fields)
    bad = next(csv.reader([lines[2]]))
    bad[header.index("tdp_w")] = "hot"
    buf2 = io.StringIO()
    csv.writer(buf2, lineterminator="\n").writerow(bad)
    path.write_text(lines[0] + "\n" + buf.getvalue() + buf2.getvalue() + "".join(lines[3:]), encoding="utf-8")
    # line 1 header, 2 blank, 3-4 the two-line record, 5 the bad record
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy)
    assert info.value.messages == [f"{path}:5:tdp_w: 'hot' is not a number"]


def test_cheapest_offer_error_names_the_file_line(catalog_copy):
    path = catalog_copy / "cloud_gpus.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1:1] = ["\n", "\n", "\n"]
    lines.append("Cheap H100 SXM,Test,H100 SXM 80GB,1,1.00,,,global,unspecified,datacenter,test row,2026-12-01\n")
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog(catalog_copy)
    assert info.value.messages[0].startswith(f"{path}:{len(lines)}:name: 'Cheap H100 SXM' is cheaper per GPU than")


def _drop_rows(path: Path, *prefixes: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if not line.startswith(prefixes)), encoding="utf-8")


@pytest.mark.slow
def test_catalog_without_the_defaults_builds_with_notes(catalog_copy, tmp_path):
    _drop_rows(catalog_copy / "gpus.csv", "RTX 4090 24GB,")
    _drop_rows(catalog_copy / "models.csv", "Llama-3.1-8B,")
    out = tmp_path / "out"
    result = run("build", "--catalog", str(catalog_copy), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "note: the default gpu_name 'RTX 4090 24GB' is not in the gpu catalog" in result.stderr
    assert "note: the default model_name 'Llama-3.1-8B' is not in the model catalog" in result.stderr
    assert (
        "note: preview: the default gpu_name 'RTX 4090 24GB' is not in the catalog; the page starts with"
        in result.stderr
    )
    assert sorted(p.name for p in out.iterdir()) == ["kalkulator-en.xlsx", "kalkulator.xlsx", "preview.html"]
    assert_clear_error(
        run("hitung", "--catalog", str(catalog_copy)), "gpu_name: 'RTX 4090 24GB' is not in the gpu catalog"
    )


# --- workbooks given to verify and build --check --------------------------------------------------------------


def _corrupt(good: bytes) -> dict[str, bytes]:
    """Damaged copies of a workbook: cut short, not a zip at all, and a flipped byte inside a compressed part."""
    with zipfile.ZipFile(io.BytesIO(good)) as z:
        info = max(z.infolist(), key=lambda i: i.compress_size)
    flipped = bytearray(good)
    middle = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
    flipped[middle] ^= 0xFF
    return {"truncated": good[: len(good) // 2], "text": b"hello, not a workbook\n", "bit flip": bytes(flipped)}


@pytest.fixture(scope="module")
def corrupt_workbooks(built_id) -> dict[str, bytes]:
    return _corrupt(built_id.data)


@pytest.mark.parametrize("case", ["truncated", "text", "bit flip"])
def test_verify_a_corrupt_workbook(tmp_path, corrupt_workbooks, case):
    path = tmp_path / "kalkulator.xlsx"
    path.write_bytes(corrupt_workbooks[case])
    assert_clear_error(run("verify", str(path)), f"{path}: not a readable .xlsx workbook (")


def test_verify_a_foreign_workbook(tmp_path):
    import openpyxl

    path = tmp_path / "other.xlsx"
    openpyxl.Workbook().save(path)
    assert_clear_error(run("verify", str(path)), f"{path}: not a kalkulator workbook")


def test_verify_a_workbook_with_an_unreadable_formula(tmp_path, built_id):
    """A formula verify cannot parse (an unclosed parenthesis typed in a copy) is named with its cell, exit 2."""
    path = tmp_path / "kalkulator.xlsx"
    with zipfile.ZipFile(io.BytesIO(built_id.data)) as zin, zipfile.ZipFile(path, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet2.xml":
                start = data.index(b"<f>") + 3
                data = data[:start] + b"1+(2" + data[data.index(b"</f>", start) :]
            zout.writestr(info, data)
    result = run("verify", str(path))
    assert_clear_error(result, f"{path}: {built_id.layout.sheets[1][1]}!")
    assert "'=1+(2': the formula ends too early" in result.stderr


@pytest.mark.parametrize("case", ["truncated", "bit flip"])
def test_build_check_reports_a_corrupt_workbook(tmp_path, corrupt_workbooks, case):
    out = tmp_path / "dist"
    out.mkdir()
    (out / "kalkulator.xlsx").write_bytes(corrupt_workbooks[case])
    before = snapshot(out)
    result = run("build", "--check", "--lang", "id", "--out", str(out))
    assert result.exit_code == 1, result.output  # like any output that is not current
    assert f"{out}/kalkulator.xlsx: unreadable (" in result.stderr and "run `kalkulator build`" in result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(out) == before


# --- unwritable --out -----------------------------------------------------------------------------------------


def test_out_under_a_file(tmp_path):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    out = tmp_path / "a-file" / "dist"
    assert_clear_error(run("build", "--out", str(out)), f"--out: {out}: {tmp_path}/a-file is a file, not a folder")
    assert (tmp_path / "a-file").read_text(encoding="utf-8") == "x"
    assert_clear_error(run("preview", "--out", str(out / "p.html")), "is a file, not a folder")


def test_out_in_a_folder_nobody_can_create(tmp_path):
    """A folder name longer than any file system allows (255 bytes) cannot be made, even by root."""
    out = tmp_path / ("x" * 300) / "dist"
    result = run("build", "--out", str(out))  # the path is echoed clipped: its start and its length
    assert_clear_error(result, "cannot write there (a name of 300 bytes; at most 255)")
    assert result.stderr.startswith(f"error: --out: {str(tmp_path)[:20]}")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes anywhere")
def test_out_in_a_read_only_folder(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert_clear_error(run("build", "--out", str(locked / "dist")), "is not writable")
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


# --- config.json with absurd numbers --------------------------------------------------------------------------


ABSURD = {
    "1e300 layers": ({"num_hidden_layers": 1e300}, "num_hidden_layers: about 1e300 is more than any model has"),
    "10**400 layers": ({"num_hidden_layers": 10**400}, "num_hidden_layers: about 1e400 is more than any model has"),
    "20,000 layers": ({"num_hidden_layers": 20_000}, "layers: 20,000 is more than any model has (at most 10,000)"),
    "negative width": ({"hidden_size": -4096}, "hidden_size: must be >= 1, got -4096"),
    "zero heads": ({"num_attention_heads": 0}, "num_attention_heads: must be >= 1, got 0"),
    "infinite context": ({"max_position_embeddings": 1e400}, "max_position_embeddings: expected a whole number"),
    "huge MLP": ({"intermediate_size": 2**70}, "intermediate_size: about 1e21 is more than any model has"),
    "quadrillions of parameters": (
        {"hidden_size": 4_000_000, "num_attention_heads": 32_000, "num_key_value_heads": 8_000},
        "parameters: about 1e",
    ),
}


@pytest.mark.parametrize("case", list(ABSURD))
def test_absurd_config_is_one_clear_error(tmp_path, case):
    change, message = ABSURD[case]
    folder = tmp_path / "Probe-8B"
    folder.mkdir()
    config = folder / "config.json"
    config.write_text(json.dumps({**LLAMA_3_8B, **change}), encoding="utf-8")
    assert_clear_error(run("hitung", "--config", str(config), "--gpu", "H100 SXM 80GB"), f"{config}: {message}")
    catalog = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, catalog)
    before = snapshot(catalog)
    result = run("model", "add", "--from-config", str(config), "--catalog", str(catalog))
    assert result.exit_code == 2 and f"{config}: {message}" in result.stderr, result.output
    assert "Traceback" not in result.stderr
    assert snapshot(catalog) == before and not list(catalog.glob(".model-add-*"))


def test_a_sane_config_still_imports(tmp_path):
    folder = tmp_path / "Probe-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_3_8B), encoding="utf-8")
    result = run("hitung", "--config", str(folder / "config.json"), "--gpu", "H100 SXM 80GB", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["model_layers"] == 32
