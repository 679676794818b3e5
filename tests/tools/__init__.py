"""Tests of the built-in tools, the registry and result shaping."""
