"""The import-layer contract of gieok, checked from the source (``make lint`` runs it).

Layers point down only. From the top::

    entry points   gieok.__main__, gieok._docs (the docs generator)
    adapters       gieok.server, gieok.cli, gieok.workers, gieok.integrations, gieok.client
    facade         gieok (the package), gieok.memory, gieok._namespaces
    engine         gieok.engine
    components     gieok.extract, .entities, .lifecycle, .answering, .defense, .documents, .temporal,
                   .text, .importers
    providers      gieok.providers
    store          gieok.store

and the shared base modules (gieok.records, .errors, .ids, .settings, .limits, ._threads, ._twin,
._lazy), which any module may import and which import only each other.

Two rules:

1. No import points up: a module imports modules of its own layer, of a layer below it, or the base.
2. Adapters go through the facade: an adapter imports only ``gieok``, ``gieok.memory``, the base and
   the adapters, and never reaches ``memory.engine`` / ``memory.store`` (the engine and the store
   behind a Memory).

Every import is counted — at the top of a module, inside a function, under ``TYPE_CHECKING`` — since
each is a dependency all the same. Run ``python tools/check_layers.py [ROOT]`` (ROOT: the folder
holding the ``gieok`` package, default the repository); it prints one line per broken rule, saying
which import breaks which rule and how to fix it, and exits 1 when there is any.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LAYERS", "BASE", "ADAPTER_MAY_IMPORT", "KNOWN_EXCEPTIONS", "Violation", "check", "main"]

# the layer map, top first: the one place it is written
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("entry points", ("gieok.__main__", "gieok._docs")),
    ("adapters", ("gieok.server", "gieok.cli", "gieok.workers", "gieok.integrations", "gieok.client")),
    ("facade", ("gieok", "gieok.memory", "gieok._namespaces")),
    ("engine", ("gieok.engine",)),
    ("components", ("gieok.extract", "gieok.entities", "gieok.lifecycle", "gieok.answering", "gieok.defense",
                    "gieok.documents", "gieok.temporal", "gieok.text", "gieok.importers")),
    ("providers", ("gieok.providers",)),
    ("store", ("gieok.store",)),
]
BASE = ("gieok.records", "gieok.errors", "gieok.ids", "gieok.settings", "gieok.limits", "gieok._threads",
        "gieok._twin", "gieok._lazy", "gieok._nearest")
# what an adapter may import besides the adapters themselves
ADAPTER_MAY_IMPORT = ("gieok", "gieok.memory", *BASE)
# (importer, imported: a module, a package or a layer's name) -> why it is allowed anyway. Keep this
# short: each entry is a debt.
KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("gieok", "gieok.client"): "`from gieok import Client` works: the package imports the HTTP client lazily, on "
                               "first use of gieok.Client (module __getattr__), and the client imports only the facade",
    ("gieok.providers.decisions", "components"): "the built-in `learned` decision model is a provider like every "
                                                 "decision model, and runs the heads trained in the components "
                                                 "(extract, answering, lifecycle, defense, entities); it imports them "
                                                 "inside its calls, so loading the providers loads none of them",
}

_ADAPTERS = dict(LAYERS)["adapters"]
_HIDDEN = ("engine", "store")  # Memory's attributes an adapter must not reach through


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _owner(module: str, names: tuple[str, ...]) -> str | None:
    """The entry of ``names`` that ``module`` is (or is inside); the package ``gieok`` matches only itself."""
    best = None
    for name in names:
        if module == name or (name != "gieok" and module.startswith(name + ".")):
            if best is None or len(name) > len(best):
                best = name
    return best


def layer_of(module: str) -> str | None:
    """``"base"``, a layer's name, or None for a module the map does not place."""
    if _owner(module, BASE):
        return "base"
    found = [(len(owner), layer) for layer, names in LAYERS if (owner := _owner(module, names))]
    return max(found)[1] if found else None


