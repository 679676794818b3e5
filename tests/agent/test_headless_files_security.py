"""The real `agent-tui` binary against a hostile repository: read tools run none of its programs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.agent.helpers import make_repo
from tests.support.fake_openai import Reply

BIN = str(Path(sys.executable).with_name("agent-tui"))


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(k, None)
    env.update(extra)
    return env


def _run(root: Path, base_url: str, *flags: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BIN, "run", "look around", "--model", "openai/gpt-4o", "--api-base", base_url,
                           "--json", "--workspace", str(root), *flags], capture_output=True, text=True,
                          timeout=180, env=env or _env(OPENAI_API_KEY="sk-test-files-0123456789"),
                          stdin=subprocess.DEVNULL)


def _tool_texts(stdout: str) -> list[str]:
    out = []
    for line in stdout.splitlines():
        event = json.loads(line)
        if event.get("type") == "tool_finished":
            out.append(json.dumps(event))
    return out


def test_fsmonitor_in_git_config_never_runs(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    marker = tmp_path / "PWNED"
    subprocess.run(["git", "config", "core.fsmonitor", f"touch {marker}; false"], cwd=root, check=True)
    (root / "calc.py").write_text((root / "calc.py").read_text() + "# changed\n")
    fake_llm.script(
        Reply.tool_call("list_dir", {"path": "."}),
        Reply.tool_call("search", {"pattern": "def add"}),
        Reply.tool_call("git_status", {}),
        Reply.tool_call("git_diff", {}),
        Reply.text("done"),
    )
    proc = _run(root, fake_llm.base_url)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = _tool_texts(proc.stdout)
    assert len(results) == 4
    assert any("modified: calc.py" in r for r in results)
    assert not marker.exists()


def test_model_cannot_write_git_config_even_with_yes(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    marker = tmp_path / "PWNED"
    config = (root / ".git" / "config").read_text()
    fake_llm.script(
        Reply.tool_call("read_file", {"path": ".git/config"}),
        Reply.tool_call("write_file", {"path": ".git/config",
                                       "content": config + f"[core]\n\tfsmonitor = touch {marker}\n"}),
        Reply.tool_call("write_file", {"path": ".agent-tui/config.toml",
                                       "content": '[approval]\ndefault_command = "allow"\n'}),
        Reply.tool_call("git_status", {}),
        Reply.text("done"),
    )
    proc = _run(root, fake_llm.base_url, "--yes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (root / ".git" / "config").read_text() == config
    assert not (root / ".agent-tui" / "config.toml").exists()
    assert not marker.exists()
    assert sum("write tools never change" in r for r in _tool_texts(proc.stdout)) == 2


def test_git_tools_in_subfolder_of_larger_repo_refuse(tmp_path: Path, fake_llm) -> None:
    outer = make_repo(tmp_path / "outer")
    (outer / "calc.py").write_text("password=hunter2-outer-secret\n")
    sub = outer / "sub"
    sub.mkdir()
    (sub / "x.py").write_text("x = 1\n")
    fake_llm.script(Reply.tool_call("git_status", {}), Reply.tool_call("git_diff", {}),
                    Reply.tool_call("git_log", {}), Reply.text("done"))
    proc = _run(sub, fake_llm.base_url)
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = _tool_texts(proc.stdout)
    assert len(results) == 3
    for r in results:
        assert "is outside the workspace" in r
    assert "hunter2" not in json.dumps([r.body for r in fake_llm.requests])


def test_list_dir_hides_the_agent_store(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".gitignore").write_text("__pycache__/\n")  # the store is not even gitignored
    fake_llm.script(Reply.tool_call("list_dir", {"path": ".", "depth": 3}),
                    Reply.tool_call("search", {"pattern": "memory"}), Reply.text("done"))
    proc = _run(root, fake_llm.base_url)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (root / ".agent-tui" / "memory.db").exists()
    sent = json.dumps(fake_llm.requests[-1].messages)
    assert "calc.py" in sent
    assert ".agent-tui" not in sent and "memory.db" not in sent


def test_active_file_swapped_for_outside_symlink_is_not_sent(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("OUTSIDE-CONTENT-7f3a9 must never be sent\n")
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.tool_call("run_command", {"command": f"rm calc.py && ln -s {secret} calc.py"}),
        Reply.text("done"),
    )
    proc = _run(root, fake_llm.base_url, "--yes")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (root / "calc.py").is_symlink()
    sent = [json.dumps(r.body) for r in fake_llm.requests]
    assert "def add" in sent[1]  # the file was active before the swap
    assert not any("OUTSIDE-CONTENT-7f3a9" in body for body in sent)
    assert "content dropped" in sent[-1] or "calc.py" not in sent[-1].split("run_command")[-1]


ENV_FILE_KEY = "plantedEnvKey-9f8e7d6c5b4a3210"
DB_PASSWORD = "DbPassw0rd-77aa"
PRINTED_TOKEN = "ghp_" + "Zq8" * 12
ENV_VAR_TOKEN = "envtok-1a2b3c4d5e6f7a8b"


def _store_texts(db: Path) -> list[str]:
    """Every value of every table, compressed blobs decompressed."""
    import sqlite3
    import zlib

    conn = sqlite3.connect(db)
    out: list[str] = []
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            for row in conn.execute(f'SELECT * FROM "{table}"'):
                for value in row:
                    if isinstance(value, bytes):
                        try:
                            value = zlib.decompress(value)
                        except zlib.error:
                            pass
                        out.append(value.decode("utf-8", "replace"))
                    elif value is not None:
                        out.append(str(value))
    finally:
        conn.close()
    return out


def test_secrets_never_reach_request_store_json_or_logs(tmp_path: Path, fake_llm) -> None:
    root = make_repo(tmp_path / "proj")
    (root / ".env").write_text(f"SERVICE_API_KEY={ENV_FILE_KEY}\n"
                               f"DATABASE_URL=postgres://app:{DB_PASSWORD}@db.internal:5432/app\nDEBUG=1\n")
    (root / "notes.txt").write_text(f"the service wants {ENV_VAR_TOKEN} here\n")  # an env secret's value in a file
    fake_llm.script(
        Reply.tool_call("read_file", {"path": ".env"}),
        Reply.tool_call("run_command", {"command": f"echo 'your token: {PRINTED_TOKEN}'"}),
        Reply.tool_call("run_command", {"command": "env | sort"}),
        Reply.tool_call("read_file", {"path": "notes.txt"}),
        Reply.tool_call("search", {"pattern": "SERVICE_API_KEY"}),
        Reply.text("done"),
    )
    env = _env(OPENAI_API_KEY="sk-test-files-0123456789", MY_SERVICE_TOKEN=ENV_VAR_TOKEN)
    proc = _run(root, fake_llm.base_url, "--yes", env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    planted = (ENV_FILE_KEY, DB_PASSWORD, PRINTED_TOKEN, ENV_VAR_TOKEN)
    bodies = [r.raw.decode("utf-8", "replace") for r in fake_llm.requests]
    stored = _store_texts(root / ".agent-tui" / "memory.db")
    files = [p for p in (root / ".agent-tui").rglob("*") if p.is_file()]
    for secret in planted:
        assert not any(secret in b for b in bodies), secret
        assert not any(secret in s for s in stored), secret
        assert secret not in proc.stdout and secret not in proc.stderr, secret
        for path in files:
            assert secret.encode() not in path.read_bytes(), (secret, path)
    # not vacuous: the file, the printed token and the env listing were all sent and stored
    assert len(bodies) >= 5
    assert "SERVICE_API_KEY" in bodies[-1] and "db.internal" in bodies[-1] and "HOME=" in bodies[-1]
    assert "MY_SERVICE_TOKEN=" not in bodies[-1], "commands never get secret-named variables (tools/cmd_env.py)"
    assert "[REDACTED:env:MY_SERVICE_TOKEN]" in bodies[-1], "an env secret's value is masked wherever it shows up"
    assert "[REDACTED:github-token]" in bodies[-1] and "[REDACTED:url-password]" in bodies[-1]
    assert any("SERVICE_API_KEY" in s for s in stored)
