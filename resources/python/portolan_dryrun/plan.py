"""What to run, decided from the project's files without executing any of them.

Python files are parsed with `ast` (never imported); YAML configs are read with yaml.safe_load.
The decisions (entry point, arguments) are reported in the `started` event with the reason for
each, so that a user can see and override them (--entry, -- args). The params file is not
decided here: portolan-cli passes the one from core's rule (core/project/params_file.h).
"""
import ast
import os
import re

import yaml

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".portolan", "venv", ".venv", "env",
             "node_modules", ".tox", ".mypy_cache", ".pytest_cache"}

# Words in a path that mark code that is not an entry point of training.
NOT_ENTRY = re.compile(r"(^|/)(tests?|testing|docs?|examples?/notebooks)(/|$)|(^|/)test_[^/]*\.py$"
                       r"|_test\.py$|(^|/)(setup|conftest|__init__)\.py$")
# Named like a test, but perhaps an experiment script (benchmark repositories name theirs
# `add_test.py`, `pmnist_test.py`): a test only when it reads like one (_reads_like_a_test).
TEST_NAME = re.compile(r"(^|/)test_[^/]*\.py$|_test\.py$")

RUN_COMMAND = re.compile(r"\bpython3?\s+(?:-u\s+)?([\w./-]+\.py)\b")


class PlanError(Exception):
    """The project cannot be run as asked; `code` is a stable identifier."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def python_files(root, limit=5000):
    """Relative paths of the project's Python files, sorted, without caches and environments."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in SKIP_DIRS and not d.startswith(".")
                             and not os.path.exists(os.path.join(dirpath, d, "pyvenv.cfg")))
        for name in sorted(filenames):
            if name.endswith(".py"):
                found.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep,
                                                                                        "/"))
                if len(found) >= limit:
                    return found
    return found


def parse(root, rel):
    try:
        with open(os.path.join(root, rel), "r", encoding="utf-8") as f:
            return ast.parse(f.read(), filename=rel)
    except (SyntaxError, UnicodeDecodeError, OSError, ValueError):
        return None


def imported_names(tree):
    """Every module name a file imports (`import a.b`, `from a.b import c` gives a.b and
    a.b.c), with the line of the import."""
    names = []
    if tree is None:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.append((alias.name, node.lineno, False))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append((node.module, node.lineno, False))
            for alias in node.names:
                if alias.name != "*":
                    names.append((node.module + "." + alias.name, node.lineno, True))
    return names


def _calls(tree):
    """Attribute and function names called anywhere in a file."""
    out = set()
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Attribute):
                out.add(f.attr)
            elif isinstance(f, ast.Name):
                out.add(f.id)
    return out


def _reads_like_a_test(tree):
    """A test module: it imports a test framework, or defines test functions or classes."""
    if tree is None:
        return True
    for name, _, _ in imported_names(tree):
        if name.split(".")[0] in ("unittest", "pytest", "doctest", "hypothesis"):
            return True
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and \
                node.name.lower().startswith("test"):
            return True
    return False


def _not_entry(rel, tree):
    """Outside what a training script is: tests, docs, set-up files. A file named like a test
    that reads like a script is not excluded by its name."""
    if not NOT_ENTRY.search(rel):
        return False
    named = TEST_NAME.search(rel)
    return not named or NOT_ENTRY.search(rel[:named.start()] + "/x.py") or \
        _reads_like_a_test(tree)


def _has_main_guard(tree):
    if tree is None:
        return False
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.dump(node.test):
            return True
    return False


def _has_top_level_work(tree):
    """Statements other than definitions, imports, docstrings and constants at module level."""
    if tree is None:
        return False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef)):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Constant, ast.Tuple,
                                                                    ast.List, ast.Dict)):
            continue
        return True
    return False


