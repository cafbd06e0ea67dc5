"""Catalogs: coverage of the shipped rows and clear errors (file:row:column) for bad ones."""

from __future__ import annotations

import csv

import pytest

from kalkulator.catalog import CatalogError, load_catalog


def test_shipped_catalogs_are_large_enough(catalog):
    assert len(catalog["gpu"].rows) >= 60
    assert len(catalog["model"].rows) >= 40
    assert len(catalog["quant"].rows) >= 30
    assert {"F16", "Q8_0", "FP8", "Q4_0"} <= set(catalog["kv_cache"].names)
    assert {"llama.cpp", "vllm", "tensorrt-llm", "sglang", "exllamav2", "mlc-llm"} == set(catalog["engine"].names)


# The buyer's figures of each device family, from the vendors' spec sheets (memory in GB as sold, bandwidth in GB/s):
# NVIDIA product pages and datasheets (GeForce RTX 3090/4090/5090, RTX A6000, RTX 6000 Ada, V100, L4, L40S, A100,
# H100, H200, DGX B200, DGX Spark), AWS EC2 G5 for the A10G, AMD's RX 7900 XTX and Instinct MI300X pages, Intel's
# Gaudi 3 whitepaper and Arc B580 page, Apple's technical specifications; CPUs: channels × 8 bytes × MT/s.
@pytest.mark.parametrize(
    ("name", "vram", "bandwidth_gbs"),
    [
        ("RTX 3090 24GB", 24, 936),
        ("RTX 4090 24GB", 24, 1008),
        ("RTX 5090 32GB", 32, 1792),
        ("RTX A6000 48GB", 48, 768),
        ("RTX 6000 Ada 48GB", 48, 960),
        ("V100 SXM2 32GB", 32, 900),
        ("A10G 24GB", 24, 600),
        ("L4 24GB", 24, 300),
        ("L40S 48GB", 48, 864),
        ("A100 PCIe 40GB", 40, 1555),
        ("A100 SXM 80GB", 80, 2039),
        ("H100 SXM 80GB", 80, 3350),
        ("H100 NVL 94GB", 94, 3900),
        ("H200 SXM 141GB", 141, 4800),
        ("B200 180GB", 180, 8000),
        ("DGX Spark GB10 128GB", 128, 273),
        ("RX 7900 XTX 24GB", 24, 960),
        ("Instinct MI300X 192GB", 192, 5300),
        ("Gaudi 3 128GB", 128, 3700),
        ("Arc B580 12GB", 12, 456),
        ("Apple M2 Ultra 192GB", 192, 800),
        ("Apple M4 Max 128GB", 128, 546),
        ("CPU DDR5-6400 dual-channel", 64, 2 * 8 * 6400 / 1000),
        ("CPU DDR5-4800 12-channel server", 768, 12 * 8 * 4800 / 1000),
    ],
)
def test_gpu_rows_carry_the_spec_sheet_memory_and_bandwidth(catalog, name, vram, bandwidth_gbs):
    row = catalog["gpu"].find(name)
    assert (row["vram_gib"], row["mem_bandwidth_gbs"]) == (vram, pytest.approx(bandwidth_gbs, rel=1e-12))


# Each model's shape as its config.json on Hugging Face gives it (num_hidden_layers, hidden_size,
# num_key_value_heads; Llama 4 and Gemma 3 in text_config): huggingface.co/<org>/<model>/blob/main/config.json.
@pytest.mark.parametrize(
    ("name", "layers", "hidden", "kv_heads"),
    [
        ("Llama-2-7B", 32, 4096, 32),
        ("Llama-3-8B", 32, 4096, 8),
        ("Llama-3.1-405B", 126, 16384, 8),
        ("Llama-3.2-1B", 16, 2048, 8),
        ("Llama-3.3-70B", 80, 8192, 8),
        ("Llama-4-Scout-17B-16E", 48, 5120, 8),
        ("Qwen2.5-72B", 80, 8192, 8),
        ("Qwen3-30B-A3B", 48, 2048, 4),
        ("Gemma-3-27B", 62, 5376, 16),
        ("Mixtral-8x22B", 56, 6144, 8),
        ("DeepSeek-R1", 61, 7168, 128),
        ("Phi-4", 40, 5120, 10),
        ("gpt-oss-120b", 36, 2880, 8),
    ],
)
def test_model_rows_carry_the_config_shape(catalog, name, layers, hidden, kv_heads):
    row = catalog["model"].find(name)
    assert (row["layers"], row["hidden"], row["kv_heads"]) == (layers, hidden, kv_heads)


def test_every_row_has_source_and_date(catalog):
    for table in catalog.tables.values():
        for row in table.rows:
            assert row["source"] and row["as_of"], (table.schema.key, row["name"])


def _replace_line(path, line_no, edit):
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[line_no - 1] = edit(lines[line_no - 1])
    path.write_text("".join(lines), encoding="utf-8")


def _set_field(path, line_no, column, value):
    header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    idx = header.index(column)

    def edit(line):
        fields = line.rstrip("\n").split(",")
        fields[idx] = value
        return ",".join(fields) + "\n"

    _replace_line(path, line_no, edit)


