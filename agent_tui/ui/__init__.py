"""The Textual UI: a thin client of the core, agent and store layers."""