def _rank(layer: str) -> int:
    return [name for name, _ in LAYERS].index(layer)


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(root: Path, module: str) -> bool:
    base = root.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports(root: Path, module: str, is_package: bool, tree: ast.AST) -> list[tuple[int, str]]:
    """(line, imported gieok module) for every import in ``tree``; ``from gieok import errors`` is the module
    ``gieok.errors``, ``from gieok import Memory`` the package ``gieok``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == "gieok"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package
                package = module.split(".") if is_package else module.split(".")[:-1]
                stem = package[: len(package) - (node.level - 1)]
                base = ".".join(stem + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base.split(".")[0] != "gieok":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if _is_module(root, sub) else base))
    return found


def _hidden_attributes(tree: ast.AST) -> list[tuple[int, str]]:
    """``memory.engine`` / ``self.memory.store`` / ``mem.engine``: an adapter reaching behind the facade."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _HIDDEN:
            inner = node.value
            name = inner.attr if isinstance(inner, ast.Attribute) else inner.id if isinstance(inner, ast.Name) else ""
            if name in ("memory", "mem", "_sync") or name.endswith("_mem") or name.endswith("memory"):
                found.append((node.lineno, f"{name}.{node.attr}"))
    return found


def check(root: Path) -> list[Violation]:
    """Every broken rule under ``root / "gieok"``."""
    violations: list[Violation] = []
    for path in sorted((root / "gieok").rglob("*.py")):
        module = _module_name(root, path)
        shown = str(path.relative_to(root))
        layer = layer_of(module)
        if layer is None:
            violations.append(Violation(shown, 1, f"{module} is in no layer: add it to LAYERS (or BASE) in "
                                                  "tools/check_layers.py"))
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, imported in sorted(set(_imports(root, module, path.name == "__init__.py", tree))):
            problem = _problem(module, layer, imported)
            if problem and not _excused(module, imported):
                violations.append(Violation(shown, line, problem))
        if layer == "adapters":
            for line, reached in _hidden_attributes(tree):
                violations.append(Violation(
                    shown, line, f"{module} (adapters) reaches {reached}: adapters go through gieok.Memory, never "
                                 "the engine or store behind it. Fix: call the Memory method or namespace that does "
                                 "it (mem.keys, mem.jobs, mem.banks, mem.browse, mem.models), adding one to "
                                 "gieok/_namespaces.py if none does"))
    return violations


def _excused(module: str, imported: str) -> bool:
    return any(module == importer and (_owner(imported, (allowed,)) or layer_of(imported) == allowed)
               for importer, allowed in KNOWN_EXCEPTIONS)


def _problem(module: str, layer: str, imported: str) -> str | None:
    target = layer_of(imported)
    if target is None:
        return f"{module} imports {imported}, which is in no layer: add it to LAYERS (or BASE) in tools/check_layers.py"
    if target == "base":
        return None
    if layer == "base":
        return (f"{module} (a shared base module) imports {imported} ({target}): the base modules import only each "
                f"other, since every layer imports them. Fix: move what is needed into the base, or move this "
                f"code out of the base")
    if layer == "adapters" and target != "adapters" and _owner(imported, ADAPTER_MAY_IMPORT) is None:
        return (f"{module} (adapters) imports {imported} ({target}): adapters import only gieok, gieok.memory, "
                f"the base modules ({', '.join(BASE)}) and other adapters. Fix: import the record from gieok or "
                f"gieok.records, or call the engine through gieok.Memory (mem.keys, mem.jobs, mem.banks, mem.browse, "
                f"mem.models; add a method in gieok/_namespaces.py if none does it)")
    if _rank(target) < _rank(layer):
        return (f"{module} ({layer}) imports {imported} ({target}): an import pointing up the layers "
                f"({' -> '.join(name for name, _ in LAYERS)}). Fix: move the shared code down (into {layer} or "
                f"the base modules), or pass it in from above; if it cannot be helped, add "
                f"({module!r}, {imported!r}) to KNOWN_EXCEPTIONS in tools/check_layers.py with the reason")
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    violations = check(root)
    for violation in violations:
        print(violation)
    if violations:
        print(f"{len(violations)} import(s) break the layer contract (see tools/check_layers.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
