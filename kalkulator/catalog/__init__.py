"""Load and validate the catalogs in assumptions/ into typed rows, with errors naming file:row:column.

Every catalog is a CSV with a `name` key, a `source` and an `as_of` date per row. A catalog error is
raised before anything is written, so a bad row never yields a half-built workbook. The catalogs' prose (sources,
notes) is written in Indonesian; its English, shown by the English workbook, is in assumptions/english/ (one file
per catalog, see `load_english`).
"""

from __future__ import annotations

import codecs
import csv
import datetime as dt
import functools
import io
import math
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kalkulator.catalog.schema import (  # noqa: F401  (re-exported: the schemas' historical home)
    API,
    BACKENDS,
    BOARD,
    CLOUD,
    COOLING_TYPES,
    DEPLOYMENT,
    ENGINE,
    FORMAT_CLASSES,
    GPU,
    HOSTING,
    KV_CACHE,
    LINK_KINDS,
    MEASURED,
    MODEL,
    QUANT,
    SCHEMAS,
    SPEED,
    SUPPORT,
    TARIFF,
    VISION,
    WORKLOAD,
    Field,
    Schema,
    is_prose,
)
from kalkulator.io.files import MB, FileReadError, read_bounded
from kalkulator.io.paths import CATALOG_DIR

# Characters that make a name unsafe as a MATCH key (wildcards) or as CSV/spreadsheet text.
_NAME_FORBIDDEN = set('*?~,"')
CSV_LIMIT_BYTES = 256 * MB  # a catalog or a scenario batch: 100,000 scenario rows take a few MB
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # text a spreadsheet may read as a formula


