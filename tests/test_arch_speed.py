"""Speed rows per architecture family (engine/backend.arch@era): chosen before the backend's row, checked by hand
arithmetic from the row's own parameters, and the catalog's `arch` column validated like any enum column."""

from __future__ import annotations

import csv
import shutil

import pytest

from kalkulator.catalog import CatalogError, load_catalog
from kalkulator.io.paths import CATALOG_DIR


def speed_row(name: str) -> dict:
    with open(CATALOG_DIR / "speed_params.csv", newline="", encoding="utf-8") as fh:
        return next(r for r in csv.DictReader(fh) if r["name"] == name)


# Weights only, no KV cache or attention term: the decode step is the weight read ÷ the bandwidth share plus the
# layers' fixed cost, so the expected speed can be written out from the row.
WEIGHTS_ONLY = dict(model_name="Llama-3-8B", quant_name="Q4_0", weights_gb=4.0)
WEIGHTS_ONLY |= dict(decode_user_memory_ms=0.0, decode_user_overhead_ms=0.0, decode_user_compute_ms=0.0)


@pytest.mark.parametrize(
    ("gpu", "family", "backend", "bandwidth_gbs", "memory"),
    [
        # Instinct MI50 (GCN5, gfx906) and MI210 (CDNA2, gfx90a) on ROCm: 1,024 and 1,600 GB/s of HBM2/HBM2e.
        ("Instinct MI50 32GB", "llama.cpp/rocm.GCN5@2025", "llama.cpp/rocm@2025", 1024, "hbm"),
        ("Instinct MI210 64GB", "llama.cpp/rocm.CDNA2@2025", "llama.cpp/rocm@2025", 1600, "hbm"),
        # Arc A770 (Alchemist, Xe-HPG) on SYCL: 560 GB/s of GDDR6.
        ("Arc A770 16GB", "llama.cpp/sycl.Alchemist@2025", "llama.cpp/sycl@2025", 560, "gddr"),
    ],
)
def test_family_row_is_chosen_over_the_backend_row(calc, gpu, family, backend, bandwidth_gbs, memory):
    out = calc(gpu_name=gpu, **WEIGHTS_ONLY)
    assert out["speed_params_name"] == family
    row = speed_row(family)
    share = float(row["decode_efficiency_hbm_frac" if memory == "hbm" else "decode_efficiency_frac"])
    # 4.0 GB ÷ (bandwidth × share) in ms + 32 layers × the row's cost per layer
    step_ms = 4.0e9 / (bandwidth_gbs * 1e9 * share) * 1000 + 32 * float(row["layer_overhead_ms"])
    assert out["decode_tok_s"] == pytest.approx(1000 / step_ms, rel=1e-9)
    # The backend's own row gives another speed: the family row is the one in use.
    other = speed_row(backend)
    other_share = float(other["decode_efficiency_hbm_frac" if memory == "hbm" else "decode_efficiency_frac"])
    other_ms = 4.0e9 / (bandwidth_gbs * 1e9 * other_share) * 1000 + 32 * float(other["layer_overhead_ms"])
    assert out["decode_tok_s"] != pytest.approx(1000 / other_ms, rel=0.01)


def test_architecture_without_its_own_row_takes_the_backend_row(calc):
    # RX 7900 XTX is RDNA3: no llama.cpp/rocm.RDNA3 row, so llama.cpp/rocm@2025; a typed architecture with no row
    # does the same, and a typed GCN5 on any ROCm card picks the family row.
    assert calc(gpu_name="RX 7900 XTX 24GB")["speed_params_name"] == "llama.cpp/rocm@2025"
    assert calc(gpu_name="RX 7900 XTX 24GB", gpu_arch_text="RDNA9")["speed_params_name"] == "llama.cpp/rocm@2025"
    assert calc(gpu_name="RX 7900 XTX 24GB", gpu_arch_text="GCN5")["speed_params_name"] == "llama.cpp/rocm.GCN5@2025"
    assert calc(gpu_name="RTX 4090 24GB")["speed_params_name"] == "llama.cpp/cuda@2025"


