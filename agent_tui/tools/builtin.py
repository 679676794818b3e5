"""The built-in tool set, assembled in one place.

The agent builds its registry here and adds MCP tools to it; the order below is the
order the model sees the tools in (most used first).
"""

from __future__ import annotations

from agent_tui.tools import (
    fetch,
    fs_edit,
    fs_list,
    fs_read,
    fs_write,
    git_tools,
    memory_tools,
    search,
    shell,
)
from agent_tui.tools.registry import ToolRegistry


def builtin_registry() -> ToolRegistry:
    """A registry with every built-in tool."""
    registry = ToolRegistry()
    registry.register(fs_read.SPEC, fs_read.read_file)
    registry.register(fs_edit.SPEC, fs_edit.edit_file, fs_edit.check_edit)
    registry.register(fs_write.SPEC, fs_write.write_file, fs_write.check_write)
    registry.register(fs_list.SPEC, fs_list.list_dir)
    registry.register(search.SPEC, search.search)
    registry.register(shell.SPEC, shell.run_command)
    registry.register(git_tools.STATUS_SPEC, git_tools.git_status)
    registry.register(git_tools.DIFF_SPEC, git_tools.git_diff)
    registry.register(git_tools.LOG_SPEC, git_tools.git_log)
    registry.register(memory_tools.SAVE_MEMO_SPEC, memory_tools.save_memo)
    registry.register(memory_tools.RECALL_SPEC, memory_tools.recall)
    registry.register(fetch.FETCH_SPEC, fetch.fetch_result)
    return registry
