"""Reads stay bounded: devices, pipes, endless or deeply nested files and absurd option values are clear errors
(exit 2) — never a hang, a traceback or memory without limit."""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys

import pytest
from click.testing import CliRunner
from standins import ZERO, device_node, unix_socket

from kalkulator.cli import main
from kalkulator.io.paths import CATALOG_DIR


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.csv"
    os.mkfifo(path)  # opening it for reading would wait for a writer forever
    return path


def test_scenarios_from_a_pipe_or_a_socket(fifo, tmp_path):
    for path in (str(fifo), str(unix_socket(tmp_path / "sock"))):
        result = run("hitung", "--scenarios", path)
        assert result.exit_code == 2
        assert f"{path}: not a regular file (a device, pipe or socket)" in result.stderr


def test_scenarios_from_a_device(tmp_path):
    path = str(device_node(tmp_path / "zero", ZERO))  # a stand-in for /dev/zero, made in tmp_path
    result = run("hitung", "--scenarios", path)
    assert result.exit_code == 2
    assert f"{path}: not a regular file (a device, pipe or socket)" in result.stderr


def test_a_catalog_file_that_is_a_pipe_or_a_link_to_a_device(tmp_path):
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    (folder / "gpus.csv").unlink()
    (folder / "gpus.csv").symlink_to(device_node(tmp_path / "zero", ZERO))
    result = run("hitung", "--catalog", str(folder))
    assert result.exit_code == 2 and "gpus.csv: not a regular file" in result.stderr


def test_verify_of_a_device(tmp_path):
    path = device_node(tmp_path / "zero", ZERO)
    result = run("verify", str(path))
    assert result.exit_code == 2 and f"{path}: not a regular file" in result.stderr


def test_config_json_with_a_huge_integer_or_deep_nesting(tmp_path):
    big = tmp_path / "big.json"
    big.write_text('{"architectures": ["LlamaForCausalLM"], "hidden_size": ' + "9" * 5000 + "}", encoding="utf-8")
    result = run("hitung", "--config", str(big))
    assert result.exit_code == 2 and "a number too long to be a model figure (a 5000-digit integer)" in result.stderr
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' + "[" * 200_000 + "]" * 200_000 + "}", encoding="utf-8")
    result = run("hitung", "--config", str(deep))
    assert result.exit_code == 2 and "nested too deeply" in result.stderr


def test_a_tiny_gguf_claiming_a_billion_element_array_under_a_memory_limit(tmp_path):
    key = b"general.bogus"
    data = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + struct.pack("<Q", len(key)) + key
    data += struct.pack("<IIQ", 9, 4, 10**9)  # an array of 10^9 uint32: 4 GB claimed by a 259-byte file
    path = tmp_path / "bogus.gguf"
    path.write_bytes(data + b"\0" * (259 - len(data)))
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
        "sys.argv = ['kalkulator', 'hitung', '--gguf', sys.argv[1]]; "
        "from kalkulator.cli import main; main()"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "an array of 1,000,000,000 values (key 1) needs 4,000,000,000 bytes" in done.stderr


@pytest.mark.parametrize(
    ("option", "value"), [("--speedup", "1e-300"), ("--users", "100000000"), ("--output-tokens", "1000000000")]
)
def test_simulate_options_stay_in_their_domain(option, value):
    result = run("simulate", "--no-wait", option, value)
    assert result.exit_code == 2 and f"Invalid value for '{option}'" in result.output


def _zip_with(path, name: str, data: bytes) -> None:
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr(name, data)


def test_a_zip_bomb_workbook_is_refused_before_it_is_unzipped(tmp_path):
    """64 MB of zeros packs to about 64 KB (1000×); real spreadsheet XML packs 10–30× (the shipped one: about 16×)."""
    bomb = tmp_path / "bomb.xlsx"
    _zip_with(bomb, "xl/worksheets/sheet1.xml", bytes(64 * 1_000_000))
    result = run("verify", str(bomb))
    assert result.exit_code == 2
    assert "part xl/worksheets/sheet1.xml unzips" in result.stderr and "zip bomb" in result.stderr


@pytest.mark.slow
def test_build_check_reports_a_zip_bomb_in_dist_as_unreadable(tmp_path):
    out = tmp_path / "dist"
    assert run("build", "--out", str(out)).exit_code == 0
    _zip_with(out / "kalkulator.xlsx", "xl/worksheets/sheet1.xml", bytes(64 * 1_000_000))
    result = run("build", "--out", str(out), "--check")
    assert result.exit_code == 1
    assert "kalkulator.xlsx: unreadable" in result.output and "zip bomb" in result.output


def test_verify_does_not_follow_a_formula_into_another_file(tmp_path):
    """A formula naming a workbook elsewhere ('/etc/[passwd]Sheet1'!A1) would make an evaluator open that file."""
    import zipfile

    from kalkulator.io.paths import default_out_dir

    shipped = default_out_dir() / "kalkulator.xlsx"
    linked = tmp_path / "linked.xlsx"
    with zipfile.ZipFile(shipped) as zin, zipfile.ZipFile(linked, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "xl/worksheets/sheet2.xml":
                data = data.replace(b"<f>", b"<f>'/etc/[passwd]Sheet1'!A1+", 1)
            zout.writestr(item, data)
    result = run("verify", str(linked))
    assert result.exit_code == 2
    assert "a formula names another workbook ('/etc/[passwd]Sheet1'!" in result.stderr