def test_instinct_family_pays_a_fixed_cost_per_layer():
    # Why Instinct cards get a row of their own: two MI50s (mixa3607/ML-gfx906 llama.cpp/readme.md, ROCm 6.4.1, layer
    # split, one card at a time) run Qwen3-14B (40 layers) Q4_0, 7.95 GiB, at 38.94 tok/s and BF16, 27.51 GiB, at
    # 19.46 tok/s: 3.5 × the bytes for 2 × the time. The extra 19.56 GiB take 1/19.46 − 1/38.94 = 25.7 ms, so the
    # card streams 21.0 GB ÷ 25.7 ms = 817 GB/s (80 % of 1,024), and 25.7 ms − 7.95 GiB ÷ 817 GB/s = 15.2 ms of
    # each Q4_0 token is fixed: 0.38 ms per layer, 3.5 × the ROCm fit's (RDNA cards).
    extra_s = 1 / 19.46 - 1 / 38.94
    gbs = (27.51 - 7.95) * 2**30 / extra_s / 1e9
    per_layer_ms = (1 / 38.94 - 7.95 * 2**30 / (gbs * 1e9)) * 1000 / 40
    assert (gbs, per_layer_ms) == pytest.approx((817, 0.38), rel=0.01)
    row = speed_row("llama.cpp/rocm.GCN5@2025")
    assert float(row["decode_efficiency_hbm_frac"]) == pytest.approx(gbs / 1024, abs=0.05)
    assert float(row["layer_overhead_ms"]) == pytest.approx(per_layer_ms, abs=0.03)  # the fit adds the hand-over
    assert float(row["layer_overhead_ms"]) > 3 * float(speed_row("llama.cpp/rocm@2025")["layer_overhead_ms"])


def test_bad_arch_value_names_file_row_and_field(tmp_path):
    folder = tmp_path / "assumptions"
    shutil.copytree(CATALOG_DIR, folder)
    path = folder / "gpus.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    col = rows[0].index("arch")
    line = next(i for i, r in enumerate(rows) if r[0] == "Instinct MI50 32GB")
    rows[line][col] = "Vega"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    with pytest.raises(CatalogError) as err:
        load_catalog(folder)
    message = str(err.value)
    assert "gpus.csv" in message and f":{line + 1}" in message and "arch" in message and "'Vega'" in message
    assert "GCN5" in message  # the allowed values are listed


# https://github.com/ggml-org/llama.cpp/pull/17505 (master column): RTX 4090, Llama-3-8B Q4_0 (4.33 GiB), one token
# per micro-batch after 32,768 tokens of context (llama-bench pp512@d32768 -ub 1): 98.14 tok/s, flash attention on.
def test_decode_at_32k_depth_is_not_over_slowed(calc):
    out = calc(
        gpu_name="RTX 4090 24GB",
        model_name="Llama-3-8B",
        quant_name="Q4_0",
        weights_gb=4.33 * 2**30 / 1e9,
        context_tokens=32768 + 256,  # the mean context of 512 steps from depth 32,768
    )
    # The KV cache alone is 32 layers × 8 heads × 128 × 2 (K, V) × 2 bytes × 33,024 = 4.33 GB: at 1,008 GB/s the
    # weights and cache together cap the speed at 1,008 ÷ (4.65 + 4.33) = 112 tok/s; the build's flash attention
    # adds next to nothing beyond reading them (the 2024 builds' 9.6 ns per layer and token would add 10 ms).
    assert out["kv_cache_gb_per_user"] == pytest.approx(32 * 8 * 128 * 2 * 2 * 33024 / 1e9, rel=1e-6)
    assert out["decode_tok_s"] == pytest.approx(98.14, rel=0.15)


def test_metal_2025_takes_the_era_attention_cost():
    # One Metal 2025 device (no decode at depth): its bandwidth share and fixed costs are Metal 2024's, its attention
    # cost at depth the 2025 builds' (flash attention by default), fitted on the CUDA rows at 32K depth.
    metal, cuda = speed_row("llama.cpp/metal@2025"), speed_row("llama.cpp/cuda@2025")
    assert metal["attention_ns"] == cuda["attention_ns"]
    assert metal["decode_efficiency_frac"] == speed_row("llama.cpp/metal@2024")["decode_efficiency_frac"]
    assert float(metal["attention_ns"]) < float(speed_row("llama.cpp/metal@2024")["attention_ns"])


# --- layer kinds: only attention layers keep KV, linear/SSM layers a fixed state, sparse attention a budget -------

HYBRID = dict(context_tokens=32768, kv_cache_type="F16", gpu_name="H100 SXM 80GB", n_gpus=2, concurrent_users=4)


