"""The offline demo is honest: it runs the tests with the standard library under the running
interpreter, reacts to what the tools returned (a failed or impossible test run, a denied call
with its reason), never claims a result it did not see, plays its fix only when asked for it, and
answers anything else briefly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.demo import FIX_NEW, plan_step, unittest_command
from agent_tui.core.notes import NEXT_USER_MESSAGE
from agent_tui.demo_project import make_demo_workspace

BIN = str(Path(sys.executable).with_name("agent-tui"))
TASK = "Items at the restock threshold are not flagged for restocking. Fix it and run the tests."
FAILING_RUN = ("$ python -m unittest\nexit code 1 (0.1s, 12 lines of output)\nF...\nFAIL: "
               "test_restock_includes_items_at_threshold (test_stock.StockTest)\nRan 4 tests in 0.001s\n\n"
               "FAILED (failures=1)")
PASSING_RUN = "$ python -m unittest\nexit code 0 (0.1s, 4 lines of output)\n....\nRan 4 tests in 0.001s\n\nOK"


def convo(*calls: tuple[str, dict[str, Any], str], user: str = TASK, earlier: bool = False) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are agent-tui"}]
    if earlier:
        msgs += [{"role": "user", "content": TASK}, {"role": "assistant", "content": "Fixed it."}]
    msgs.append({"role": "user", "content": user})
    for n, (name, args, result) in enumerate(calls):
        msgs.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{n}", "content": result})
    return msgs


READS = (("list_dir", {"path": "."}, "./"), ("read_file", {"path": "inventory/stock.py"}, "code"),
         ("read_file", {"path": "tests/test_stock.py"}, "tests"))


def test_tests_run_with_unittest_under_the_running_interpreter() -> None:
    text, calls = plan_step(convo(*READS))
    assert calls == [("run_command", {"command": unittest_command()})]
    assert sys.executable in unittest_command() and "-m unittest" in unittest_command() and "pytest" not in unittest_command()


def test_a_test_run_that_could_not_run_stops_without_claims() -> None:
    run = ("run_command", {"command": "python -m pytest -q"}, "$ python -m pytest -q\nexit code 127 (0.0s, 1 lines "
           "of output)\nsh: 1: python: not found")
    text, calls = plan_step(convo(*READS, run))
    assert calls == [] and "could not run" in text and "127" in text and "I changed nothing" in text
    assert "pass" not in text


def test_a_denied_run_and_a_denied_edit_change_what_it_says() -> None:
    denied = ("run_command", {"command": unittest_command()}, "denied by user: not on this machine\n(...)")
    text, calls = plan_step(convo(*READS, denied))
    assert calls == [] and "not on this machine" in text and "changed nothing" in text
    fix = ("edit_file", {"path": "inventory/stock.py"}, "The user denied this write (edit_file inventory/stock.py).")
    text, calls = plan_step(convo(*READS, ("run_command", {}, FAILING_RUN), fix))
    assert calls == [] and "denied the edit" in text and "unchanged" in text


def test_tests_still_failing_after_the_fix_are_reported() -> None:
    edit = ("edit_file", {"path": "inventory/stock.py"}, "Edited inventory/stock.py: replaced 1 occurrence(s)")
    still = FAILING_RUN.replace("test_restock_includes_items_at_threshold", "test_total_value")
    text, calls = plan_step(convo(*READS, ("run_command", {}, FAILING_RUN), edit, ("run_command", {}, still)))
    assert calls == [] and "still fail" in text and "not done" in text
    text, calls = plan_step(convo(*READS, ("run_command", {}, FAILING_RUN), edit, ("run_command", {}, PASSING_RUN)))
    assert calls and calls[0][0] == "save_memo" and "4 tests pass" in calls[0][1]["text"]


def test_a_second_request_gets_a_short_answer_not_a_replay() -> None:
    text, calls = plan_step(convo(user="what else can you do?", earlier=True))
    assert calls == [] and "offline demo" in text


@pytest.mark.parametrize("first", ["What does this project do? Just explain, do not change anything.",
                                   "Don't fix the restock bug yet, only tell me where it is.", "hello"])
def test_a_first_message_that_is_not_the_task_gets_the_short_answer(first: str) -> None:
    text, calls = plan_step(convo(user=first))
    assert calls == [] and "offline demo" in text and "fix the restock bug" in text


@pytest.mark.parametrize("ask", [TASK, "fix the restock bug", "Please repair the threshold bug in stock.py"])
def test_the_fix_plays_when_asked_for_even_after_another_first_message(ask: str) -> None:
    assert plan_step(convo(user=ask))[1] == [("list_dir", {"path": ".", "depth": 2})]
    after = convo(user="what does it do?")[:-1] + [{"role": "assistant", "content": "This is the offline demo"},
                                                    {"role": "user", "content": ask}]
    assert plan_step(after)[1] == [("list_dir", {"path": ".", "depth": 2})]
    again = convo(user=ask, earlier=True)  # the task was asked (and played) before: not replayed
    text, calls = plan_step(again)
    assert calls == [] and "/new" in text, "it says how to watch it again (a tester asked again after esc)"


def test_notes_merged_into_the_task_do_not_read_as_the_user_saying_change_nothing() -> None:
    """The request merges the engine's notes into the user's message (a memo from an earlier session says
    "no files changed in this turn"); the demo took that for "do not change anything" and refused its own
    task in every new session of a demo folder used for a while."""
    memo = ("- (for reference, memo 3) Changed: no files changed in this turn\nWhy: fix the restock bug\n"
            "Next: do not edit tests")
    assert plan_step(convo(user=f"fix the restock bug\n\n{memo}"))[1] == [("list_dir", {"path": ".", "depth": 2})]
    said = convo(user=f"fix the restock bug but do not change the tests\n\n{memo}")
    assert plan_step(said)[1] == [], "the user's own words still count"


def test_a_task_merged_before_a_later_message_is_read_as_asked_before() -> None:
    """After a compaction the kept task and the user's next message travel as one user message; the demo
    answers the latest one, and knows the fix was asked for already."""
    merged = convo(user=f"fix the restock bug\n\n{NEXT_USER_MESSAGE}\nwhat else can you do?")
    text, calls = plan_step(merged)
    assert calls == [] and "offline demo" in text and "Ask it to" not in text


def _restricted_path(tmp_path: Path) -> str:
    """A PATH with a shell and git but no python and no pytest."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "bash", "git"):
        found = subprocess.run(["which", tool], capture_output=True, text=True).stdout.strip()
        if found:
            (bin_dir / tool).symlink_to(found)
    assert not (bin_dir / "python").exists() and not (bin_dir / "pytest").exists()
    return str(bin_dir)


