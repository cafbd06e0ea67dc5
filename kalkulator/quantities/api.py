"""API prices: the API serving the same model (the fair comparison) and a premium API, on the workload's tokens.

Both chains are one definition (`api_chain`) used twice with a name prefix, like the draft model's memory.
"""

from __future__ import annotations

from kalkulator.catalog.schema import field_of
from kalkulator.engine.expr import EQ, IF, IFERROR, INDEX, JOIN, MATCH, OR, Col, Msg, R, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_API = "Buku, Bab harga API Indonesia: USD × kurs + PPN 11 % + PPh 22"
BOOK_BE = "Buku, Bab break-even: BE (bulan) = Total Capex / (Biaya API per bulan − Biaya Opex per bulan)"
# The book compares small models with GPT-4o-mini and large ones with GPT-4o (Bab 17 profiles, L2091–2097).
PREMIUM_SMALL, PREMIUM_LARGE = "OpenAI GPT-4o mini", "OpenAI GPT-4o"
# Where no API in the catalog serves the model or its family in its size class: the nearest open model of the same
# size class (a dense model mid-class with a cheap public API), labelled as a different model wherever it appears.
NEAREST_BY_CLASS = {
    "small": "DeepInfra Llama-3.1-8B",
    "medium": "DeepInfra Qwen3-32B",
    "large": "DeepInfra Llama-3.3-70B",
    "frontier": "DeepInfra DeepSeek-V3",
}


def _nearest_by_class() -> object:
    """The nearest open model's API for the model's size class (NEAREST_BY_CLASS), as one nested IF."""
    *init, (_, last) = NEAREST_BY_CLASS.items()
    node: object = last
    for size, name in reversed(init):
        node = IF(EQ(R("model_size_class_text"), size), name, node)
    return node


def api_chain(prefix: str, what_id: str, what_en: str) -> tuple[Quantity, ...]:
    """Prices of the API named `<prefix>api_name` and its blended cost per 1M tokens of the workload."""
    row = f"{prefix}api_row"

    def price(column: str) -> Quantity:
        """A price column of the API row, in its column's words with the API it is for."""
        f = field_of("api", column)
        return lookup(
            f"{prefix}api_{column}",
            "api",
            column,
            f"{f.label_id} ({what_id})",
            f"{f.label_en} ({what_en})",
            row_name=row,
        )

    return (
        row_of(
            "api",
            "api_name",
            "Baris API",
            "API row",
            doc_id="Posisi api_name yang dipilih di katalog API (0 = tidak ada di katalog).",
            source_id="Katalog Harga: API",
        )
        if not prefix
        else Quantity(
            row,
            "Baris API premium",
            "Premium API row",
            "Position of the premium API in the API catalog (0 = not in the catalog).",
            "Katalog (assumptions/)",
            expr=IFERROR(MATCH(R(f"{prefix}api_name"), Col("api", "name")), 0),
            doc_id="Posisi API premium di katalog API (0 = tidak ada di katalog).",
        ),
        *(price(column) for column in ("input_usd_per_1m", "output_usd_per_1m", "cached_input_usd_per_1m")),
        price("batch_discount_frac"),
        Quantity(
            f"{prefix}api_blended_usd_per_1m",
            f"Harga API campuran ({what_id})",
            f"Blended API price ({what_en})",
            "[Input share × (cached share × cached price + the rest × input price) + output share × output price] "
            "× (1 − batch discount when the batch mode is on).",
            "Buku, Bab 17.2; katalog harga API (input cache, batch)",
            expr=(
                (1 - R("api_output_share_frac"))
                * (
                    R("prefix_cache_hit_frac")
                    * IF(
                        R(f"{prefix}api_cached_input_usd_per_1m") > 0,
                        R(f"{prefix}api_cached_input_usd_per_1m"),
                        R(f"{prefix}api_input_usd_per_1m"),
                    )
                    + (1 - R("prefix_cache_hit_frac")) * R(f"{prefix}api_input_usd_per_1m")
                )
                + R(f"{prefix}api_output_usd_per_1m") * R("api_output_share_frac")
            )
            * (1 - IF(EQ(R("api_batch_mode"), "on"), R(f"{prefix}api_batch_discount_frac"), 0)),
            doc_id="[Porsi input × (porsi cache × harga cache + sisanya × harga input) + porsi output × harga output] "
            "× (1 − diskon batch bila mode batch 'on').",
            source_id="Buku, bab 17.2; katalog harga API",
        ),
        Quantity(
            f"{prefix}api_cost_idr_per_1m_tokens",
            f"Biaya API per 1 juta token ({what_id})",
            f"API cost per 1M tokens ({what_en})",
            "Blended price × USD rate × taxes.",
            BOOK_API,
            expr=R(f"{prefix}api_blended_usd_per_1m") * R("usd_idr") * R("api_tax_multiplier_ratio"),
            doc_id="Harga campuran × kurs USD × pajak.",
            source_id="Buku, bab harga API Indonesia",
        ),
    )


