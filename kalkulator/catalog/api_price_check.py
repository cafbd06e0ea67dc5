"""Cross-check the API price catalog against the genai-prices dataset (pydantic/genai-prices).

Each api_prices.csv row names where its price comes from; a row read from LiteLLM's price list or from genai-prices
names the entry (`entri provider/model` or `provider X, entri Y`). `scripts/genai_prices_snapshot.py` looks those
entries up in an installed genai-prices and writes tests/data/genai_prices_snapshot.csv; `compare` lists the rows
whose price differs from that snapshot, so the suite reports them without the package being installed.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

# LiteLLM's provider prefixes → genai-prices provider ids
PROVIDER_ALIASES = {"fireworks_ai": "fireworks", "azure_ai": "azure", "together_ai": "together"}
_GENAI = re.compile(
    r"genai-prices[^;]*?(?:providers/(?P<yml>[\w-]+)\.yml|provider (?P<prov>[\w-]+),)[^;]*?entri (?P<id>[^,;)\s]+)"
)
_LITELLM = re.compile(r"LiteLLM[^;]*?entri (?P<id>[^,;)\s]+)")


@dataclass(frozen=True)
class Entry:
    """A dataset entry a catalog row cites: provider id and model id as the dataset spells them."""

    provider: str
    model: str


def cited_entry(source: str) -> Entry | None:
    """The genai-prices (or LiteLLM) entry a row's source cites, else None (a provider's own page)."""
    found = _GENAI.search(source)
    if found:
        return Entry(found["yml"] or found["prov"], found["id"])
    found = _LITELLM.search(source)
    if found and "/" in found["id"]:
        provider, model = found["id"].split("/", 1)
        return Entry(PROVIDER_ALIASES.get(provider, provider), model)
    return None


@dataclass(frozen=True)
class Disagreement:
    """A catalog row whose price differs from the dataset's by more than the tolerance."""

    name: str
    entry: Entry
    catalog_usd_per_1m: tuple[float, float]  # input, output
    dataset_usd_per_1m: tuple[float, float]

    def line(self) -> str:
        ci, co = self.catalog_usd_per_1m
        di, do = self.dataset_usd_per_1m
        return (
            f"{self.name}: catalog {ci:g}/{co:g}, genai-prices {di:g}/{do:g} ({self.entry.provider} {self.entry.model})"
        )


def read_snapshot(path: Path) -> dict[Entry, tuple[float, float]]:
    """The snapshot CSV: provider, model, input_usd_per_1m, output_usd_per_1m (comment lines start with #)."""
    with open(path, encoding="utf-8", newline="") as fh:
        lines = [line for line in fh if not line.startswith("#")]
    return {
        Entry(r["provider"], r["model"]): (float(r["input_usd_per_1m"]), float(r["output_usd_per_1m"]))
        for r in csv.DictReader(lines)
    }


def compare(
    rows: list[dict[str, str]], snapshot: dict[Entry, tuple[float, float]], tolerance_frac: float = 0.005
) -> tuple[list[Disagreement], list[str]]:
    """(rows whose input or output price differs by more than `tolerance_frac`, rows citing an entry the snapshot
    lacks)."""
    differing, missing = [], []
    for row in rows:
        entry = cited_entry(row["source"])
        if entry is None:
            continue
        if entry not in snapshot:
            missing.append(row["name"])
            continue
        mine = (float(row["input_usd_per_1m"]), float(row["output_usd_per_1m"]))
        theirs = snapshot[entry]
        if any(abs(a - b) > tolerance_frac * max(abs(b), 1e-12) for a, b in zip(mine, theirs, strict=True)):
            differing.append(Disagreement(row["name"], entry, mine, theirs))
    return differing, missing