def run_commands(root):
    """Scripts the project's README files and tests run ("python x.py ..."), counted."""
    counts = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for name in filenames:
            lower = name.lower()
            if not (lower.startswith("readme") or (lower.endswith(".py") and "test" in lower)):
                continue
            try:
                with open(os.path.join(dirpath, name), "r", encoding="utf-8") as f:
                    text = f.read(200_000)
            except (OSError, UnicodeDecodeError):
                continue
            for match in RUN_COMMAND.finditer(text):
                script = os.path.basename(match.group(1))
                counts[script] = counts.get(script, 0) + 1
    return counts


def choose_script(root, flavour, files=None):
    """(entry, reason) for a training script (PopTorch projects and plain PyTorch originals)."""
    files = files if files is not None else python_files(root)
    mentioned = run_commands(root)
    wanted = {"trainingModel"}
    scored = []
    for rel in files:
        if NOT_ENTRY.search(rel) and not TEST_NAME.search(rel):
            continue
        tree = parse(root, rel)
        if _not_entry(rel, tree):
            continue
        calls = _calls(tree)
        trains = bool(wanted & calls) if flavour == "graphcore-poptorch" else \
            "backward" in calls
        runs = _has_main_guard(tree) or _has_top_level_work(tree)
        if not (trains and runs):
            continue
        base = os.path.basename(rel)
        score = 0
        reasons = []
        if base in mentioned:
            score += 10
            reasons.append("run by the project's README or tests")
        if _has_main_guard(tree):
            score += 2
            reasons.append("has a __main__ block")
        if base in ("main.py", "train.py", "run.py", "training.py"):
            score += 2
        score -= rel.count("/")
        scored.append((-score, rel, reasons))
    if not scored and flavour == "graphcore-poptorch":
        # No trainingModel call (a higher-level trainer, such as optimum-graphcore's): the
        # script the project's README or tests run is the entry.
        for rel in files:
            base = os.path.basename(rel)
            tree = parse(root, rel)
            if base in mentioned and not NOT_ENTRY.search(rel) and \
                    (_has_main_guard(tree) or _has_top_level_work(tree)):
                scored.append((-mentioned[base] + rel.count("/"), rel,
                               ["run by the project's README or tests (no trainingModel call)"]))
    if not scored:
        # Last resort: a script that runs at module level under a usual entry name.
        for rel in files:
            base = os.path.basename(rel)
            tree = parse(root, rel)
            if base in ("main.py", "train.py", "run.py", "walkthrough.py", "training.py") and \
                    not NOT_ENTRY.search(rel) and \
                    (_has_main_guard(tree) or _has_top_level_work(tree)):
                scored.append((rel.count("/"), rel,
                               [f"runs at module level (no {'trainingModel' if flavour == 'graphcore-poptorch' else 'backward'} call found in the project)"]))
    if not scored:
        what = "calls poptorch.trainingModel" if flavour == "graphcore-poptorch" else \
            "calls backward() and runs at module level or under __main__"
        raise PlanError("dryrun.no-entry",
                        f"no training script found (a Python file that {what}); give --entry")
    scored.sort()
    _, rel, reasons = scored[0]
    others = [r for _, r, _ in scored[1:4]]
    reason = "trains" + ("; " + ", ".join(reasons) if reasons else "")
    if others:
        reason += "; other candidates: " + ", ".join(others)
    return rel, reason


def load_yaml(path):
    with open(path, "r", encoding="utf-8") as f:
        return yaml.safe_load(f)


class _Yaml12Loader(yaml.SafeLoader):
    """PyYAML reads YAML 1.1, where `1e-4` (an exponent without a dot) is a string. Determined
    reads experiment configs as YAML 1.2 (ruamel.yaml in its CLI), where it is a float, so a
    trial's `weight_decay: 1e-4` is a number there and must be one here too."""


_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def load_experiment_config(path):
    """A Determined experiment config, with YAML 1.2 numbers as Determined reads them."""
    with open(path, "r", encoding="utf-8") as f:
        return yaml.load(f, Loader=_Yaml12Loader)  # noqa: S506 - a SafeLoader subclass


