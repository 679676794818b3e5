import unittest

from inventory.stock import Item, most_valuable, restock_needed, total_value

ITEMS = [
    Item("bolts", 0.10, 500),
    Item("gears", 12.50, 5),
    Item("belts", 7.25, 2),
    Item("motors", 89.00, 12),
]


class StockTest(unittest.TestCase):
    def test_total_value(self):
        self.assertEqual(total_value(ITEMS), 1195.0)

    def test_restock_includes_items_at_threshold(self):
        self.assertEqual(restock_needed(ITEMS, threshold=5), ["belts", "gears"])

    def test_restock_empty_when_all_stocked(self):
        self.assertEqual(restock_needed([Item("bolts", 0.1, 50)]), [])

    def test_most_valuable(self):
        self.assertEqual([i.name for i in most_valuable(ITEMS, 2)], ["motors", "gears"])


if __name__ == "__main__":
    unittest.main()