def test_nemotron_nano_2_keeps_kv_on_its_4_attention_layers_only(calc):
    # https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json: 4 of 56 blocks are attention
    # (8 KV heads × head_dim 128), 27 are Mamba-2 (128 heads × 80 × state 128, conv window 3 × 12,288), 25 MLP.
    out = calc(model_name="Nemotron-Nano-9B-v2", **HYBRID)
    kv = 4 * 2 * 8 * 128 * 2 * 32768
    state = 27 * (128 * 80 * 128 + 3 * (128 * 80 + 2 * 8 * 128)) * 2
    assert out["kv_cache_bytes_per_user"] == pytest.approx(kv + state, rel=1e-12)
    assert out["state_bytes_per_user"] == pytest.approx(state, rel=1e-12)
    # every layer counted as attention would cache 56 / 4 = 14× the KV (the "14×")
    assert out["kv_cache_bytes_per_token"] * 14 == 56 * 2 * 8 * 128 * 2
    assert out["kv_read_gb_per_user"] == pytest.approx((kv + state) / 1e9, rel=1e-12)


def test_qwen3_next_kv_at_32k_is_12_attention_layers_plus_a_fixed_state(calc):
    # https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json: full_attention_interval 4 over
    # 48 layers, 2 KV heads × head_dim 256; Gated DeltaNet state 32 × 128 × 128 + conv 3 × 8,192, bf16.
    out = calc(model_name="Qwen3-Next-80B-A3B", **HYBRID)
    kv = 12 * 2 * 2 * 256 * 2 * 32768
    state = 36 * (32 * 128 * 128 + 3 * 8192) * 2
    assert out["kv_cache_gb_per_user"] == pytest.approx((kv + state) / 1e9, rel=1e-12)
    # decode bytes per step follow: weights once, then every user's KV and state
    expected_step = out["weights_read_gb_per_token"] + out["moe_batch_extra_gb_per_step"] + 4 * (kv + state) / 1e9
    assert out["decode_read_gb_per_step"] == pytest.approx(expected_step, rel=1e-12)
    # the state does not grow with the context; the attention layers' KV does
    longer = calc(model_name="Qwen3-Next-80B-A3B", **(HYBRID | {"context_tokens": 65536}))
    assert longer["kv_cache_bytes_per_user"] - out["kv_cache_bytes_per_user"] == pytest.approx(kv, rel=1e-12)


def test_deepseek_v3_2_caches_every_token_but_reads_its_budget(calc):
    # https://huggingface.co/deepseek-ai/DeepSeek-V3.2-Exp/blob/main/config.json: MLA latent 512 + 64 on 61 layers,
    # index_topk 2048: each query reads at most 2,048 past tokens' latents.
    out = calc(model_name="DeepSeek-V3.2", **(HYBRID | {"n_gpus": 8}))
    assert out["kv_cache_bytes_per_user"] == pytest.approx(61 * 576 * 2 * 32768, rel=1e-12)
    assert out["kv_read_gb_per_user"] == pytest.approx(61 * 576 * 2 * 2048 / 1e9, rel=1e-12)
    # dense DeepSeek-V3.1, same shape: reads what it caches
    dense = calc(model_name="DeepSeek-V3.1", **(HYBRID | {"n_gpus": 8}))
    assert dense["kv_read_gb_per_user"] == pytest.approx(61 * 576 * 2 * 32768 / 1e9, rel=1e-12)
    # attention work per user follows the budget: 61 layers × 2,048 keys against 61 × 32,768
    assert out["decode_user_overhead_ms"] * 16 == pytest.approx(dense["decode_user_overhead_ms"], rel=1e-12)


def test_a_short_context_under_the_sparse_budget_reads_all_of_it(calc):
    out = calc(model_name="DeepSeek-V3.2", **(HYBRID | {"n_gpus": 8, "context_tokens": 1000}))
    assert out["kv_read_gb_per_user"] == pytest.approx(61 * 576 * 2 * 1000 / 1e9, rel=1e-12)


def test_layer_kinds_beyond_the_layer_count_are_refused(tmp_path):
    folder = tmp_path / "c"
    shutil.copytree(CATALOG_DIR, folder)
    path = folder / "models.csv"
    text = path.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("Nemotron-Nano-9B-v2,"))
    path.write_text(text.replace(row, row.replace(",27,25,2695168,", ",40,25,2695168,")), encoding="utf-8")
    with pytest.raises(CatalogError, match="linear_layers"):
        load_catalog(folder)
