"""Measure build and verify time and peak memory of the default workbook (report, don't assert).

Run: python scripts/benchmark.py   (figures go into the README's Performance section)
"""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from pathlib import Path

from kalkulator.build import build, check_with_libreoffice, verification_passes
from kalkulator.catalog import load_catalog
from kalkulator.workbook.libreoffice import soffice
from kalkulator.workbook.verify import InputSet, verify


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    catalog = load_catalog()
    build_s, built = timed(lambda: build("id", catalog), repeat=5)
    n = len(built.layout.formulas)
    print(f"build (median of 5, in memory): {build_s:.2f} s for {n} formula cells")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kalkulator.xlsx"
        path.write_bytes(built.data)
        passes = verification_passes(catalog, built.layout)
        one_s, _ = timed(lambda: verify(path, built.layout, built.graph, catalog, passes[:1]))
        print(f"verify, shipped inputs only (load + 1 calculation): {one_s:.1f} s")
        all_s, report = timed(lambda: verify(path, built.layout, built.graph, catalog, passes))
        print(
            f"verify, {len(passes)} input sets: {all_s:.1f} s, {report.cells_checked} cells, "
            f"{len(report.mismatches)} mismatches"
        )
        if soffice():
            plain = [InputSet(p.name, p.settings) for p in passes]
            lo_s, lo = timed(lambda: check_with_libreoffice("id", catalog, plain, Path(tmp)))
            print(
                f"LibreOffice, {len(plain)} input sets: {lo_s:.1f} s, {lo.cells_checked} cells, "
                f"{len(lo.mismatches)} mismatches"
            )
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
