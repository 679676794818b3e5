"""A tool run on the host runs what the repository's configuration names (a rustup toolchain path, a cargo
wrapper, a mypy plugin, a JavaScript ESLint config, a module planted ahead of the standard library, a
``node_modules/.bin`` program under ``npx``): no allow rule covers that, the reason names the file, and in the
sandbox the same line stays allowed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.agent.command_rules_toolcfg import tool_config_blockers
from agent_tui.agent.permissions import Policy
from agent_tui.tools.cmdparse import parse_command

RULES = ["cargo --version", "cargo metadata", "cargo tree", "rustc --version", "rustup show", "env", "sh -c",
         "cd", "python3 -m json.tool", "python3 -m pylint", "uv run", "pylint", "mypy", "flake8",
         "coverage report", "eslint", "prettier", "stylelint", "npx eslint", "pnpm exec", "yarn", "bunx"]


def policy(ws: Path, *, sandboxed: bool) -> Policy:
    p = Policy.from_config({"allow_commands": RULES}, interactive=True, workspace=ws)
    p.sandboxed = sandboxed
    return p


def plant(ws: Path, files: dict[str, str]) -> Path:
    ws.mkdir(parents=True, exist_ok=True)
    for name, body in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(body)
    return ws


def reason(ws: Path, line: str, *, sandboxed: bool = False) -> tuple[str, str]:
    v = policy(ws, sandboxed=sandboxed).verdict("run_command", "command", {"command": line})
    return v.decision, v.reason


PLANTED = [
    # rustup proxies: a toolchain path runs that folder's programs for any call
    ({"rust-toolchain.toml": '[toolchain]\npath = "/proc/self/cwd/tc"\n'}, "cargo --version",
     "rust-toolchain.toml", "toolchain.path"),
    ({"rust-toolchain.toml": '[toolchain]\npath = "tc"\n'}, "env cargo --version", "rust-toolchain.toml", "path"),
    ({"rust-toolchain": "./tc\n"}, "rustc --version", "rust-toolchain", "toolchain path"),
    ({"rust-toolchain": '[toolchain]\npath = "tc"\n'}, "rustup show", "rust-toolchain", "toolchain.path"),
    ({"sub/rust-toolchain.toml": '[toolchain]\npath = "tc"\n', "sub/x": ""}, "cd sub && cargo --version",
     "sub/rust-toolchain.toml", "toolchain.path"),
    # cargo's own configuration
    ({".cargo/config.toml": '[build]\nrustc-wrapper = "./w.sh"\n'}, "cargo metadata", ".cargo/config.toml",
     "build.rustc-wrapper"),
    ({".cargo/config": '[alias]\ntree = "run --bin x"\n'}, "cargo tree", ".cargo/config", "alias.tree"),
    ({".cargo/config.toml": '[target.x86_64-unknown-linux-gnu]\nrunner = "./r"\n'}, "cargo --version",
     ".cargo/config.toml", "runner"),
    ({".cargo/config.toml": '[build]\nrustflags = ["-C", "linker=./ld"]\n'}, "cargo --version",
     ".cargo/config.toml", "build.rustflags"),
    ({".cargo/config.toml": '[env]\nRUSTC_WRAPPER = "./w"\n'}, "cargo --version", ".cargo/config.toml",
     "env.RUSTC_WRAPPER"),
    ({".cargo/config.toml": '[registry]\nglobal-credential-providers = ["./p"]\n'}, "cargo --version",
     ".cargo/config.toml", "credential"),
    ({".cargo/config.toml": '[unstable]\nconfig-include = true\n'}, "cargo --version", ".cargo/config.toml",
     "unstable"),
    ({".cargo/config.toml": "[build\n"}, "cargo --version", ".cargo/config.toml", "not valid TOML"),
    # python -m: the working folder comes first on the import path
    ({"json/__init__.py": "print('planted')\n"}, "python3 -m json.tool a.json", "json/", "import path"),
    ({"argparse.py": "print('planted')\n"}, "python3 -m json.tool a.json", "argparse.py", "import path"),
    ({"json.py": ""}, "uv run python -m json.tool a.json", "json.py", "import path"),
    ({".pylintrc": "[MAIN]\ninit-hook = import os\n"}, "python3 -m pylint x.py", ".pylintrc", "init-hook"),
    # linters whose configuration loads code
    ({"pylintrc": "[MASTER]\nload-plugins = evil\n"}, "pylint x.py", "pylintrc", "load-plugins"),
    ({"pyproject.toml": '[tool.pylint.main]\nload-plugins = ["evil"]\n'}, "pylint x.py", "pyproject.toml",
     "load-plugins"),
    ({"mypy.ini": "[mypy]\nplugins = evil\n"}, "mypy .", "mypy.ini", "plugins"),
    ({"setup.cfg": "[mypy]\nplugins = evil\n"}, "sh -c 'mypy .'", "setup.cfg", "plugins"),
    ({"pyproject.toml": '[tool.mypy]\npython_executable = "./py"\n'}, "mypy .", "pyproject.toml",
     "python_executable"),
    ({"tox.ini": "[flake8:local-plugins]\nextension =\n    X = evil:Plugin\npaths = .\n"}, "flake8 .", "tox.ini",
     "flake8:local-plugins"),
    ({".coveragerc": "[run]\nplugins = evil\n"}, "coverage report", ".coveragerc", "plugins"),
    ({"pyproject.toml": '[tool.coverage.run]\nplugins = ["evil"]\n'}, "coverage report", "pyproject.toml",
     "plugins"),
    # JavaScript linters and formatters
    ({"eslint.config.js": "export default []\n"}, "eslint .", "eslint.config.js", "JavaScript"),
    ({"src/.eslintrc.cjs": "module.exports = {}\n"}, "eslint src", "src/.eslintrc.cjs", "JavaScript"),
    ({".eslintrc.json": '{"plugins": ["evil"]}'}, "eslint .", ".eslintrc.json", "plugins"),
    ({"package.json": '{"eslintConfig": {"extends": ["airbnb"]}}'}, "eslint .", "package.json",
     "eslintConfig.extends"),
    ({".prettierrc.json": '{"overrides": [{"files": "*.x", "options": {"plugins": ["./p.js"]}}]}'},
     "prettier --check .", ".prettierrc.json", "plugins"),
    ({"prettier.config.mjs": "export default {}\n"}, "prettier --check .", "prettier.config.mjs", "JavaScript"),
    ({".stylelintrc.yaml": "plugins:\n  - ./evil.js\n"}, "stylelint a.css", ".stylelintrc.yaml", "plugins"),
    # a package runner's local program
    ({"node_modules/.bin/eslint": "#!/bin/sh\n"}, "npx eslint .", "node_modules/.bin/eslint", "npx eslint"),
    ({"node_modules/.bin/tsc": "#!/bin/sh\n"}, "pnpm exec tsc", "node_modules/.bin/tsc", "pnpm exec tsc"),
    ({"node_modules/.bin/tsc": "#!/bin/sh\n"}, "yarn tsc", "node_modules/.bin/tsc", "yarn tsc"),
    ({"node_modules/.bin/tsc": "#!/bin/sh\n"}, "bunx tsc", "node_modules/.bin/tsc", "bunx tsc"),
    # yarn runs the release (or any script) its rc file names, for every command (a seventh audit)
    ({".yarnrc.yml": "yarnPath: .yarn/releases/evil.cjs\n"}, "yarn --version", ".yarnrc.yml", "yarnPath"),
    ({".yarnrc": 'yarn-path "./bin/evil.js"\n'}, "yarn list", ".yarnrc", "yarn-path"),
    ({"sub/.yarnrc.yml": "plugins:\n  - path: ./p.cjs\n"}, "cd sub && yarn --version", "sub/.yarnrc.yml", "plugins"),
]


@pytest.mark.parametrize(("files", "line", "file", "key"), PLANTED,
                         ids=[c[1] + " / " + next(iter(c[0])) for c in PLANTED])
def test_a_planted_config_is_asked_on_the_host_only(tmp_path: Path, files: dict[str, str], line: str, file: str,
                                                    key: str) -> None:
    clean = plant(tmp_path / "clean", {"sub/x": ""})
    assert reason(clean, line)[0] == "allow", "a workspace that names nothing keeps the allow rule"
    ws = plant(tmp_path / "ws", files)
    decision, why = reason(ws, line)
    assert decision == "ask", why
    assert file in why and key in why and "outside the sandbox" in why, why
    assert reason(ws, line, sandboxed=True)[0] == "allow", "the sandbox confines what it runs"


BENIGN = [
    ({"rust-toolchain.toml": '[toolchain]\nchannel = "1.80"\n', ".cargo/config.toml": '[build]\ntarget-dir = "t"\n'},
     "cargo --version", {".cargo/config.toml": '[build]\ntarget-dir = "t"\nrustc = "./rustc"\n'}),
    ({"rust-toolchain": "nightly-2024-05-01\n"}, "rustc --version", {"rust-toolchain": "/opt/tc\n"}),
    ({"test/__init__.py": "", "json/tool.py": "", "a.json": "{}"}, "python3 -m json.tool a.json",
     {"json/__init__.pyc": ""}),
    ({"pyproject.toml": '[tool.mypy]\nstrict = true\n[[tool.mypy.overrides]]\nmodule = "x"\n'}, "mypy .",
     {"pyproject.toml": '[tool.mypy]\nstrict = true\n[[tool.mypy.overrides]]\nmodule = "x"\nplugins = ["p"]\n'}),
    ({".pylintrc": "[MAIN]\noutput-format = colorized\nunsafe-load-any-extension = no\n"}, "pylint x.py",
     {".pylintrc": "[MAIN]\noutput-format = evil.Reporter\n"}),
    ({".eslintrc.yml": "extends: eslint:recommended\nrules:\n  semi: error\n"}, "eslint .",
     {".eslintrc.yml": "extends:\n  - eslint:recommended\n  - plugin:evil/all\n"}),
    ({".prettierrc": '{"semi": false, "parser": "babel"}'}, "prettier --check .", {".prettierrc": '"@evil/config"'}),
    ({"package.json": '{"name": "x", "scripts": {"tsc": "tsc"}}'}, "npx eslint .",
     {"package.json": '{"eslintConfig": {"parser": "@typescript-eslint/parser"}}'}),
    ({".yarnrc.yml": "nodeLinker: node-modules\nenableTelemetry: false\n"}, "yarn --version",
     {".yarnrc.yml": "nodeLinker: node-modules\nyarnPath: .yarn/releases/yarn-4.1.0.cjs\n"}),
]


@pytest.mark.parametrize(("files", "line", "planted"), BENIGN, ids=[c[1] for c in BENIGN])
def test_settings_that_run_nothing_keep_the_rule_and_one_that_does_is_asked(
        tmp_path: Path, files: dict[str, str], line: str, planted: dict[str, str]) -> None:
    ws = plant(tmp_path / "ws", files)
    assert reason(ws, line)[0] == "allow", reason(ws, line)
    plant(ws, planted)
    decision, why = reason(ws, line)
    assert decision == "ask" and next(iter(planted)).split("/")[0] in why, why


def test_a_config_that_cannot_be_read_for_certain_is_asked(tmp_path: Path) -> None:
    """A link out of the workspace, a FIFO (which must not hang the verdict) and a huge file: asked, not guessed."""
    outside = plant(tmp_path / "elsewhere", {"config.toml": "[build]\n"})
    ws = plant(tmp_path / "ws", {".cargo/x": ""})
    (ws / ".cargo" / "config.toml").symlink_to(outside / "config.toml")
    decision, why = reason(ws, "cargo --version")
    assert decision == "ask" and ".cargo/config.toml" in why and "leads out of the workspace" in why, why
    fifo = plant(tmp_path / "fifo", {"x": ""})
    os.mkfifo(fifo / "mypy.ini")
    decision, why = reason(fifo, "mypy .")
    assert decision == "ask" and "mypy.ini" in why and "not a regular file" in why, why
    big = plant(tmp_path / "big", {".pylintrc": "[MAIN]\n" + "# x\n" * 100_000})
    decision, why = reason(big, "pylint x.py")
    assert decision == "ask" and ".pylintrc" in why and "larger than" in why, why
    assert reason(tmp_path / "elsewhere", "cargo --version")[0] == "allow"


@pytest.mark.parametrize(("line", "plain"), [
    ("pylint --init-hook='import os' x.py", "pylint x.py"),
    ("mypy --config-file=other.ini .", "mypy ."),
    ("eslint -c evil.js .", "eslint -f json ."),
    ("cargo --version --config 'build.rustc=\"./x\"'", "cargo --version"),
])
def test_options_that_load_code_are_asked_on_the_host(tmp_path: Path, line: str, plain: str) -> None:
    ws = plant(tmp_path / "ws", {"x.py": ""})
    assert reason(ws, plain)[0] == "allow"
    decision, why = reason(ws, line)
    assert decision == "ask" and "the line chooses" in why, why
    assert reason(ws, line, sandboxed=True)[0] == "allow"


def test_outside_sandbox_runs_are_asked_and_nothing_without_a_workspace(tmp_path: Path) -> None:
    ws = plant(tmp_path / "ws", {"mypy.ini": "[mypy]\nplugins = evil\n"})
    p = Policy.from_config({"allow_outside_commands": ["mypy"]}, workspace=ws)
    p.sandboxed = True
    v = p.verdict("run_command", "command", {"command": "mypy .", "outside_sandbox": True})
    assert v.decision == "ask" and "mypy.ini" in v.reason, v
    assert tool_config_blockers(parse_command("mypy ."), None) == []