def _run_demo(ws: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "VIRTUAL_ENV")}
    env["PATH"] = path
    return subprocess.run([BIN, "run", "--demo", "--workspace", str(ws)], capture_output=True, text=True,
                          timeout=300, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("broken", [False, True], ids=["fixes", "reports-still-failing"])
def test_run_demo_without_python_on_path_reports_the_true_result(tmp_path: Path, broken: bool) -> None:
    ws = make_demo_workspace(tmp_path / "inventory-app")
    if broken:  # a second, unrelated failure the demo cannot fix: it must not claim success
        (ws / "tests" / "test_extra.py").write_text(
            "import unittest\n\n\nclass Extra(unittest.TestCase):\n    def test_broken(self):\n"
            "        self.assertEqual(1, 2)\n")
    proc = _run_demo(ws, _restricted_path(tmp_path))
    out = proc.stdout
    assert "-m unittest" in out and "exit code 127" not in out, out[-3000:]
    assert FIX_NEW in (ws / "inventory" / "stock.py").read_text()
    truth = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests"], cwd=ws,
                           capture_output=True, text=True)
    if broken:
        assert truth.returncode != 0
        assert "still fail" in out and "passes" not in out, out[-3000:]
    else:
        assert truth.returncode == 0, truth.stderr
        assert "`python -m unittest` passes (4 tests)" in out, out[-3000:]
        assert proc.returncode == 0