@pytest.mark.parametrize(
    ("file", "line", "column", "value", "message"),
    [
        ("gpus.csv", 3, "mem_bandwidth_gbs", "fast", "gpus.csv:3:mem_bandwidth_gbs: 'fast' is not a number"),
        ("gpus.csv", 4, "vram_gib", "-24", "gpus.csv:4:vram_gib: -24 must be from 0 (exclusive) to 100,000"),
        ("gpus.csv", 5, "backend", "opencl", "gpus.csv:5:backend: 'opencl' is not one of"),
        ("gpus.csv", 6, "as_of", "last year", "gpus.csv:6:as_of: 'last year' is not a date"),
        ("gpus.csv", 7, "source", "", "gpus.csv:7:source: required value is blank"),
        ("gpus.csv", 8, "name", "=HYPERLINK(1)", "gpus.csv:8:name: '=HYPERLINK(1)' must not start with"),
        ("gpus.csv", 9, "name", "RTX*", "gpus.csv:9:name: 'RTX*' must not contain *"),
        ("models.csv", 2, "layers", "32.5", "models.csv:2:layers: '32.5' is not a whole number"),
        ("models.csv", 3, "active_params_b", "999", "models.csv:3:active_params_b: greater than params_b"),
        ("quants.csv", 2, "bits_per_weight", "nan", "quants.csv:2:bits_per_weight: 'nan' is not a finite number"),
        # The architecture minimum of vLLM's AWQ row (7.5) typed as a name or below 0.
        (
            "engine_support.csv",
            41,
            "min_compute_capability",
            "Turing",
            "engine_support.csv:41:min_compute_capability: 'Turing' is not a number",
        ),
        (
            "engine_support.csv",
            41,
            "min_compute_capability",
            "-1",
            "engine_support.csv:41:min_compute_capability: -1 must be from 0 to 99",
        ),
        (
            "speed_params.csv",
            2,
            "decode_efficiency_frac",
            "1.5",
            "speed_params.csv:2:decode_efficiency_frac: 1.5 must be from 0 (exclusive) to 1",
        ),
    ],
)
def test_bad_field_names_file_row_and_column(catalog_copy, file, line, column, value, message):
    _set_field(catalog_copy / file, line, column, value)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert any(message in m for m in err.value.messages), err.value.messages


def test_duplicate_name_is_reported_with_both_lines(catalog_copy):
    path = catalog_copy / "gpus.csv"
    first = path.read_text(encoding="utf-8").splitlines()[1].split(",")[0]
    _set_field(path, 5, "name", first.lower())
    with pytest.raises(CatalogError, match=r"gpus.csv:5:name: .* duplicates line 2"):
        load_catalog(catalog_copy)


def test_wrong_header_is_reported(catalog_copy):
    _replace_line(catalog_copy / "quants.csv", 1, lambda line: line.replace("bits_per_weight", "bpw"))
    with pytest.raises(CatalogError, match=r"quants.csv:1: header must be .*missing bits_per_weight.*unexpected bpw"):
        load_catalog(catalog_copy)


def test_missing_file_is_reported(catalog_copy):
    (catalog_copy / "engines.csv").unlink()
    with pytest.raises(CatalogError, match="engines.csv: file not found"):
        load_catalog(catalog_copy)


def test_all_errors_are_collected(catalog_copy):
    _set_field(catalog_copy / "gpus.csv", 2, "tdp_w", "x")
    _set_field(catalog_copy / "models.csv", 2, "vocab", "y")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert len(err.value.messages) == 2


def test_an_offer_cheaper_than_the_first_for_its_gpu_is_an_error(catalog_copy):
    # The workbook takes each GPU's first cloud offer as its cheapest: a cheaper one further down must be caught.
    path = catalog_copy / "cloud_gpus.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.append("Cheap H100 SXM,Test,H100 SXM 80GB,1,1.00,,,global,unspecified,datacenter,test row,2026-12-01\n")
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    (message,) = err.value.messages
    assert message.startswith(f"{path}:{len(lines)}:name: 'Cheap H100 SXM' is cheaper per GPU than")
    assert "list each GPU's cheapest offer first" in message


def _edit_first_row(path, column, value) -> str:
    """Set `column` of the first data row through the csv module (values may hold commas); return the old value."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    old, rows[1][rows[0].index(column)] = rows[1][rows[0].index(column)], value
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")
    return old


def test_catalog_values_outside_the_column_domain_are_errors(catalog_copy):
    # One bound for the CSV row and the formulas: a model has from 1 to 10,000 layers (catalog_schema.MODEL).
    path = catalog_copy / "models.csv"
    _edit_first_row(path, "layers", "20000")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert err.value.messages == [f"{path}:2:layers: 20000 must be a whole number from 1 to 10,000"]


def test_a_figure_cited_by_its_own_source_column_needs_that_column(catalog_copy):
    # The first GPU row gives link figures; without its link_source nobody can check them.
    path = catalog_copy / "gpus.csv"
    assert _edit_first_row(path, "link_source", "")  # the premise: line 2 cites its interconnect figures
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    (message,) = err.value.messages
    assert message.startswith(f"{path}:2:link_source: blank, but link_kind, ")
    assert message.endswith(" given; say where they come from")


def test_an_engine_without_speed_parameters_is_an_error(catalog_copy):
    path = catalog_copy / "engines.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    vllm = next(line for line in lines if line.startswith("vllm,"))
    lines.append("newengine" + vllm[len("vllm") :])  # vLLM's row under a name speed_params.csv has no row for
    path.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert err.value.messages == [
        f"{path}:{len(lines)}:name: engine 'newengine' has no speed parameters; add a row "
        "newengine/any to speed_params.csv (or run kalkulator calibrate)"
    ]


def test_a_street_price_needs_its_source_and_date(catalog_copy):
    path = catalog_copy / "gpus.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    line = next(i for i, row in enumerate(rows, 1) if row[0] == "T4 16GB")
    rows[line - 1][rows[0].index("street_price_usd")] = "900"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(catalog_copy)
    assert any(f"gpus.csv:{line}:street_source: required when street_price_usd" in m for m in err.value.messages)
