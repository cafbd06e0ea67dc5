"""Energy chain: system power, idle vs load with a duty cycle, PUE, kWh and rupiah per day/month/year."""

from __future__ import annotations

from kalkulator.engine.expr import EQ, IF, MAX, MIN, Node, R, lift, safe_div
from kalkulator.quantities.base import Quantity, lookup, row_of

BOOK_POWER = "Buku, Bab 16.1: kWh = W × 24 jam ÷ 1000; Rp = kWh × tarif"

BOOK_COOLING = (
    "Buku, Asumsi Finansial: PUE 1,3 (data center) hingga 2,0 (ruang kantor); Bab pendinginan: precision AC "
    "PUE 1,6, liquid cooling direct-to-chip 1,2, immersion 1,05–1,1"
)
# Cooling type → PUE, from the book's cooling options (immersion: the upper end of its 1.05–1.1 range; none: a
# desk-side workstation in a room cooled for people, no cooling plant of its own).
COOLING_PUE = {"data-centre": 1.3, "none": 1.0, "precision-ac": 1.6, "liquid": 1.2, "immersion": 1.1, "office-ac": 2.0}


def _pue_of_cooling() -> Node:
    """The PUE of the chosen cooling type (a chain of IFs; the first type is the fallback)."""
    first, *rest = COOLING_PUE.items()
    pue: Node = lift(first[1])
    for name, value in reversed(rest):
        pue = IF(EQ(R("cooling_type"), name), value, pue)
    return pue


