"""Cerebras Model Zoo API generations in the dry run: detection, plan, imports, failures.

- runner (R1.0-R1.8): PyTorchBaseModel and modelzoo.common.pytorch.run_utils.run(...).
- cstorch (R1.9-R2.2): a plain torch.nn.Module returning its loss, cerebras_pytorch /
  cerebras.pytorch; Model Zoo's run.py hands main(params, Model, train_fn, eval_fn) the class.
- trainer (R2.3-R2.10): cerebras.modelzoo.trainer.Trainer driven by `trainer: {init, fit}`.

The generation is read from the project's imports and configs with evidence (never by running
it); `--api` overrides. The driver calls plan() once its plan is made, install() before the
entry runs and classify() first when the run fails; everything else lives here.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys

from . import plan as plan_module

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.join(os.path.dirname(HERE), "portolan_standins")
TRAINER_FALLBACK = os.path.join(STANDINS, "_cerebras_modelzoo_fallback")
APIS = ("runner", "cstorch", "trainer")
TRAINER_IMPORTS = ("cerebras.modelzoo.trainer", "cerebras.modelzoo.registry",
                   "cerebras.modelzoo.common.registry", "cerebras.modelzoo.config",
                   "cerebras.modelzoo.common.run_utils", "cerebras.modelzoo.cli")
CSTORCH_IMPORTS = ("cerebras_pytorch", "cerebras.pytorch")
NEWER = "torch >= 2 and pydantic 2, which Debian 12 does not ship (python3-torch 1.13, no " \
    "pydantic 2)"


def _under(name, prefixes):
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def is_trainer_layout(config):
    return isinstance(config, dict) and isinstance(config.get("trainer"), (dict, list))


def _yaml_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in plan_module.SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith((".yaml", ".yml")):
                yield os.path.join(dirpath, name)


def _load(path):
    try:
        return plan_module.load_yaml(path)
    except Exception:  # noqa: BLE001 - a config that does not parse is no evidence
        return None


def detect(root, files):
    """(api, [evidence]): the generation with the reasons, strongest first."""
    trainer, cstorch = [], []
    for rel in files:
        tree = plan_module.parse(root, rel)
        for name, line, maybe_attr in plan_module.imported_names(tree):
            if maybe_attr:
                continue
            if _under(name, TRAINER_IMPORTS):
                trainer.append(f"{rel}:{line} imports {name}")
            elif _under(name, CSTORCH_IMPORTS):
                cstorch.append(f"{rel}:{line} imports {name}")
        if os.path.basename(rel) == "run.py" and tree is not None:
            for node in _calls_named(tree, "main"):
                if len(node.args) >= 3 and getattr(node.args[1], "id", "")[:1].isupper():
                    cstorch.append(f"{rel}:{node.lineno} hands main(params, "
                                   f"{node.args[1].id}, ...) a model class")
    for path in _yaml_files(root):
        if is_trainer_layout(_load(path)):
            trainer.append(f"{os.path.relpath(path, root)} has the trainer: {{init, fit}} "
                           "layout")
            break
    if trainer:
        return "trainer", trainer[:6]
    if cstorch:
        return "cstorch", cstorch[:6]
    return "runner", ["no cerebras.pytorch, cerebras_pytorch or cerebras.modelzoo import"]


def _calls_named(tree, name):
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name:
            yield node


def _trainer_config(entry_dir, current):
    """A trainer-layout YAML next to the chosen config (the R2.3+ Model Zoo ships the legacy
    params.yaml and its trainer form side by side)."""
    folders = [os.path.dirname(current)] if current else []
    folders.append(os.path.join(entry_dir, "configs"))
    for folder in folders:
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if name.endswith((".yaml", ".yml")) and is_trainer_layout(_load(path)):
                return path
    return None


def _runner_takes_device(sdk):
    """Whether the R1.x runner of a checkout (--sdk-path) reads the target device first
    (`run.py CPU --mode train ...`, R1.8), from its command-line parser's source."""
    if not sdk:
        return False
    base = os.path.realpath(sdk)
    if os.path.basename(base) == "modelzoo" and not os.path.isdir(os.path.join(base, "modelzoo")):
        base = os.path.dirname(base)
    for rel in ("modelzoo/common/run_utils/cli_parser.py", "modelzoo/common/pytorch/run_utils.py"):
        try:
            with open(os.path.join(base, rel), "r", encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        if re.search(r"""dest\s*=\s*["']target_device["']|add_argument\(\s*["']target_device["']""",
                     text):
            return True
    return False


def plan(dryrun, ctx):
    """Adds the generation to the plan: ctx["api"], its evidence, the command line."""
    api, evidence = detect(dryrun.root, dryrun.files)
    forced = getattr(dryrun.o, "api", None)
    if forced:
        evidence = [f"given with --api (detected: {api})"]
        api = forced
    ctx["api"], ctx["api_evidence"] = api, evidence
    if api == "runner" and ctx.get("kind") == "modelzoo" and \
            _runner_takes_device(dryrun.o.sdk_path) and ctx["argv"][:1] != ["CPU"] and \
            "CPU" not in dryrun.o.args:
        # The checkout's own runner (R1.8) takes the target device first, as a sub-command.
        ctx["argv"] = ["CPU"] + list(ctx["argv"])
    if api == "runner" or ctx.get("kind") != "modelzoo":
        return ctx
    argv = list(ctx["argv"])
    config = argv[argv.index("--params") + 1] if "--params" in argv else None
    if api == "trainer" and config and not is_trainer_layout(_load(config)) and \
            not dryrun.o.params:
        entry_dir = os.path.dirname(os.path.join(dryrun.root, ctx["entry"]))
        other = _trainer_config(entry_dir, config)
        if other:
            argv[argv.index("--params") + 1] = other
            ctx["config"] = dryrun.rel(other)
            ctx["config_reason"] = f"{dryrun.rel(other)}: the trainer layout (" \
                f"{dryrun.rel(config)} is the legacy layout)"
    # R1.9+ run.py takes the target device first: `run.py CPU --mode train --params P`.
    if argv[:1] != ["CPU"] and "CPU" not in dryrun.o.args:
        argv = ["CPU"] + argv
    ctx["argv"] = argv
    return ctx


# --------------------------------------------------------------------------- imports
class NeedsNewerModelZoo(ModuleNotFoundError):
    def __init__(self, name, sdk_note):
        super().__init__(f"cannot run: needs {name}, Model Zoo 2.x code that needs {NEWER}; "
                         f"{sdk_note}", name=name)
        self.module = name


def sdk_usable():
    """(usable, why not): can this Python import the real cerebras.modelzoo?"""
    import torch

    major = int(torch.__version__.split(".")[0])
    try:
        import pydantic

        pydantic_major = int(str(pydantic.VERSION).split(".")[0])
    except ImportError:
        pydantic_major = 0
    if major >= 2 and pydantic_major >= 2:
        return True, None
    return False, f"this Python has torch {torch.__version__.split('+')[0]} and " + \
        (f"pydantic {pydantic.VERSION}" if pydantic_major else "no pydantic")


def find_sdk(given):
    """The folder holding cerebras/modelzoo: a --sdk-path (the checkout, its src/, or the
    package itself), else an installed copy outside the stand-ins."""
    candidates = []
    if given:
        given = os.path.realpath(given)
        candidates += [given, os.path.join(given, "src"), os.path.dirname(given),
                       os.path.dirname(os.path.dirname(given))]
    else:
        candidates += [p for p in sys.path if p and not os.path.realpath(p).startswith(
            os.path.dirname(HERE))]
    for base in candidates:
        if os.path.isfile(os.path.join(base, "cerebras", "modelzoo", "__init__.py")):
            return base
    return None


class CerebrasModelZooFinder(importlib.abc.MetaPathFinder):
    """cerebras.modelzoo.*: the project at its mount, the user's Model Zoo when this Python
    can run it, Portolan's Trainer fallback, else NeedsNewerModelZoo."""

    def __init__(self, project, mount, sdk, note):
        self.project, self.mount, self.sdk, self.note = project, mount, sdk, note
        self.roots = [r for r in (sdk, TRAINER_FALLBACK) if r]

    def find_spec(self, fullname, path=None, target=None):
        if not _under(fullname, ("cerebras.modelzoo",)):
            return None
        from .modelzoo_finder import ModelZooFinder

        if getattr(self, "announce", None):
            self.announce, announce = None, self.announce
            announce()
        parts = fullname.split(".")
        if self.mount and _under(fullname, (self.mount,)):
            rest = parts[len(self.mount.split(".")):]
            spec = ModelZooFinder._spec_at(self.project, rest, fullname)
            if spec is not None:
                return spec
        for root in self.roots:
            spec = ModelZooFinder._spec_at(root, parts, fullname)
            if spec is not None:
                return spec
        if self.mount and self.mount.startswith(fullname + "."):
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = []
            return spec
        raise NeedsNewerModelZoo(fullname, self.note)


def install(dryrun, ctx):
    os.environ["PORTOLAN_DRYRUN_PROJECT"] = dryrun.root
    names = {}
    for rel in dryrun.files:
        for name, line, _ in plan_module.imported_names(plan_module.parse(dryrun.root, rel)):
            if _under(name, ("cerebras.modelzoo",)):
                names.setdefault(name[len("cerebras."):], []).append((rel, line))
    mount = plan_module.modelzoo_mount(dryrun.root, names)
    mount = "cerebras." + mount if mount else None
    sdk = find_sdk(dryrun.o.sdk_path)
    usable, why = sdk_usable()
    announce = None
    if sdk and not usable:
        announce = f"the Model Zoo at {sdk} needs {NEWER} ({why}): Portolan's Trainer " \
            "stand-in runs the project's model instead"
        sdk = None
    elif not sdk:
        announce = "no Cerebras Model Zoo 2.x found (--sdk-path): Portolan's Trainer " \
            "stand-in runs the project's model"
    note = "Portolan's Trainer stand-in runs a project's own model, not Model Zoo's" + \
        (f" ({why})" if why else "")
    finder = CerebrasModelZooFinder(dryrun.root, mount, sdk, note)
    # Said at the first cerebras.modelzoo import, after the started event.
    finder.announce = (lambda: dryrun.events.emit("info", message=announce)) if announce \
        else None
    sys.meta_path.insert(0, finder)
    ctx["cerebras_modelzoo_mount"] = mount


# --------------------------------------------------------------------------- failures
PYDANTIC2 = re.compile(r"cannot import name '(\w+)' from 'pydantic")


def classify(dryrun, e, location, chain):
    """A Failure for what this module knows (Model Zoo 2.x on Debian 12's Python), or None."""
    from .driver import EXIT_FAILED, Failure

    needs = next((x for x in chain if isinstance(x, NeedsNewerModelZoo)), None)
    if needs is not None:
        return Failure("dryrun.needs-newer-torch", str(needs), EXIT_FAILED, location,
                       module=needs.module)
    for x in chain:
        if getattr(x, "portolan_code", None) == "dryrun.needs-newer-torch":
            return Failure("dryrun.needs-newer-torch", str(x), EXIT_FAILED, location)
    for x in chain:
        missing = isinstance(x, ModuleNotFoundError) and \
            (x.name or "").split(".")[0] in ("pydantic", "pydantic_core", "annotated_types")
        if missing or (isinstance(x, ImportError) and PYDANTIC2.search(str(x))):
            what = (x.name or "").split(".")[0] if missing else "pydantic 2"
            return Failure("dryrun.needs-newer-torch",
                           f"cannot run: the project imports {what} (Model Zoo 2.x typed "
                           f"configs), which needs {NEWER}; run it where both are installed "
                           "or write the configs without pydantic", EXIT_FAILED, location,
                           module=x.name or "pydantic")
    # A name Portolan's small fallback of the R1.x Model Zoo helpers does not have: shared
    # Model Zoo code of the project's release, as for a module that is missing altogether.
    fallback = os.path.join(STANDINS, "_modelzoo_fallback")
    for x in chain:
        path = getattr(x, "path", None) or ""
        if isinstance(x, ImportError) and not isinstance(x, ModuleNotFoundError) and \
                os.path.realpath(path).startswith(fallback + os.sep) and x.name:
            quoted = re.findall(r"'([^']+)'", x.msg or "")
            wanted = f"{x.name}.{quoted[0]}" if quoted else x.name
            return Failure("dryrun.needs-modelzoo",
                           f"cannot run: needs {wanted}, which is not part of this project and "
                           "beyond Portolan's small fallback of the Model Zoo helpers; point "
                           "Portolan at a Model Zoo checkout of the project's release "
                           "(portolan-cli run --sdk-path DIR)", EXIT_FAILED, location,
                           module=wanted, modules=[wanted])
    return None
