"""agent-tui: a terminal coding agent whose edge is context engineering.

Importing the package must stay cheap: no litellm, no textual here.
"""

__version__ = "0.1.0"