QUANTITIES = (
    lookup(
        "model_family_text",
        "model",
        "family",
        "Keluarga model",
        "Model family",
        "The chosen model's family, from the model catalog (blank for a model described by its numbers).",
        fallback="",
        demanded=False,
        doc_id="Keluarga model terpilih, dari katalog model.",
        source_id="Katalog model: kolom family",
    ),
    Quantity(
        "model_size_class_text",
        "Kelas ukuran model",
        "Model size class",
        "small up to 15 B parameters, medium up to 40 B, large up to 150 B, frontier above.",
        "Kelas ukuran untuk mencari API pengganti (model dalam keluarga yang sama)",
        expr=IF(
            R("model_params_b") <= 15,
            "small",
            IF(R("model_params_b") <= 40, "medium", IF(R("model_params_b") <= 150, "large", "frontier")),
        ),
        doc_id=(
            "small sampai 15 miliar parameter, medium sampai 40 miliar, large sampai 150 miliar, frontier di atasnya."
        ),
        source_id="Kelas ukuran untuk mencari API pengganti (model dalam keluarga yang sama)",
    ),
    Quantity(
        "premium_api_name",
        "API premium pembanding",
        "Premium API to compare",
        "A closed model's API as a second line, chosen by the model's size class as the book compares: GPT-4o "
        "mini for a small or medium model (up to 40B parameters), GPT-4o for a large or frontier one. Choose "
        "another as a manual value.",
        "Buku, Bab 17 (profil: model kecil vs GPT-4o-mini, model besar vs GPT-4o/Sonnet)",
        expr=IF(
            OR(EQ(R("model_size_class_text"), "small"), EQ(R("model_size_class_text"), "medium")),
            PREMIUM_SMALL,
            PREMIUM_LARGE,
        ),
        overridable=True,
        choices=("api", "name"),
        doc_id=(
            "API model tertutup sebagai baris kedua, dipilih menurut kelas ukuran model seperti pembandingan "
            "buku: GPT-4o mini untuk model small atau medium (sampai 40 miliar parameter), GPT-4o untuk model "
            "large atau frontier. Pilih yang lain sebagai isian manual."
        ),
        source_id="Buku, bab 17 (profil: model kecil vs GPT-4o-mini, model besar vs GPT-4o/Sonnet)",
    ),
    Quantity(
        "premium_api_label_text",
        "API premium: label",
        "Premium API: label",
        "The premium API named as what it is: a closed model chosen for the model's size class, not the same model.",
        "Buku, Bab 17 (profil: model kecil vs GPT-4o-mini, model besar vs GPT-4o/Sonnet)",
        expr=JOIN(
            Msg("premium (model tertutup, kelas ", "premium (closed model, class "),
            R("model_size_class_text"),
            "): ",
            R("premium_api_name"),
        ),
        doc_id="API premium disebut apa adanya: model tertutup yang dipilih menurut kelas ukuran model, bukan model "
        "yang sama.",
        source_id="Buku, bab 17 (profil: model kecil vs GPT-4o-mini, model besar vs GPT-4o/Sonnet)",
    ),
    Quantity(
        "api_name",
        "API pembanding (model yang sama)",
        "API to compare (same model)",
        "The cheapest API in the catalog serving the chosen model (the catalog lists each model's cheapest API "
        "first, by input + output price); else the cheapest serving a model of the same family and size class; "
        "else the nearest open model of the same size class ("
        + ", ".join(f"{k}: {v}" for k, v in NEAREST_BY_CLASS.items())
        + "); api_comparator_text says which. Choose another as a manual value.",
        "Katalog Harga: API (kolom model, family_class)",
        expr=IFERROR(
            INDEX(Col("api", "name"), MATCH(R("model_name"), Col("api", "model"))),
            IFERROR(
                INDEX(
                    Col("api", "name"),
                    MATCH(JOIN(R("model_family_text"), "|", R("model_size_class_text")), Col("api", "family_class")),
                ),
                IFERROR(
                    INDEX(Col("api", "name"), MATCH(_nearest_by_class(), Col("api", "name"))),
                    R("premium_api_name"),
                ),
            ),
        ),
        overridable=True,
        choices=("api", "name"),
        doc_id=(
            "API termurah di katalog yang melayani model terpilih (katalog mendaftar API termurah tiap "
            "model lebih dulu, menurut harga input + output); bila tidak ada, yang termurah untuk model "
            "sekeluarga dengan kelas ukuran sama; selain itu model terbuka terdekat dengan kelas ukuran sama "
            "(api_comparator_text menyebutnya). Pilih yang lain sebagai isian manual."
        ),
        source_id="Katalog Harga: API (kolom model, family_class)",
    ),
    lookup(
        "api_model_name",
        "api",
        "model",
        fallback="",
        doc_id="Model yang dilayani baris API terpilih.",
        source_id="Katalog Harga: API",
    ),
    Quantity(
        "api_same_model_flag",
        "API melayani model yang sama?",
        "API serves the same model?",
        "FALSE means the API compared runs another model than the one whose speed and cost are computed.",
        "Consistency check",
        expr=EQ(R("api_model_name"), R("model_name")),
        doc_id=("FALSE berarti API pembanding menjalankan model lain dari model yang kecepatan dan biayanya dihitung."),
        source_id="Pemeriksaan konsistensi",
    ),
    Quantity(
        "api_comparator_text",
        "API pembanding: model apa",
        "API compared: which model",
        "'same model: <model>' when the API serves the scenario's model; otherwise 'nearest: <model>', a different "
        "model (no API in the catalog serves this one), so its price is a comparison, not this model's price.",
        "Katalog Harga: API (kolom model)",
        expr=IF(
            R("api_same_model_flag"),
            JOIN(Msg("model yang sama: ", "same model: "), R("api_model_name")),
            JOIN(
                Msg("terdekat: ", "nearest: "),
                R("api_model_name"),
                Msg(" (model lain, bukan ", " (a different model, not "),
                R("model_name"),
                ")",
            ),
        ),
        doc_id="'model yang sama: <model>' bila API melayani model skenario; selain itu 'terdekat: <model>', model "
        "lain (tidak ada API di katalog yang melayani model ini), sehingga harganya pembanding, bukan harga model ini.",
        source_id="Katalog Harga: API (kolom model)",
    ),
    Quantity(
        "api_output_share_frac",
        "Porsi token output",
        "Output share of tokens",
        "Output tokens ÷ (prompt + output tokens) of the workload. Type a share to use it instead.",
        "Beban kerja (the book's 1:3 ratio of Bab 17.2 is one workload, not a default)",
        expr=safe_div(R("output_tokens"), R("prompt_tokens") + R("output_tokens")),
        overridable=True,
        doc_id="Token output ÷ (token prompt + output) dari beban kerja. Isi porsi lain untuk memakainya.",
        source_id=(
            "Beban kerja (rasio input:output 1:3 di buku, bab 17.2, hanyalah satu contoh beban kerja, "
            "bukan nilai bawaan)"
        ),
    ),
    lookup(
        "api_batch_mode",
        "workload",
        "api_batch_mode",
        fallback="off",
        source_id="Profil beban kerja; katalog harga API: kolom batch_discount_frac",
    ),
    *api_chain("", "model yang sama", "same model"),
    *api_chain("premium_", "premium", "premium"),
)
