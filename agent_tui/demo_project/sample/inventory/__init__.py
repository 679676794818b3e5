"""A tiny inventory library."""

from inventory.stock import Item, restock_needed, total_value

__all__ = ["Item", "restock_needed", "total_value"]
