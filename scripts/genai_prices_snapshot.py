"""Write tests/data/genai_prices_snapshot.csv: the genai-prices entries api_prices.csv cites, with their prices.

Maintainer command (needs `pip install genai-prices`): PYTHONPATH=$PWD python scripts/genai_prices_snapshot.py
Then run tests/test_api_price_check.py: it lists the catalog rows that disagree with the dataset.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from kalkulator.catalog.api_price_check import cited_entry
from kalkulator.io.files import replace_synced, write_synced
from kalkulator.io.paths import CATALOG_DIR

TARGET = Path(__file__).resolve().parents[1] / "tests" / "data" / "genai_prices_snapshot.csv"


def main() -> int:
    try:
        import genai_prices
        from genai_prices import data
    except ImportError:
        print("genai-prices is not installed: pip install genai-prices", file=sys.stderr)
        return 1
    providers = {p.id: p for p in data.providers}
    with open(CATALOG_DIR / "api_prices.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = io.StringIO()
    out.write(f"# genai-prices {genai_prices.__version__}: entries cited by assumptions/api_prices.csv\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["provider", "model", "input_usd_per_1m", "output_usd_per_1m"])
    seen = set()
    for row in rows:
        entry = cited_entry(row["source"])
        if entry is None or entry in seen or entry.provider not in providers:
            continue
        model = providers[entry.provider].find_model(entry.model)
        prices = model.prices if model is not None else None
        if isinstance(prices, list):  # price history: the current one is last
            prices = prices[-1].prices
        if prices is None or prices.input_mtok is None or prices.output_mtok is None:
            continue
        seen.add(entry)
        writer.writerow([entry.provider, entry.model, float(prices.input_mtok), float(prices.output_mtok)])
    staged = TARGET.with_name(f".{TARGET.name}.new")
    write_synced(staged, out.getvalue().encode("utf-8"))
    replace_synced(staged, TARGET)
    print(f"wrote {len(seen)} entries to {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
