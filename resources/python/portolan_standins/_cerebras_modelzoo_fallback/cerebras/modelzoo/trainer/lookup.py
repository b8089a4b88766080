"""Finds a model or data processor class of the project by the name its Trainer YAML gives.

Order: the registry (the project registered it, as Model Zoo asks), then the project's own
files read with `ast` (never run): a registry.register_model(name=...) call, whose file is
imported so that it registers; else a config class with `name: Literal["<name>"]` and the
class whose __init__ takes that config; for data, a class named like `data_processor`.
Not Cerebras code: the stand-in's substitute for the registry entries of a user's model.
"""
import ast
import importlib
import inspect
import os
import typing

SKIP = {".git", "__pycache__", ".portolan", "venv", ".venv", "node_modules"}


def project_root():
    return os.environ.get("PORTOLAN_DRYRUN_PROJECT") or os.getcwd()


def _files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def _module_name(rel):
    parts = rel[:-3].split(os.sep)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _trees(root):
    for rel in _files(root):
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                yield rel, ast.parse(f.read())
        except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
            continue


def _registers(tree, name):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "register_model":
            for kw in node.keywords:
                if kw.arg == "name" and isinstance(kw.value, ast.Constant) and \
                        kw.value.value == name:
                    return True
    return False


def _literal_config(tree, field, name):
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and getattr(stmt.target, "id", None) == field \
                    and name in [c.value for c in ast.walk(stmt.annotation)
                                 if isinstance(c, ast.Constant)]:
                return node.name
    return None


def model_class(name):
    from cerebras.modelzoo.registry import registry

    if name in registry.models:
        return registry.get_model_class(name)
    root = project_root()
    found = []
    for rel, tree in _trees(root):
        if _registers(tree, name):
            importlib.import_module(_module_name(rel))
            if name in registry.models:
                return registry.get_model_class(name)
        config = _literal_config(tree, "name", name)
        if config:
            found.append((rel, config))
    for rel, config_name in found:
        module = importlib.import_module(_module_name(rel))
        config = getattr(module, config_name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or cls is config:
                continue
            params = list(inspect.signature(cls.__init__).parameters.values())[1:]
            hints = typing.get_type_hints(cls.__init__) if params else {}
            if len(params) == 1 and hints.get(params[0].name) is config:
                return cls
    error = ValueError(f"Model {name} is not in the project: it is neither registered "
                     "(registry.register_model(name=..., path=..., data_processor_paths=...)) "
                     f"nor named by a config class (name: Literal[\"{name}\"]); if it is one "
                     "of Model Zoo's own models, that code needs torch >= 2 and pydantic 2, "
                     "which Debian 12 does not ship")
    # The dry run reports it as Model Zoo 2.x code it cannot run (dryrun.needs-newer-torch).
    error.portolan_code = "dryrun.needs-newer-torch"
    raise error


def data_processor_class(model_name, processor):
    from cerebras.modelzoo.registry import registry

    if model_name in registry.models:
        processors = registry.get_data_processors_map(model_name)
        if processor in processors:
            return processors[processor]
        raise ValueError(f"Expected data_processor to be one of the following values:\n- "
                         + "\n- ".join(sorted(processors)) + f"\nGot: {processor}")
    for rel, tree in _trees(project_root()):
        if any(isinstance(n, ast.ClassDef) and n.name == processor for n in tree.body):
            return getattr(importlib.import_module(_module_name(rel)), processor)
    raise ValueError(f"data processor {processor} not found in the project")