class CatalogError(ValueError):
    """One or more catalog rows are invalid; each message names file:line:column."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


class CsvFileError(ValueError):
    """A CSV file cannot be read as a table; the message names the file and, where there is one, the line."""


@dataclass(frozen=True)
class Table:
    schema: Schema
    rows: tuple[dict, ...]
    lines: tuple[int, ...] = ()  # the file line each row starts on, for error messages

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r["name"] for r in self.rows)

    def column(self, name: str) -> tuple:
        return tuple(r[name] for r in self.rows)

    def find(self, name: str) -> dict | None:
        """The row whose name matches case-insensitively (as Excel's MATCH does)."""
        low = name.lower()
        return next((r for r in self.rows if r["name"].lower() == low), None)


@dataclass(frozen=True)
class Translation:
    """The English of one catalog prose text: for row `name` (blank: every row whose `field` reads `id`)."""

    table: str
    name: str
    field: str
    id: str  # the catalog's Indonesian text, verbatim: a translation whose text no longer matches is stale
    en: str
    where: str  # file:line of the translation, for messages


@dataclass(frozen=True)
class Catalog:
    tables: dict[str, Table] = field(default_factory=dict)
    english: tuple[Translation, ...] = ()

    def __getitem__(self, key: str) -> Table:
        return self.tables[key]

    @functools.cached_property
    def _english(self) -> dict[tuple[str, str, str, str], str]:
        return {(t.table, name_key(t.name) if t.name else "", t.field, t.id): t.en for t in self.english}

    def english_of(self, table: str, row: dict, column: str) -> str | None:
        """The English of a prose cell: its row's translation, else the one for every row with that text, or None."""
        text = row[column]
        if not isinstance(text, str):
            return None
        found = self._english.get((table, name_key(row["name"]), column, text))
        return found if found is not None else self._english.get((table, "", column, text))

    def shown(self, table: str, row: dict, column: str, lang: str) -> object:
        """A cell as the workbook in `lang` shows it: a prose cell's English under en where one is written."""
        if lang != "en" or not is_prose(self.tables[table].schema.field(column)):
            return row[column]
        english = self.english_of(table, row, column)
        return row[column] if english is None else english

    def columns(self) -> dict[tuple[str, str], tuple]:
        """Every column as (table, column) → values, the shape formulas' Col nodes read."""
        return {(k, f.name): t.column(f.name) for k, t in self.tables.items() for f in t.schema.fields}


def _parse(value: str, f: Field) -> object:
    """Parse one CSV cell; raise ValueError with a short reason."""
    text = value.strip()
    if text == "":
        if f.required:
            raise ValueError("required value is blank")
        return None
    if f.kind == "text":
        return text
    if f.kind == "enum":
        if text not in f.choices:
            raise ValueError(f"{text!r} is not one of {', '.join(f.choices)}")
        return text
    if f.kind == "date":
        try:
            return dt.date.fromisoformat(text).isoformat()
        except ValueError:
            raise ValueError(f"{text!r} is not a date (YYYY-MM-DD)") from None
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{text!r} is not a finite number")
    if f.kind == "int":
        if not number.is_integer():
            raise ValueError(f"{text!r} is not a whole number")
        number = int(number)
    problem = f.domain.problem(number) if f.domain is not None else None
    if problem:
        raise ValueError(f"{text} {problem}")  # the words the CLI uses for the same bound
    return number


# Dashes that print like "-": folded to it when two names are compared (U+2010 hyphen … U+2015, minus sign).
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe63\uff0d", "-"))


def check_name(name: str) -> str | None:
    """Why a catalog name is unusable as a dropdown item and MATCH key (or is not printable as what it is), or None."""
    if len(name) > 40:
        return "longer than 40 characters"
    hidden = [c for c in name if unicodedata.category(c)[0] == "C" or unicodedata.category(c) in ("Zl", "Zp")]
    if hidden:  # newline, tab, ESC, right-to-left override, zero-width space: a name must print as what it is
        codes = ", ".join(dict.fromkeys(f"U+{ord(c):04X} {unicodedata.name(c, 'control')}" for c in hidden))
        return f"holds a control or format character ({codes}); names are printable text"
    if unicodedata.normalize("NFC", name) != name:
        return "is not NFC-normalised (a letter and a separate accent); retype it or save the file as NFC"
    if name.startswith(FORMULA_START):
        return "must not start with = + - @ or a control character"
    bad = sorted(set(name) & _NAME_FORBIDDEN)
    if bad:
        return f"must not contain {' '.join(bad)}"
    return None


def name_key(name: str) -> str:
    """What two names are compared by for duplicates: spaces (no-break ones too) collapsed, case folded, fullwidth
    and other compatibility forms and dashes (U+2010 …) folded, so names that print alike are one name."""
    folded = unicodedata.normalize("NFKC", name).translate(_DASHES).casefold()
    return " ".join(folded.split())


def _alike(name: str, other: str) -> str:
    """The words an error adds when a duplicate differs from the other only in look-alike characters."""
    if name.lower() == other.lower():
        return ""
    return " (the same name once spaces, case, fullwidth letters and dashes are folded: they print alike)"


# Byte-order marks Excel writes: "CSV UTF-8" starts with the UTF-8 mark, "Unicode Text" is UTF-16 LE.
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_SAVE_AS_UTF8 = "save it as CSV UTF-8 (Excel: File > Save As > CSV UTF-8)"


def _decode(data: bytes, label: str) -> str:
    """The text of a CSV file: UTF-8 (with or without a byte-order mark) or UTF-16 with one.

    Bytes that are not UTF-8 are kept as lone surrogates (surrogateescape) so the caller can name the line and
    column holding them. Legacy code pages (cp1252, Latin-1, …) are not guessed: almost any bytes decode in each
    of them, so a wrong guess would silently change names instead of failing.
    """
    bom, encoding = next(((b, e) for b, e in _BOMS if data.startswith(b)), (b"", "utf-8"))
    body = data[len(bom) :]
    if encoding == "utf-8":
        text = body.decode("utf-8", errors="surrogateescape")
    else:
        try:
            text = body.decode(encoding)
        except UnicodeDecodeError as exc:
            line = body[: exc.start].decode(encoding, errors="ignore").count("\n") + 1
            raise CsvFileError(
                f"{label}:{line}: not valid UTF-16 text (byte {exc.start + len(bom)}); {_SAVE_AS_UTF8}"
            ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise CsvFileError(
            f"{label}:{line}: holds NUL bytes, so it is not a CSV text file (UTF-16 without a byte-order mark?); "
            + _SAVE_AS_UTF8
        )
    return text


def _undecodable(value: str) -> str | None:
    """The first byte that was not UTF-8 in a surrogate-escaped value, as 0xNN, or None."""
    bad = next((c for c in value if "\udc80" <= c <= "\udcff"), None)
    return None if bad is None else f"0x{ord(bad) - 0xDC00:02X}"


def read_records(path: Path, label: str | None = None) -> tuple[int, list[str], list[tuple[int, list[str]]]]:
    """Read a CSV file: (header line, header names, [(file line, fields)]) with one field per header name.

    See `iter_records` for the rules; an empty file gives (0, [], []).
    """
    records = iter_records(path, label)
    header_line, header = next(records)
    return header_line, header, list(records)


def iter_records(path: Path, label: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """The records of a CSV file, one at a time: first (header line, header names), then (file line, fields) with
    one field per header name.

    Line numbers are lines of the file (a quoted field may span several; a record is numbered by its first line).
    Blank lines and rows of empty cells are skipped. The delimiter is a comma, or a tab or semicolon when the
    header has no comma (Excel's "Unicode Text" and some locales' "CSV"). Raises CsvFileError naming file:line
    for a missing, unreadable or undecodable file, a duplicate or unnamed column, a short row, or a long row.
    An empty file gives (0, []) and nothing more.
    """

    label = label or str(path)
    try:
        data = read_bounded(path, CSV_LIMIT_BYTES, "CSV file")
    except FileReadError as exc:
        raise CsvFileError(str(exc).replace(str(path), label, 1)) from None
    text = _decode(data, label)
    first = next((line for line in text.splitlines() if line.strip(" ,;\t")), "")
    delimiter = next((d for d in (",", "\t", ";") if d in first), ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    header: list[str] = []
    previous = 0
    while True:
        start = previous + 1
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise CsvFileError(f"{label}:{start}: not a well-formed CSV record ({exc}; a quote left open?)") from None
        previous = reader.line_num
        if not any(f.strip() for f in fields):
            continue
        for i, value in enumerate(fields):
            byte = _undecodable(value)
            if byte:
                where = header[i] if header and i < len(header) else f"column {i + 1}"
                shown = value.encode("utf-8", errors="surrogateescape")
                raise CsvFileError(
                    f"{label}:{start}:{where}: byte {byte} in {shown!r} is not UTF-8 text "
                    f"(saved in a Windows code page?); {_SAVE_AS_UTF8}"
                )
        if not header:
            header = [f.strip() for f in fields]
            _check_header(header, label, start)
            yield start, header
            continue
        if len(fields) < len(header):
            raise CsvFileError(
                f"{label}:{start}: {len(fields)} field{'s' if len(fields) != 1 else ''} but the header has "
                f"{len(header)} columns (a short row; keep a blank cell as an empty field between commas)"
            )
        if len(fields) > len(header):
            if any(f.strip() for f in fields[len(header) :]):
                raise CsvFileError(
                    f"{label}:{start}: {len(fields)} fields but the header has {len(header)} columns "
                    "(more fields than header columns)"
                )
            fields = fields[: len(header)]  # trailing empty cells carry nothing
        yield start, fields
    if not header:
        yield 0, []


def _check_header(header: list[str], label: str, line: int) -> None:
    seen: dict[str, int] = {}
    for i, name in enumerate(header, start=1):
        if not name:
            raise CsvFileError(f"{label}:{line}: column {i} has no name in the header row")
        if name in seen:
            raise CsvFileError(f"{label}:{line}:{name}: the column appears twice (columns {seen[name]} and {i})")
        seen[name] = i


def _cited_elsewhere(schema: Schema) -> dict[str, list[str]]:
    """Source columns other than `source`, each with the columns it cites (e.g. link_source: link_kind, ...)."""
    out: dict[str, list[str]] = {}
    for f in schema.fields:
        if f.source != "source":
            out.setdefault(f.source, []).append(f.name)
    return out


def load_table(schema: Schema, folder: Path) -> Table:
    """Read and validate one catalog file; errors name file:line:column with lines of the file."""
    path = folder / schema.file
    label = str(path)
    expected = [f.name for f in schema.fields]
    try:
        header_line, header, records = read_records(path, label)
    except CsvFileError as exc:
        raise CatalogError([str(exc)]) from None
    if not header:
        raise CatalogError([f"{label}:1: empty file; expected the header {','.join(expected)} and rows"])
    if header != expected:
        missing = [c for c in expected if c not in header]
        extra = [c for c in header if c not in expected]
        detail = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unexpected {', '.join(map(str, extra))}" if extra else "",
                "columns out of order" if not missing and not extra else "",
            )
            if part
        )
        raise CatalogError([f"{label}:{header_line}: header must be {','.join(expected)} ({detail})"])
    errors: list[str] = []
    rows: list[dict] = []
    lines: list[int] = []
    seen: dict[str, tuple[int, str]] = {}
    for line, fields in records:
        raw = dict(zip(expected, fields, strict=True))
        row: dict = {}
        for f in schema.fields:
            try:
                row[f.name] = _parse(raw[f.name], f)
            except ValueError as exc:
                errors.append(f"{label}:{line}:{f.name}: {exc}")
        if len(row) != len(schema.fields):
            continue
        problem = check_name(row["name"])
        if problem:
            errors.append(f"{label}:{line}:name: {row['name']!r} {problem}")
        key = name_key(row["name"])
        if key in seen:
            other_line, other = seen[key]
            alike = _alike(row["name"], other)
            errors.append(f"{label}:{line}:name: {row['name']!r} duplicates line {other_line} ({other!r}){alike}")
        seen[key] = (line, row["name"])
        for source, cited in _cited_elsewhere(schema).items():  # figures from elsewhere than the row's source
            given = [name for name in cited if row[name] not in (None, 0)]
            if given and not row[source]:
                errors.append(f"{label}:{line}:{source}: blank, but {', '.join(given)} given; say where they come from")
        for check in schema.checks:
            message = check(row)
            if message:
                errors.append(f"{label}:{line}:{message}")
        rows.append(row)
        lines.append(line)
    if not rows and not errors:
        errors.append(f"{label}:{header_line}: no rows below the header")
    if errors:
        raise CatalogError(errors)
    return Table(schema, tuple(rows), tuple(lines))


def _cheapest_first(
    table: Table, folder: Path, group: str, price: Callable[[dict], float | None], per: str = "per GPU"
) -> list[str]:
    """The workbook picks a GPU's (a model's) first offer by MATCH, so the cheapest must come first in the file."""
    first: dict[str, tuple[float, str]] = {}
    errors = []
    for line, row in zip(table.lines, table.rows, strict=True):
        key, value = row[group], price(row)
        if not key or value is None:
            continue
        if key not in first:
            first[key] = (value, row["name"])
        elif value < first[key][0]:
            kind = group.replace("gpu", "GPU")
            errors.append(
                f"{folder / table.schema.file}:{line}:name: {row['name']!r} is cheaper {per} than "
                f"{first[key][1]!r} listed before it for {key}; list each {kind}'s cheapest offer first"
            )
    return errors


def _per_gpu(column: str) -> Callable[[dict], float | None]:
    return lambda row: row[column] / row["gpus"] if row[column] is not None and row["gpus"] else None


def _support_names(tables: dict[str, Table], folder: Path) -> list[str]:
    """Each support row names a catalog engine and a known backend and/or format class; an engine/backend/format row
    may end in .arch (smNN for a CUDA compute capability, else an architecture family of the GPU catalog)."""
    engines = {n.lower() for n in tables["engine"].names}
    archs = {f"sm{round(float(r['compute_capability'] or 0) * 10)}" for r in tables["gpu"].rows}
    archs |= {str(r["arch"]) for r in tables["gpu"].rows if r["arch"]}
    errors = []
    table = tables["support"]
    for line, name in zip(table.lines, table.names, strict=True):
        engine, *rest = name.split("/")
        arch = dot = ""
        if rest:
            rest[-1], dot, arch = rest[-1].partition(".")
        known = [BACKENDS] if len(rest) == 1 and rest[0] in BACKENDS else [FORMAT_CLASSES]
        if len(rest) == 2:
            known = [BACKENDS, FORMAT_CLASSES]
        where = f"{folder / table.schema.file}:{line}:name"
        if engine.lower() not in engines:
            errors.append(f"{where}: {engine!r} is not an engine of engines.csv")
        elif not rest or len(rest) > 2 or any(part not in words for part, words in zip(rest, known, strict=True)):
            errors.append(
                f"{where}: {name!r} must be engine/backend, engine/format, engine/backend/format or "
                f"engine/backend/format.arch (backends: {', '.join(BACKENDS)}; formats: {', '.join(FORMAT_CLASSES)})"
            )
        elif dot and (len(rest) != 2 or arch not in archs):
            errors.append(
                f"{where}: {name!r}: .{arch} must follow engine/backend/format and name a GPU catalog architecture "
                "(smNN of a compute capability, or an arch family)"
            )
    return errors


def _api_list_price(row: dict) -> float:
    """The price the API catalog orders by: input + output per 1M tokens (a 1:1 mix)."""
    return row["input_usd_per_1m"] + row["output_usd_per_1m"]


def _names_exist(tables: dict[str, Table], folder: Path) -> list[str]:
    """A deployment's tariff and colocation plan must be rows of their catalogs."""
    wanted = (("deployment", "tariff_name", "tariff"), ("deployment", "colocation_name", "hosting"))
    errors = []
    for key, column, other in wanted:
        names = {n.lower() for n in tables[other].names}
        table = tables[key]
        for row, line in zip(table.rows, table.lines, strict=True):
            if row[column].lower() not in names:
                where = f"{folder / table.schema.file}:{line}:{column}"
                errors.append(f"{where}: {row[column]!r} is not a name in {tables[other].schema.file}")
    return errors


def _engines_have_speed(tables: dict[str, Table], folder: Path) -> list[str]:
    """Every engine needs a fallback speed row (engine/any, or engine/any@era): without one its speeds are 0."""
    speed_names = tables["speed"].names
    return [
        f"{folder / ENGINE.file}:{line}:name: engine {row['name']!r} has no speed parameters; add a row "
        f"{row['name']}/any to {SPEED.file} (or run kalkulator calibrate)"
        for row, line in zip(tables["engine"].rows, tables["engine"].lines, strict=True)
        if not any(n.startswith(f"{row['name']}/any") for n in speed_names)
    ]


ENGLISH_DIR = "english"  # assumptions/english/<catalog file>: the English of each catalog's prose
ENGLISH_HEADER = ["name", "field", "id", "en"]


def load_english(schema: Schema, folder: Path) -> list[Translation]:
    """The translations of one catalog's prose from folder/english/<file> (none when the file is absent).

    Columns: `name` (the row; blank: every row whose `field` reads exactly `id`, for a text many rows share),
    `field` (a prose column of the catalog), `id` (the Indonesian text verbatim) and `en` (its English). Errors name
    file:line:column; a translation that matches no cell any more is reported by `english_problems`, not here, so an
    edited source never stops a build (the English workbook then shows that cell in Indonesian).
    """
    path = folder / ENGLISH_DIR / schema.file
    if not path.exists():
        return []
    label = str(path)
    try:
        header_line, header, records = read_records(path, label)
    except CsvFileError as exc:
        raise CatalogError([str(exc)]) from None
    if header != ENGLISH_HEADER:
        raise CatalogError([f"{label}:{max(header_line, 1)}: header must be {','.join(ENGLISH_HEADER)}"])
    prose = {f.name for f in schema.fields if is_prose(f)}
    errors: list[str] = []
    out: list[Translation] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, fields in records:
        name, column, text, english = (f.strip() for f in fields)
        if column not in prose:
            errors.append(
                f"{label}:{line}:field: {column!r} is not a prose column of {schema.file} ({', '.join(sorted(prose))})"
            )
        for value, what in ((text, "id"), (english, "en")):
            if not value:
                errors.append(f"{label}:{line}:{what}: blank")
        key = (name_key(name), column, text)
        if key in seen:
            errors.append(f"{label}:{line}:id: translated twice (line {seen[key]})")
        seen[key] = line
        out.append(Translation(schema.key, name, column, text, english, f"{label}:{line}"))
    if errors:
        raise CatalogError(errors)
    return out


def english_problems(catalog: Catalog) -> list[str]:
    """Translations that no longer fit their catalog: a row that is gone, an Indonesian text that no longer equals the
    cell (stale: the source was edited; retranslate it), or a shared translation no cell reads any more."""
    problems = []
    for t in catalog.english:
        table = catalog[t.table]
        if t.name:
            row = table.find(t.name)
            if row is None:
                problems.append(f"{t.where}:name: no row {t.name!r} in {table.schema.file}")
            elif row[t.field] != t.id:
                problems.append(
                    f"{t.where}:id: stale: {table.schema.file} row {t.name!r} {t.field} now reads {row[t.field]!r}"
                )
        elif not any(row[t.field] == t.id for row in table.rows):
            problems.append(f"{t.where}:id: no row of {table.schema.file} has this {t.field} any more (stale)")
    return problems


def catalog_files(folder: Path | None = None) -> tuple[Path, ...]:
    """The files load_catalog reads from `folder`: inputs that no output may replace."""
    folder = folder or CATALOG_DIR
    english = tuple(folder / ENGLISH_DIR / s.file for s in SCHEMAS if (folder / ENGLISH_DIR / s.file).exists())
    return tuple(folder / schema.file for schema in SCHEMAS) + english


def load_catalog(folder: Path | None = None) -> Catalog:
    """Load every catalog; collect all errors before raising."""
    folder = folder or CATALOG_DIR
    tables: dict[str, Table] = {}
    errors: list[str] = []
    for schema in SCHEMAS:
        try:
            tables[schema.key] = load_table(schema, folder)
        except CatalogError as exc:
            errors.extend(exc.messages)
    if not errors:
        errors += _cheapest_first(tables["cloud"], folder, "gpu", _per_gpu("usd_per_hour"))
        errors += _cheapest_first(tables["cloud"], folder, "gpu", _per_gpu("idr_per_hour"))
        errors += _cheapest_first(tables["hosting"], folder, "gpu", _per_gpu("idr_per_month"))
        errors += _cheapest_first(tables["api"], folder, "model", _api_list_price, "(input + output)")
        errors += _cheapest_first(tables["api"], folder, "family_class", _api_list_price, "(input + output)")
        errors += _names_exist(tables, folder)
        errors += _engines_have_speed(tables, folder)
        errors += _support_names(tables, folder)
    english: list[Translation] = []
    for schema in SCHEMAS:
        try:
            english += load_english(schema, folder)
        except CatalogError as exc:
            errors.extend(exc.messages)
    if errors:
        raise CatalogError(errors)
    return Catalog(tables, tuple(english))
