"""Messages name the option and its bound (issue 37 part 6): filters that name nothing, a replica size above the
largest, an unknown KALKULATOR_LANG, a repeated --set, a pasted 130 KB value, a GGUF with no context length."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest
from click.testing import CliRunner

from kalkulator.cli import main


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.mark.parametrize(
    ("option", "value", "what"),
    [("--gpus", ",", "GPU"), ("--formats", " , ", "weight format"), ("--engines", ",,", "engine")],
)
def test_a_filter_of_commas_names_nothing_and_says_so(option, value, what):
    result = run("plan", option, value)
    assert result.exit_code == 2
    assert f"{option}: {value!r} names no {what}" in result.stderr  # not "the search space is empty"


def test_a_replica_above_the_largest_is_refused_with_the_bound():
    result = run("plan", "--sizes", "1,2000")
    assert result.exit_code == 2
    assert "--sizes: 2,000 GPUs per replica is above the largest" in result.stderr and "1,024" in result.stderr


def test_an_unknown_language_is_said_once_not_silently_replaced():
    result = run("hitung", env={"KALKULATOR_LANG": "xx", "LANG": "C.UTF-8"})
    assert result.exit_code == 0
    assert result.stderr.count("note: KALKULATOR_LANG='xx' is not id or en; using en") == 1
    assert "SUMMARY" in result.stdout  # English, as said


def test_a_name_set_twice_is_an_error_not_the_last_one():
    result = run("hitung", "--set", "n_gpus=1", "--set", "n_gpus=2")
    assert result.exit_code == 2
    assert "--set n_gpus is given twice ('1' and '2'); give it once" in result.stderr


def test_a_pasted_value_is_echoed_by_its_start_and_length():
    pasted = "x" * 130_000
    result = run("hitung", "--set", f"gpu_name={pasted}")
    assert result.exit_code == 2
    assert "(130,000 characters)" in result.stderr and "is not in the gpu catalog" in result.stderr
    assert len(result.stderr) < 1_000  # the name is not echoed whole


def test_a_gguf_without_a_context_length_names_the_file_and_field(tmp_path: Path):
    path = tmp_path / "ctx0.gguf"
    writer = gguf.GGUFWriter(path, "llama")
    writer.add_block_count(1)
    writer.add_embedding_length(64)
    writer.add_head_count(4)
    writer.add_head_count_kv(2)
    writer.add_context_length(0)
    writer.add_token_list([f"t{i}" for i in range(32)])
    writer.add_tensor("token_embd.weight", np.zeros((32, 64), dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    result = run("hitung", "--gguf", str(path), "--gpu", "RTX 3090 24GB")
    assert result.exit_code == 2
    assert f"{path}: llama.context_length: must be > 0" in result.stderr
