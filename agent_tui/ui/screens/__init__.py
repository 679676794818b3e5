"""Screens: the main conversation, and the inspector, request, memo, MCP, session and dialog screens."""