QUANTITIES = (
    lookup(
        "tariff_name",
        "deployment",
        "tariff_name",
        fallback="PLN B-2/TR 6600VA-200kVA",
        choices=("tariff", "name"),
        doc_id=(
            "Golongan tarif PLN atau tarif daya data center, dari profil penempatan (pilih yang lain "
            "sebagai isian manual)."
        ),
        source_id="Katalog Harga: tarif; profil penempatan",
    ),
    row_of(
        "tariff",
        "tariff_name",
        "Baris tarif",
        "Tariff row",
        doc_id="Posisi tariff_name yang dipilih di katalog tarif (0 = tidak ada di katalog).",
        source_id="Katalog Harga: tarif",
    ),
    lookup(
        "electricity_idr_per_kwh",
        "tariff",
        "idr_per_kwh",
        doc_id="Rupiah per kWh untuk tarif yang dipilih.",
        source_id="Katalog tarif listrik, kolom 'Rp/kWh'",
    ),
    Quantity(
        "system_power_w",
        "Daya sistem saat beban",
        "System power at load",
        "GPU TDP × GPUs bought + the rest of each server × servers. Type a measured wall power to use it.",
        BOOK_POWER,
        expr=R("gpu_tdp_w") * R("bought_gpus") + R("host_power_w") * R("servers_needed"),
        overridable=True,
        doc_id=(
            "TDP GPU × GPU yang dibeli + sisa server × jumlah server. Ketik daya terukur di stopkontak "
            "untuk memakainya."
        ),
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "fleet_busy_frac",
        "Porsi waktu armada sibuk",
        "Share of the day the fleet is busy",
        "Requests served ÷ the fleet's capacity at its rate within the targets over 24 h: served ÷ capacity per "
        "day × active hours ÷ 24 ÷ the peak-to-average ratio (the capacity per day already counts only the "
        "active hours at the average load); at most 1.",
        "Buku, Bab 16.1 (duty cycle); beban terlayani ÷ kapasitas",
        expr=MIN(
            1,
            safe_div(R("served_requests_per_day"), R("capacity_requests_per_day"))
            * R("active_hours_per_day")
            / 24
            / MAX(1, R("peak_to_average_ratio")),
        ),
        doc_id=(
            "Permintaan terlayani ÷ kapasitas armada pada lajunya dalam target selama 24 jam: terlayani "
            "÷ kapasitas per hari × jam aktif ÷ 24 ÷ rasio puncak ÷ rata-rata; paling besar 1."
        ),
        source_id="Buku, bab 16.1 (duty cycle); beban terlayani ÷ kapasitas",
    ),
    Quantity(
        "duty_cycle_frac",
        "Duty cycle (porsi waktu melayani)",
        "Duty cycle (share of time serving)",
        "Share of the day the system works at load: the fleet's busy share. Type a share (the book uses 70 %) "
        "to use it instead.",
        "Buku, Bab 16.1: 70 % on-premise (sebagai asumsi); bawaan: porsi sibuk armada",
        expr=R("fleet_busy_frac"),
        overridable=True,
        doc_id=(
            "Porsi hari saat sistem bekerja pada daya beban: bawaannya porsi sibuk armada. Ketik porsi "
            "lain (buku memakai 70 %) untuk menggantinya."
        ),
        source_id="Buku, bab 16.1: duty cycle 70 % (sebagai asumsi); bawaan: porsi sibuk armada",
    ),
    Quantity(
        "gpu_idle_power_frac",
        "Daya idle GPU (porsi TDP)",
        "GPU idle power (share of TDP)",
        "Power a GPU draws between requests with the model loaded, as a share of its TDP, by class: GeForce "
        "drops to its idle state (0.07), workstation cards idle at P2 (0.27), data-centre cards stay at P0 with "
        "the model in memory (0.18); 0.3 otherwise. Measure with nvidia-smi and type it.",
        "RTX 3080 22 W / 320 W idle (NVIDIA/open-gpu-kernel-modules issue #314); RTX A4000 38 W / 140 W at P2 "
        "idle under TGI (huggingface/text-generation-inference issue #946); V100-SXM2 53 W / 300 W at P0, 0 % "
        "use, model loaded (zai-org/GLM-130B issue #32)",
        expr=IF(
            EQ(R("gpu_segment_type"), "consumer"),
            0.07,
            IF(EQ(R("gpu_segment_type"), "workstation"), 0.27, IF(EQ(R("gpu_segment_type"), "datacenter"), 0.18, 0.3)),
        ),
        overridable=True,
        doc_id=(
            "Daya GPU di antara permintaan dengan model termuat, sebagai porsi TDP, per kelas: GeForce "
            "turun ke keadaan idle (0,07), kartu workstation idle di P2 (0,27), kartu data center tetap "
            "di P0 dengan model di memori (0,18); 0,3 untuk lainnya. Ukur dengan nvidia-smi lalu ketik."
        ),
        source_id=(
            "RTX 3080 22 W / 320 W idle (NVIDIA/open-gpu-kernel-modules issue #314); RTX A4000 38 W / "
            "140 W di P2 saat idle di TGI (huggingface/text-generation-inference issue #946); V100-SXM2 "
            "53 W / 300 W di P0, pemakaian 0 %, model termuat (zai-org/GLM-130B issue #32)"
        ),
    ),
    Quantity(
        "host_idle_power_frac",
        "Daya idle host (porsi daya beban)",
        "Host idle power (share of load power)",
        "Power the rest of a server (CPUs, memory, fans, disks) draws while idle, as a share of its load power.",
        "Assumption: servers idle at roughly a third of load power; measure with a wall meter",
        default=0.3,
        doc_id=("Daya bagian server lainnya (CPU, memori, kipas, disk) saat idle, sebagai porsi daya bebannya."),
        source_id="Asumsi: server idle sekitar sepertiga daya beban; ukur dengan wattmeter",
    ),
    Quantity(
        "idle_power_frac",
        "Daya idle (porsi daya beban)",
        "Idle power (share of load power)",
        "Idle power of the fleet ÷ its power at load: (GPU TDP × GPUs × GPU idle share + host power × servers × "
        "host idle share) ÷ (GPU TDP × GPUs + host power × servers). Type a measured share to use it instead.",
        "Bobot daya GPU dan host",
        expr=safe_div(
            R("gpu_tdp_w") * R("bought_gpus") * R("gpu_idle_power_frac")
            + R("host_power_w") * R("servers_needed") * R("host_idle_power_frac"),
            R("gpu_tdp_w") * R("bought_gpus") + R("host_power_w") * R("servers_needed"),
            R("host_idle_power_frac"),
        ),
        overridable=True,
        doc_id=(
            "Daya idle armada ÷ daya saat beban: (TDP GPU × GPU × porsi idle GPU + daya host × server × "
            "porsi idle host) ÷ (TDP GPU × GPU + daya host × server). Ketik porsi terukur untuk "
            "memakainya."
        ),
        source_id="Bobot daya GPU dan host",
    ),
    Quantity(
        "average_power_w",
        "Daya rata-rata",
        "Average power",
        "Load power during the duty cycle, idle power for the rest of the day.",
        BOOK_POWER,
        expr=R("system_power_w") * (R("duty_cycle_frac") + (1 - R("duty_cycle_frac")) * R("idle_power_frac")),
        doc_id="Daya beban selama duty cycle, daya idle di sisa hari.",
        source_id="Buku, bab 16.1: kWh = W × 24 jam ÷ 1000; Rp = kWh × tarif",
    ),
    lookup(
        "cooling_type",
        "deployment",
        "cooling_type",
        fallback="data-centre",
        doc_id=(
            "Cara ruangan didinginkan, dari profil penempatan; menentukan PUE kecuali PUE diketik. "
            "data-centre 1,3 (bawaan buku), none 1,0 (workstation di ruangan berpendingin untuk orang), "
            "precision-ac 1,6, liquid 1,2, immersion 1,1, office-ac 2,0."
        ),
        source_id="Buku, asumsi finansial dan bab pendinginan",
    ),
    Quantity(
        "pue",
        "PUE (efektivitas penggunaan daya)",
        "PUE (power usage effectiveness)",
        "Facility power ÷ IT power: cooling and power distribution on top of the servers; from the cooling type ("
        + ", ".join(f"{kind} {pue}" for kind, pue in COOLING_PUE.items())
        + "). Type a measured PUE to use it instead.",
        BOOK_COOLING,
        expr=_pue_of_cooling(),
        overridable=True,
        doc_id=(
            "Daya fasilitas ÷ daya IT: pendinginan dan distribusi daya di atas konsumsi server; dari "
            "jenis pendinginan. Isi PUE terukur untuk memakainya."
        ),
        source_id="Buku, catatan metodologi 'Asumsi Finansial & Nilai Tukar' dan subbab pendinginan",
    ),
    Quantity(
        "facility_power_w",
        "Daya fasilitas",
        "Facility power",
        "Average power × PUE.",
        "The Green Grid, PUE definition",
        expr=R("average_power_w") * R("pue"),
        doc_id="Daya rata-rata × PUE.",
        source_id="Definisi PUE dari konsorsium Green Grid",
    ),
    Quantity(
        "year_days",
        "Hari per tahun",
        "Days per year",
        "Days in a year.",
        "Buku: 3 tahun = 1.095 hari",
        default=365,
        doc_id="Hari dalam setahun.",
        source_id="Buku, bab 16.1: 3 tahun = 1.095 hari",
    ),
    Quantity(
        "month_days",
        "Hari per bulan",
        "Days per month",
        "Days per year ÷ 12, so twelve months make one year.",
        "365 ÷ 12 = 30,42",
        expr=R("year_days") / 12,
        doc_id="Hari per tahun ÷ 12, sehingga dua belas bulan tepat satu tahun.",
        source_id="365 ÷ 12 = 30,42",
    ),
    Quantity(
        "energy_kwh_per_day",
        "Energi per hari",
        "Energy per day",
        "Facility power × 24 h ÷ 1000.",
        BOOK_POWER,
        expr=R("facility_power_w") * 24 / 1000,
        doc_id="Daya fasilitas × 24 jam ÷ 1000.",
        source_id="Buku, bab 16.1: kWh = W × 24 jam ÷ 1000",
    ),
    Quantity(
        "energy_kwh_per_month",
        "Energi per bulan",
        "Energy per month",
        "Per day × days per month.",
        BOOK_POWER,
        expr=R("energy_kwh_per_day") * R("month_days"),
        doc_id="Energi per hari × hari per bulan.",
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "energy_kwh_per_year",
        "Energi per tahun",
        "Energy per year",
        "Per day × days per year.",
        BOOK_POWER,
        expr=R("energy_kwh_per_day") * R("year_days"),
        doc_id="Energi per hari × hari per tahun.",
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "electricity_idr_per_day",
        "Biaya listrik per hari",
        "Electricity cost per day",
        "kWh per day × tariff.",
        BOOK_POWER,
        expr=R("energy_kwh_per_day") * R("electricity_idr_per_kwh"),
        doc_id="kWh per hari × tarif.",
        source_id="Buku, bab 16.1: Rp = kWh × tarif",
    ),
    Quantity(
        "electricity_idr_per_month",
        "Biaya listrik per bulan",
        "Electricity cost per month",
        "kWh per month × tariff.",
        BOOK_POWER,
        expr=R("energy_kwh_per_month") * R("electricity_idr_per_kwh"),
        doc_id="kWh per bulan × tarif.",
        source_id="Buku, bab 16.1: Rp = kWh × tarif",
    ),
    Quantity(
        "electricity_idr_per_year",
        "Biaya listrik per tahun",
        "Electricity cost per year",
        "kWh per year × tariff.",
        BOOK_POWER,
        expr=R("energy_kwh_per_year") * R("electricity_idr_per_kwh"),
        doc_id="kWh per tahun × tarif.",
        source_id="Buku, bab 16.1: Rp = kWh × tarif",
    ),
    Quantity(
        "full_load_gpu_j_per_output_token",
        "Energi GPU per token output (beban penuh)",
        "GPU energy per output token (full load)",
        "GPUs of one replica at TDP ÷ its maximum output throughput: the GPUs' joules per generated token when the "
        "replica runs flat out (an upper bound: GPUs at full load draw up to their TDP). Comparable with published "
        "GPU-only figures such as the ML.ENERGY Leaderboard's.",
        "Power × time: J = W × s; the ML.ENERGY Leaderboard v3.0 (December 2025) measures GPU energy per token",
        expr=safe_div(R("gpu_tdp_w") * R("n_gpus"), R("max_throughput_tok_s")),
        doc_id="GPU satu replika pada TDP ÷ throughput output maksimumnya: joule GPU per token yang dihasilkan bila "
        "replika berjalan penuh (batas atas: GPU pada beban penuh menarik hingga TDP-nya). Sebanding dengan angka "
        "GPU saja yang dipublikasikan, seperti ML.ENERGY Leaderboard.",
        source_id="Daya × waktu: J = W × s; ML.ENERGY Leaderboard v3.0 (Desember 2025) mengukur energi GPU per token",
    ),
    Quantity(
        "energy_j_per_output_token",
        "Energi per token output (beban terencana)",
        "Energy per output token (planned load)",
        "Facility energy per month ÷ output tokens per month: everything the fleet draws at the planned load, idle "
        "hours, host and cooling included, per generated token.",
        BOOK_POWER,
        expr=safe_div(R("energy_kwh_per_month") * 3_600_000, R("output_tokens_per_month")),
        doc_id="Energi fasilitas per bulan ÷ token output per bulan: semua yang ditarik armada pada beban terencana, "
        "termasuk jam idle, host dan pendinginan, per token yang dihasilkan.",
        source_id="1 kWh = 3.600.000 J; buku, bab 16.1",
    ),
    Quantity(
        "energy_wh_per_1m_tokens",
        "Energi per 1 juta token",
        "Energy per 1M tokens",
        "Facility energy per month ÷ demand tokens per month (input + output) × 1,000,000, in Wh.",
        BOOK_POWER,
        expr=safe_div(R("energy_kwh_per_month") * 1000 * 1_000_000, R("demand_tokens_per_month")),
        doc_id="Energi fasilitas per bulan ÷ token kebutuhan per bulan (input + output) × 1.000.000, dalam Wh.",
        source_id="Buku, bab 16.1",
    ),
    Quantity(
        "grid_emission_kg_per_kwh",
        "Faktor emisi listrik",
        "Grid emission factor",
        "kg CO₂ per kWh of the grid that supplies the fleet: Indonesia's average grid emission factor; type your "
        "own (a renewable-energy contract, the JAMALI grid's published factor, your colocation's figure).",
        "PLN's RUPTL 2015-2024, chapter 6: Indonesia's average grid emission factor 0.867 kg CO2/kWh (2015), projected "
        "0.758 (2024)",
        default=0.758,
        doc_id="kg CO₂ per kWh dari jaringan yang memasok armada: faktor emisi grid rata-rata Indonesia; ketik "
        "milik Anda (kontrak energi terbarukan, faktor grid JAMALI yang dipublikasikan, angka colocation Anda).",
        source_id="RUPTL PLN 2015-2024, bab 6: faktor emisi grid rata-rata Indonesia 0,867 kgCO2/kWh (2015), "
        "proyeksi 0,758 (2024)",
    ),
    Quantity(
        "co2_kg_per_month",
        "Emisi CO₂ per bulan",
        "CO₂ per month",
        "kWh per month × the grid's emission factor.",
        "GHG Protocol Scope 2 (location-based): energy × the grid's emission factor",
        expr=R("energy_kwh_per_month") * R("grid_emission_kg_per_kwh"),
        doc_id="kWh per bulan × faktor emisi grid.",
        source_id="GHG Protocol Scope 2 (berbasis lokasi): energi × faktor emisi grid",
    ),
)
