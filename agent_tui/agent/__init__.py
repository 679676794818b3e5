"""agent layer: imports no Textual (checked by import-linter)."""
