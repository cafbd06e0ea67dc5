"""kalkulator: LLM inference sizing and cost, from one formula engine to a live Excel workbook."""

__version__ = "0.1.0"