def experiment_for_script(root, entry):
    """(config path, config, arguments) of a Determined experiment config beside the project
    whose entrypoint runs `entry` (a Core or Trainer API script, which a cluster starts with
    that config), or None. const.yaml first, then the others by name."""
    names = sorted((n for n in os.listdir(root) if n.endswith((".yaml", ".yml"))),
                   key=lambda n: (n != "const.yaml", n))
    target = os.path.normpath(os.path.join(root, entry))
    for name in names:
        path = os.path.join(root, name)
        try:
            config = load_experiment_config(path)
        except (yaml.YAMLError, OSError, UnicodeDecodeError):
            continue
        if not isinstance(config, dict) or "entrypoint" not in config or \
                not ({"searcher", "hyperparameters"} & set(config)):
            continue
        try:
            kind, script, args = parse_entrypoint(config["entrypoint"])
        except PlanError:
            continue
        if kind == "script" and os.path.normpath(os.path.join(root, script)) == target:
            return path, config, list(args)
    return None


def parse_entrypoint(entrypoint):
    """("trial", module, class) for "model_def:MyTrial", ("script", file, args) for a command
    such as "python3 -m determined.launch.torch_distributed python3 train.py --x 1"."""
    if isinstance(entrypoint, list):
        entrypoint = " ".join(str(e) for e in entrypoint)
    text = str(entrypoint).strip()
    match = re.fullmatch(r"([A-Za-z_][\w.]*):([A-Za-z_]\w*)", text)
    if match:
        return "trial", match.group(1), match.group(2)
    tokens = text.split()
    for i, token in enumerate(tokens):
        if token.endswith(".py"):
            return "script", token, tokens[i + 1:]
    raise PlanError("dryrun.entrypoint",
                    f"cannot run the entrypoint {text!r}: expected module:Class or a command "
                    "that runs a .py file")


def modelzoo_imports(root, files=None):
    """{module name: [(file, line)]} of every modelzoo.* module the project imports."""
    found = {}
    for rel in files if files is not None else python_files(root):
        for name, line, maybe_attr in imported_names(parse(root, rel)):
            if name == "modelzoo" or name.startswith("modelzoo."):
                found.setdefault(name, []).append((rel, line, maybe_attr))
    return found


def modelzoo_mount(root, imports):
    """The Model Zoo package path the project lives at (modelzoo.transformers.pytorch.gpt2
    for a copy of the GPT-2 folder), from its own Model Zoo-style imports; None if it has none.

    A prefix scores one point per imported name whose rest names a file or folder of the
    project, weighted by how deep that rest goes; modelzoo.common (the SDK) is never a mount.
    """
    scores = {}
    for name in imports:
        parts = name.split(".")
        for k in range(1, len(parts)):
            prefix = ".".join(parts[:k])
            if prefix == "modelzoo.common" or prefix.startswith("modelzoo.common."):
                continue
            rest = parts[k:]
            path = os.path.join(root, *rest)
            if os.path.isfile(path + ".py") or os.path.isdir(path):
                scores[prefix] = scores.get(prefix, 0) + len(rest)
    if not scores:
        return None
    return sorted(scores.items(), key=lambda kv: (-kv[1], len(kv[0])))[0][0]


def third_party_imports(root, files=None):
    """{top-level module: [(file, line)]} of imports that are neither the project's own
    modules nor the standard library."""
    import sys

    files = files if files is not None else python_files(root)
    own = set()
    for rel in files:
        parts = rel[:-3].split("/")
        own.add(parts[0])
        own.add(parts[-1])
    for dirpath, dirnames, _ in os.walk(root):
        for d in dirnames:
            own.add(d)
        break
    stdlib = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
    found = {}
    for rel in files:
        tree = parse(root, rel)
        if not rel.endswith("__init__.py") and _not_entry(rel, tree):
            continue  # tests and setup scripts are not part of a run
        for name, line, maybe_attr in imported_names(tree):
            if maybe_attr:
                continue
            top = name.split(".")[0]
            if top in own or top in stdlib or top == "__future__":
                continue
            found.setdefault(top, []).append((rel, line))
    return found
