"""Stock keeping: what we have, what it is worth, what to reorder."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    """One product line in the warehouse."""

    name: str
    price: float
    qty: int

    def value(self) -> float:
        """Price of everything we hold of this item."""
        return self.price * self.qty


def total_value(items: list[Item]) -> float:
    """Value of the whole stock, rounded to cents."""
    return round(sum(item.value() for item in items), 2)


def restock_needed(items: list[Item], threshold: int = 5) -> list[str]:
    """Names of items at or below the restock threshold, sorted by name."""
    return sorted(item.name for item in items if item.qty < threshold)


def most_valuable(items: list[Item], n: int = 3) -> list[Item]:
    """The n items whose stock is worth the most."""
    return sorted(items, key=lambda item: item.value(), reverse=True)[:n]