def _memo_request(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return msgs + [{"role": "user", "content": "Write a progress memo for this coding session, so that ..."}]


def test_a_memo_after_the_edit_says_what_changed_and_how_the_tests_stand() -> None:
    edit = ("edit_file", {"path": "inventory/stock.py"}, "Edited inventory/stock.py: replaced 1 occurrence(s)")
    text, calls = plan_step(_memo_request(convo(*READS, ("run_command", {}, FAILING_RUN), edit)))
    assert calls == [] and text.startswith("Changed: inventory/stock.py")
    assert "not finished" in text and "FAILED (failures=1)" in text
    text, _ = plan_step(_memo_request(convo(*READS, ("run_command", {}, FAILING_RUN), edit,
                                            ("run_command", {}, PASSING_RUN))))
    assert text.startswith("Changed: inventory/stock.py") and "all 4 tests pass" in text
    text, _ = plan_step(_memo_request(convo(*READS)))
    assert text.startswith("Changed: nothing yet") and "tests not run yet" in text


def test_a_summary_lists_only_files_really_changed() -> None:
    body = ("Previous summary:\n(none)\n\nNew conversation to fold in:\n[m1] user:\n" + TASK + "\n\n"
            "[t2] tool read_file:\ninventory/stock.py (40 lines)\n\n[t3] tool run_command:\n" + FAILING_RUN)
    msgs = [{"role": "system", "content": "You compress the older part of a coding session"},
            {"role": "user", "content": body}]
    text, _ = plan_step(msgs)
    assert "Files changed:\n- none" in text and "Agent decisions" not in text
    assert TASK in text and "FAILED (failures=1)" in text
    edited = body + "\n\n[t5] tool edit_file:\nEdited inventory/stock.py: replaced 1 occurrence(s)"
    text, _ = plan_step([msgs[0], {"role": "user", "content": edited}])
    assert "Files changed:\n- inventory/stock.py" in text and "<=" in text
    later = f"Previous summary:\n{text}\n\nNew conversation to fold in:\n[m9] user:\nthanks"
    text2, _ = plan_step([msgs[0], {"role": "user", "content": later}])
    assert "- inventory/stock.py" in text2 and "- thanks" in text2 and TASK in text2


def test_the_summarising_call_on_the_cached_request_gets_a_summary_not_a_step() -> None:
    """The loop's summarising call resends the request with the instruction last; the demo model
    answers it with the new summary lines (what the rounds leaving show), never with a tool call."""
    from agent_tui.agent.summariser_llm import summary_request_cached
    from agent_tui.core.items import ContextItem

    leaving = [ContextItem(id="t3", category="results", content=FAILING_RUN, tokens=40, role="tool")]
    request = convo(*READS, ("run_command", {"command": "python -m unittest"}, FAILING_RUN))
    text, calls = plan_step(summary_request_cached(request, leaving, None))
    assert calls == [] and "FAILED (failures=1)" in text and TASK in text
    assert "Files changed:\n- none" in text
    whole = summary_request_cached(request, leaving, "Command and test results:\n- OK (old run)")
    text, calls = plan_step(whole)
    assert calls == [] and "FAILED (failures=1)" in text  # the newer run wins over the previous summary


def test_demo_refuses_a_folder_of_the_users_and_touches_nothing_there(tmp_path: Path) -> None:
    """`--demo -w DIR` on a repository of the user's: its README is not replaced, its tests do not run."""
    ws = tmp_path / "repo"
    (ws / "tests").mkdir(parents=True)
    (ws / "README.md").write_text("mine\n")
    (ws / "tests" / "test_zz.py").write_text("import pathlib\npathlib.Path('RAN_REPO_CODE').write_text('x')\n")
    (ws / ".agent-tui-demo").write_text("a marker a repository could ship\n")  # only the user's own record counts
    for argv in ([BIN, "run", "--demo", "--workspace", str(ws)], [BIN, "--demo", "--workspace", str(ws)]):
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                              env={**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "xdg")})
        assert proc.returncode == 2 and "not an empty folder" in proc.stderr, proc.stderr[-2000:]
    assert (ws / "README.md").read_text() == "mine\n"
    assert sorted(p.name for p in ws.rglob("*")) == [".agent-tui-demo", "README.md", "test_zz.py", "tests"]
    again = make_demo_workspace(tmp_path / "new")  # a new folder, then the same copy again: fine
    assert make_demo_workspace(again) == again and (again / "inventory").is_dir()


def test_the_offline_demo_never_lets_litellm_fetch_its_price_map() -> None:
    """``import litellm`` fetches its price map from GitHub unless LITELLM_LOCAL_MODEL_COST_MAP is set; the
    headless demo imported it (registering its scripted model) before the module that set it."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "os.environ.pop('LITELLM_LOCAL_MODEL_COST_MAP', None)\n"
        "seen = []\n"
        "class Hook:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'litellm': seen.append(os.environ.get('LITELLM_LOCAL_MODEL_COST_MAP'))\n"
        "        return None\n"
        "sys.meta_path.insert(0, Hook())\n"
        "from agent_tui.agent.demo import register_demo_provider\n"
        "register_demo_provider()\n"
        "print(seen)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in __import__("os").environ.items()
                               if k != "LITELLM_LOCAL_MODEL_COST_MAP"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['True']"
    assert "cost map" not in done.stderr
