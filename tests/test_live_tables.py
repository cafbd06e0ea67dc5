"""The catalog-wide and sweep tables honour values typed by hand as the answer block does: in the row whose key is
the scenario's own (its GPU), the table shows the answer block's figure."""

from __future__ import annotations

from kalkulator.workbook.verify import expected_values


def _rows(built, settings, key: str, column: str) -> list[dict[str, object]]:
    """Each row of the live table keyed by `key` with `column` under `settings`: its key and computed columns."""
    layout = built.layout
    values = expected_values(layout, built.graph, built.catalog.columns(), settings)
    index = next(
        i for i, rb in enumerate(layout.row_blocks) if next(iter(rb.bound[0]), None) == key and column in rb.columns
    )
    out: dict[int, dict[str, object]] = {}
    for f in layout.formulas:
        if f.key[0] == "row" and f.key[1] == index:
            out.setdefault(f.key[2], dict(layout.row_blocks[index].bound[f.key[2]]))[f.key[3]] = values[f.key]
    return [out[i] for i in sorted(out)]


def test_a_measured_speed_typed_by_hand_holds_only_in_the_chosen_gpus_row(built_en):
    """A decode speed typed as 151 tok/s describes the chosen GPU: its row of "Chosen model on every GPU" shows 151,
    every other GPU's row its own estimate (on the TPS sheet)."""
    settings = {"decode_tok_s": 151.0}
    chosen = built_en.graph.evaluate(settings, built_en.catalog.columns(), "en")["gpu_name"]
    speeds = {r["gpu_name"]: r["decode_tok_s"] for r in _rows(built_en, settings, "gpu_name", "decode_tok_s")}
    assert speeds[chosen] == 151.0
    assert sum(v == 151.0 for v in speeds.values()) == 1
