"""Writers only write files (issue 37 part 3), output never crashes on a narrow encoding (part 6), and every
`--json` output is strict JSON (part 2, the JSON part).

Every special file is made inside tmp_path (FIFOs, symlinks, sockets; a device node only as root, by os.mknod):
no test touches the machine's real devices or system files.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import LLAMA_3_8B
from standins import device_node as _device
from standins import unix_socket as _socket

from kalkulator.cli import main
from kalkulator.io.files import OutputError, check_output, write_atomic
from kalkulator.io.staging import write_outputs
from kalkulator.io.textout import NULL_BECAUSE, json_text

REPO = Path(__file__).resolve().parents[1]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def refused(result, option: str, path: Path, why: str) -> None:
    """Exit 2 with `error: OPTION: PATH: … WHY …` on stderr, no traceback."""
    assert result.exit_code == 2, result.output
    assert f"error: {option}: {path}" in result.stderr and why in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def no_temporaries(folder: Path) -> None:
    assert [p.name for p in folder.iterdir() if p.name.endswith(".tmp") or "staging" in p.name] == []


def test_absent_and_regular_outputs_are_allowed(tmp_path):
    check_output(tmp_path / "new.csv")
    (tmp_path / "old.csv").write_text("x")
    check_output(tmp_path / "old.csv", [tmp_path / "other.csv", None])
    check_output(tmp_path / "no-folder" / "new.csv")


@pytest.mark.parametrize(
    "make, why",
    [
        (lambda p: os.mkfifo(p), "is a pipe (FIFO), not a regular file"),
        (lambda p: p.mkdir(), "is a folder, not a regular file"),
        (_socket, "is a socket, not a regular file"),
        (_device, "is a device, not a regular file"),
        (lambda p: os.symlink("elsewhere.csv", p), "is a symbolic link (to elsewhere.csv)"),
    ],
    ids=["fifo", "folder", "socket", "device", "dangling-link"],
)
def test_a_non_file_output_is_refused_and_kept(tmp_path, make, why):
    target = tmp_path / "out"
    make(target)
    kind = os.lstat(target).st_mode
    with pytest.raises(OutputError, match=rf"^{target}: {why}".replace("(", r"\(").replace(")", r"\)")):
        write_atomic(target, b"data")
    assert os.lstat(target).st_mode == kind
    no_temporaries(tmp_path)


def test_a_link_to_a_file_is_refused_not_written_through(tmp_path):
    (tmp_path / "real.csv").write_text("kept")
    os.symlink(tmp_path / "real.csv", tmp_path / "link.csv")
    with pytest.raises(OutputError, match="is a symbolic link"):
        write_atomic(tmp_path / "link.csv", b"new")
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "real.csv").read_text() == "kept"


def test_an_output_that_is_an_input_is_refused_by_inode(tmp_path):
    source = tmp_path / "in.csv"
    source.write_text("rows")
    os.link(source, tmp_path / "hard.csv")  # another name, the same file
    os.symlink(source, tmp_path / "to-input.csv")
    for output, given in [(source, source), (tmp_path / "hard.csv", source), (source, tmp_path / "to-input.csv")]:
        with pytest.raises(OutputError, match=rf"is also an input of this command \({given}\)"):
            write_atomic(output, b"new", inputs=[given])
    assert source.read_text() == "rows"


def test_a_set_of_outputs_with_a_link_among_them_changes_nothing(tmp_path):
    out = tmp_path / "dist"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (tmp_path / "shared.txt").write_text("not ours")
    os.symlink(tmp_path / "shared.txt", out / "b.txt")
    with pytest.raises(OutputError, match="b.txt: is a symbolic link"):
        write_outputs(out, {"a.txt": b"new a", "b.txt": b"new b"})
    assert (out / "a.txt").read_text() == "old a" and (tmp_path / "shared.txt").read_text() == "not ours"
    assert (out / "b.txt").is_symlink()
    no_temporaries(out)


# --- every writer of the command line -----------------------------------------------------------------------


@pytest.fixture()
def scenarios(tmp_path) -> Path:
    path = tmp_path / "s.csv"
    path.write_text("context_tokens\n4096\n", encoding="utf-8")
    return path


def test_hitung_out_refuses_a_fifo(tmp_path, scenarios):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused(run("hitung", "--scenarios", str(scenarios), "--out", str(fifo)), "--out", fifo, "is a pipe (FIFO)")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    no_temporaries(tmp_path)


def test_hitung_out_refuses_a_device(tmp_path, scenarios):
    dev = _device(tmp_path / "dev")
    refused(run("hitung", "--scenarios", str(scenarios), "--out", str(dev)), "--out", dev, "is a device")
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_hitung_out_refuses_a_socket(tmp_path, scenarios):
    sock = _socket(tmp_path / "sock")
    refused(run("hitung", "--scenarios", str(scenarios), "--out", str(sock)), "--out", sock, "is a socket")
    assert stat.S_ISSOCK(os.lstat(sock).st_mode)


def test_hitung_out_refuses_a_folder(tmp_path, scenarios):
    result = run("hitung", "--scenarios", str(scenarios), "--out", str(tmp_path))
    assert result.exit_code == 2 and "'--out'" in result.stderr and "is a directory" in result.stderr


def test_hitung_out_refuses_a_link(tmp_path, scenarios):
    (tmp_path / "results.csv").write_text("earlier results")
    os.symlink("results.csv", tmp_path / "latest.csv")
    link = tmp_path / "latest.csv"
    refused(run("hitung", "--scenarios", str(scenarios), "--out", str(link)), "--out", link, "is a symbolic link")
    assert os.readlink(link) == "results.csv" and (tmp_path / "results.csv").read_text() == "earlier results"


def test_hitung_out_refuses_its_own_inputs(tmp_path, scenarios, catalog_copy):
    before = scenarios.read_bytes()
    result = run("hitung", "--scenarios", str(scenarios), "--out", str(scenarios))
    refused(result, "--out", scenarios, f"is also an input of this command ({scenarios})")
    os.link(scenarios, tmp_path / "same.csv")
    result = run("hitung", "--scenarios", str(scenarios), "--out", str(tmp_path / "same.csv"))
    refused(result, "--out", tmp_path / "same.csv", "is also an input")
    assert scenarios.read_bytes() == before
    gpus = catalog_copy / "gpus.csv"
    shipped = gpus.read_bytes()
    result = run("hitung", "--scenarios", str(scenarios), "--catalog", str(catalog_copy), "--out", str(gpus))
    refused(result, "--out", gpus, f"is also an input of this command ({gpus})")
    assert gpus.read_bytes() == shipped
    no_temporaries(tmp_path)


def test_hitung_out_still_writes_a_new_and_an_old_file(tmp_path, scenarios):
    for _ in range(2):  # created, then replaced
        result = run("hitung", "--scenarios", str(scenarios), "--out", str(tmp_path / "rows.csv"))
        assert result.exit_code == 0, result.output
        assert (tmp_path / "rows.csv").read_text(encoding="utf-8").splitlines()[1].count(",") > 10


def test_preview_out_refuses_a_link_and_an_input(tmp_path, catalog_copy):
    (tmp_path / "page.html").write_text("old page")
    os.symlink("page.html", tmp_path / "preview.html")
    link = tmp_path / "preview.html"
    refused(run("preview", "--out", str(link)), "--out", link, "is a symbolic link")
    assert link.is_symlink() and (tmp_path / "page.html").read_text() == "old page"
    models = catalog_copy / "models.csv"
    shipped = models.read_bytes()
    result = run("preview", "--catalog", str(catalog_copy), "--out", str(models))
    refused(result, "--out", models, "is also an input")
    assert models.read_bytes() == shipped


@pytest.mark.parametrize("special", ["link", "fifo"])
def test_build_refuses_a_special_output_before_building(tmp_path, special):
    out = tmp_path / "dist"
    out.mkdir()
    target = out / "kalkulator-en.xlsx"
    if special == "link":
        (tmp_path / "mine.xlsx").write_bytes(b"my own workbook")
        os.symlink(tmp_path / "mine.xlsx", target)
    else:
        os.mkfifo(target)
    result = run("build", "--lang", "en", "--out", str(out))
    refused(result, "--out", target, "is a symbolic link" if special == "link" else "is a pipe (FIFO)")
    assert "wrote" not in result.stdout and sorted(p.name for p in out.iterdir()) == ["kalkulator-en.xlsx"]
    if special == "link":
        assert target.is_symlink() and (tmp_path / "mine.xlsx").read_bytes() == b"my own workbook"


def test_model_add_refuses_a_linked_models_csv(tmp_path, catalog_copy):
    folder = tmp_path / "Probe-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_3_8B), encoding="utf-8")
    models = catalog_copy / "models.csv"
    real = tmp_path / "models-real.csv"
    shutil.move(models, real)
    os.symlink(real, models)
    before = real.read_bytes()
    result = run("model", "add", "--from-config", str(folder / "config.json"), "--catalog", str(catalog_copy))
    refused(result, "--catalog", models, "is a symbolic link")
    assert models.is_symlink() and real.read_bytes() == before
    assert not list(catalog_copy.glob(".model-add-*"))


def test_calibrate_refuses_a_linked_catalog_file_and_its_input_as_output(tmp_path, catalog_copy):
    speed = catalog_copy / "speed_params.csv"
    result = run("calibrate", str(speed), "--gpu", "RTX 4090 24GB", "--model", "x", "--catalog", str(catalog_copy))
    refused(result, "--catalog", speed, f"is also an input of this command ({speed})")
    real = tmp_path / "speed-real.csv"
    shutil.move(speed, real)
    os.symlink(real, speed)
    before = real.read_bytes()
    refused(run("calibrate", "--catalog", str(catalog_copy)), "--catalog", speed, "is a symbolic link")
    assert speed.is_symlink() and real.read_bytes() == before


# --- encodings ----------------------------------------------------------------------------------------------


def _kalkulator(args: list[str], encoding: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": encoding, "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "kalkulator", *args], capture_output=True, env=env, cwd=REPO, timeout=300
    )


def test_cp1252_output_escapes_what_it_cannot_print(tmp_path):
    """What Windows gives `kalkulator hitung --full > out.txt`: α (U+03B1) is not in cp1252."""
    done = _kalkulator(["hitung", "--full"], "cp1252")
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    text = done.stdout.decode("cp1252")
    (line,) = [ln for ln in text.splitlines() if ln.rstrip().endswith(" spec_acceptance_frac")]
    assert "(\\u03b1)" in line


def test_cp1252_error_messages_and_json_do_not_crash(tmp_path):
    done = _kalkulator(["hitung", "--gpu", "RTX ≥ 4090"], "cp1252")  # ≥ is U+2265, not in cp1252
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert "RTX \\u2265 4090" in done.stderr.decode("cp1252")
    done = _kalkulator(["hitung", "--full", "--json"], "cp1252")
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    values = json.loads(done.stdout.decode("cp1252"))  # an escape inside a JSON string is the character itself
    assert values["spec_acceptance_frac"] == pytest.approx(0.7)


def test_ascii_output_does_not_crash():
    done = _kalkulator(["hitung", "--full"], "ascii")
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr.decode("utf-8", "replace")
    assert "spec_acceptance_frac" in done.stdout.decode("utf-8")  # click re-opens an ASCII stream as UTF-8


# --- strict JSON ----------------------------------------------------------------------------------------------


def _strict(text: str):
    """json.loads that raises on the Infinity, -Infinity and NaN tokens JSON does not have."""

    def constant(token: str):
        raise AssertionError(f"{token} is not JSON")

    return json.loads(text, parse_constant=constant)


def test_non_finite_numbers_become_null_with_a_reason():
    data = {"a": math.inf, "b": [math.nan, 1.5], "c": {"d": -math.inf}, "e": np.float64("inf"), "f": 2}
    parsed = _strict(json_text(data))
    assert parsed["a"] is None and parsed["b"] == [None, 1.5] and parsed["c"]["d"] is None and parsed["e"] is None
    assert parsed["f"] == 2
    assert set(parsed[NULL_BECAUSE]) == {"a", "e"} and "infinity" in parsed[NULL_BECAUSE]["a"]
    assert set(parsed["c"][NULL_BECAUSE]) == {"d"}
    assert "NaN" in json_text({"x": math.nan}) and _strict(json_text({"x": math.nan}))["x"] is None
    with pytest.raises(ValueError):  # the guarantee is json.dumps(allow_nan=False): nothing slips past
        json.dumps(math.inf, allow_nan=False)


def test_plan_json_at_zero_demand_is_strict_json():
    result = run("plan", "--set", "requests_per_day=0", "--json")
    assert result.exit_code == 0, result.output
    plan = _strict(result.stdout)
    # no tokens a month: the price per million tokens is a division by zero, so never a number
    per_token = [o["idr_per_1m_tokens"] for o in plan["options"]]
    assert per_token and all(p is None for p in per_token)
    assert all("idr_per_1m_tokens" in o[NULL_BECAUSE] for o in plan["options"])


@pytest.mark.parametrize("demand", ["requests_per_day=0", "tokens_per_month=0"])
def test_hitung_json_at_zero_demand_is_strict_json(demand):
    result = run("hitung", "--set", demand, "--json")
    assert result.exit_code == 0, result.output
    assert isinstance(_strict(result.stdout), dict)


def test_batch_json_lines_at_zero_demand_are_strict_json(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("requests_per_day\n0\n100\n", encoding="utf-8")
    result = run("hitung", "--scenarios", str(path), "--json")
    assert result.exit_code == 0, result.output
    rows = [_strict(line) for line in result.stdout.splitlines()]
    assert [r["requests_per_day"] for r in rows] == [0, 100]


@pytest.mark.parametrize("what", ["gpus", "models", "names"])
def test_list_json_is_strict_json(what):
    result = run("list", what, "--json")
    assert result.exit_code == 0, result.output
    assert all(isinstance(_strict(line), dict) for line in result.stdout.splitlines())
