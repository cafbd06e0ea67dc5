"""Workbook layer: layout, writing and verification; it knows quantities only as named expressions."""
