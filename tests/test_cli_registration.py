"""How the CLI is put together: commands come from the table of command modules, not import side effects.

The commands themselves are tested in test_cli.py; here, that a fresh interpreter registers every
module of ``COMMAND_MODULES`` and nothing else, that no command module imports the package back,
that adding a module is enough for its command to get the global options and the error handling,
and that ``python -m gieok`` is the ``gieok`` command.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from gieok.cli import COMMAND_MODULES, cli, register_commands

ROOT = Path(__file__).resolve().parent.parent
CLI_PACKAGE = ROOT / "gieok" / "cli"


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run this checkout's gieok in a fresh interpreter, without the caller's GIEOK_* settings."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIEOK_")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


FRESH_IMPORT = """
import importlib, json, pkgutil, sys
import click
import gieok
from gieok.cli import COMMAND_MODULES, cli
by_module = {}
for name in COMMAND_MODULES:
    group = click.Group()
    importlib.import_module(name).register(group)
    by_module[name] = {command: group.commands[command] is cli.commands.get(command) for command in group.commands}
print(json.dumps({
    "by_module": by_module,
    "registered": sorted(cli.commands),
    # the package's own modules (find_spec could answer from another checkout's editable install)
    "old_module_exists": "_cli_lifecycle" in {m.name for m in pkgutil.iter_modules(gieok.__path__)},
    "old_module_loaded": "gieok._cli_lifecycle" in sys.modules,
}))
"""


def test_a_fresh_import_registers_every_command_module_of_the_table(tmp_path: Path) -> None:
    result = _python("-c", FRESH_IMPORT, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert list(report["by_module"]) == list(COMMAND_MODULES)
    for name, commands in report["by_module"].items():
        assert commands, f"{name}.register added no command"
        assert all(commands.values()), f"{name}: not registered on gieok.cli.cli: {commands}"
    every = sorted(command for commands in report["by_module"].values() for command in commands)
    assert every == report["registered"], "a command is registered outside the table, or by two modules"
    assert not report["old_module_exists"] and not report["old_module_loaded"]


def _imports_the_package(node: ast.AST, module: str) -> bool:
    """``module`` (dotted, in gieok/cli) imports ``gieok.cli`` itself rather than one of its modules."""
    if isinstance(node, ast.Import):
        return any(alias.name == "gieok.cli" for alias in node.names)
    if not isinstance(node, ast.ImportFrom):
        return False
    if node.level:  # relative: resolve against the importing module's package
        package = module.rsplit(".", node.level)[0]
        target = f"{package}.{node.module}" if node.module else package
    else:
        target = node.module or ""
    if target == "gieok.cli":
        return True  # from gieok.cli import ... / from . import ...
    return target == "gieok" and any(alias.name == "cli" for alias in node.names)


def _command_module_files() -> Iterator[tuple[str, Path]]:
    seen = set()
    for path in sorted(CLI_PACKAGE.glob("*.py")):
        if path.name != "__init__.py":
            seen.add(path)
            yield f"gieok.cli.{path.stem}", path
    for name in COMMAND_MODULES:  # modules of the table living in other packages
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None, name
        if Path(spec.origin) not in seen:
            yield name, Path(spec.origin)


def test_no_command_module_imports_the_cli_package_back() -> None:
    offenders = [f"{module}:{node.lineno}"
                 for module, path in _command_module_files()
                 for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if _imports_the_package(node, module)]
    assert offenders == []


def test_the_import_check_catches_every_spelling() -> None:
    for source in ("from gieok.cli import cli", "import gieok.cli", "from gieok import cli", "from . import _common"):
        assert _imports_the_package(ast.parse(source).body[0], "gieok.cli.memories"), source
    for source in ("from gieok.cli._common import open_memory", "from ._common import echo_json", "import gieok"):
        assert not _imports_the_package(ast.parse(source).body[0], "gieok.cli.memories"), source


PLUGIN = '''
import click

from gieok.cli._common import global_options
from gieok.errors import GieokError


@click.command()
@click.option("--fail", is_flag=True)
@click.pass_context
def hello(ctx: click.Context, fail: bool) -> None:
    """Say which database the global options name."""
    if fail:
        raise GieokError("hello failed: pass no --fail")
    click.echo(f"hello from {global_options(ctx).db}")


def register(cli: click.Group) -> None:
    cli.add_command(hello)
'''


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path for throw-away command modules; they leave sys.modules afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("cli_plugin_"):
            del sys.modules[name]


def test_a_module_added_to_the_table_gets_the_global_options_and_the_error_handling(
        plugin_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (plugin_dir / "cli_plugin_hello.py").write_text(PLUGIN, encoding="utf-8")
    monkeypatch.setattr(cli, "commands", dict(cli.commands))  # registered on a copy, restored afterwards
    register_commands(cli, ["cli_plugin_hello"])
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", "x.db", "hello"]).output == "hello from x.db\n"
    failed = runner.invoke(cli, ["hello", "--fail"])
    assert failed.exit_code == 2 and failed.output == "error: hello failed: pass no --fail\n"


def test_register_commands_refuses_a_module_without_register_or_a_taken_name(plugin_dir: Path) -> None:
    (plugin_dir / "cli_plugin_empty.py").write_text("", encoding="utf-8")
    (plugin_dir / "cli_plugin_banks.py").write_text(PLUGIN.replace("def hello", "def banks").replace(
        "add_command(hello)", "add_command(banks)"), encoding="utf-8")
    with pytest.raises(TypeError, match="cli_plugin_empty has no register"):
        register_commands(click.Group(), ["cli_plugin_empty"])
    with pytest.raises(ValueError, match="cli_plugin_banks registered commands that already exist: banks"):
        register_commands(click.Group(), ["gieok.cli.memories", "cli_plugin_banks"])


def test_python_dash_m_gieok_is_the_gieok_command(tmp_path: Path) -> None:
    helped = _python("-m", "gieok", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and helped.stdout.startswith("Usage: gieok "), helped.stderr
    assert all(f"  {name} " in helped.stdout for name in cli.commands)
    listed = _python("-m", "gieok", "--db", str(tmp_path / "m.db"), "banks", "--json", cwd=tmp_path)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stderr
    failed = _python("-m", "gieok", "--db", str(tmp_path / "m.db"), "recall", "nobody", "hi", cwd=tmp_path)
    assert failed.returncode == 2, failed.stderr
    assert failed.stderr.startswith("error: no bank has the name given as bank"), failed.stderr
