"""Resolves `modelzoo.*` imports in a dry run.

Order, for every module name under `modelzoo`:
1. the project itself, at its mount point (a copy of modelzoo/transformers/pytorch/gpt2 imports
   its own files as modelzoo.transformers.pytorch.gpt2.*);
2. Portolan's stand-ins of the runner and framework API (modelzoo.common.pytorch.run_utils,
   PyTorchBaseModel, cb_model, ...): they replace the Cerebras runtime even with a checkout;
3. a Model Zoo checkout given with --sdk-path (the folder that holds modelzoo/);
4. Portolan's fallbacks for the layers API and small helpers (mapped to torch.nn).
A name found nowhere is shared Model Zoo code the project does not carry: the import fails
with NeedsModelZoo, which names the module and says to point Portolan at a checkout.
"""
import importlib.abc
import importlib.machinery
import importlib.util
import os


class NeedsModelZoo(ModuleNotFoundError):
    def __init__(self, name):
        super().__init__(
            f"cannot run: needs {name}, which is not part of this project; point Portolan at a "
            "Model Zoo checkout (portolan-cli run --sdk-path DIR, or the Runs tab's Model Zoo "
            "setting)", name=name)
        self.module = name


class _EmptyPackage(importlib.abc.Loader):
    """A package with no code of its own: an intermediate folder of the mount path."""

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        pass


class ModelZooFinder(importlib.abc.MetaPathFinder):
    def __init__(self, project, mount, standins, sdk, fallback):
        self.project = project
        self.mount = mount
        # The Model Zoo is open source: with a checkout its own code runs for real, and only the
        # closed SDK (cerebras.framework.torch, cerebras_pytorch, cerebras.pytorch, found on
        # sys.path) is stood in. Without one, Portolan's stand-ins of the runner come first.
        self.roots = [r for r in (sdk, standins, fallback) if r]
        self.missing = []
        self.resolved = {}

    @staticmethod
    def _spec_at(base, parts, fullname):
        path = os.path.join(base, *parts) if parts else base
        if os.path.isdir(path):
            init = os.path.join(path, "__init__.py")
            if os.path.isfile(init):
                return importlib.util.spec_from_file_location(
                    fullname, init, submodule_search_locations=[path])
            spec = importlib.machinery.ModuleSpec(fullname, _EmptyPackage(), is_package=True)
            spec.submodule_search_locations = [path]
            return spec
        if os.path.isfile(path + ".py"):
            return importlib.util.spec_from_file_location(fullname, path + ".py")
        return None

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "modelzoo" and not fullname.startswith("modelzoo."):
            return None
        parts = fullname.split(".")
        if self.mount and (fullname == self.mount or fullname.startswith(self.mount + ".")):
            rest = parts[len(self.mount.split(".")):]
            spec = self._spec_at(self.project, rest, fullname)
            if spec is not None:
                self.resolved[fullname] = "project"
                return spec
            return None  # the project's own module is missing: Python's usual error
        for root in self.roots:
            spec = self._spec_at(root, parts, fullname)
            if spec is not None:
                self.resolved[fullname] = root
                return spec
        if self.mount and self.mount.startswith(fullname + "."):
            spec = importlib.machinery.ModuleSpec(fullname, _EmptyPackage(), is_package=True)
            spec.submodule_search_locations = []
            return spec
        self.missing.append(fullname)
        raise NeedsModelZoo(fullname)


def install(sys_module, project, mount, standins, sdk, fallback):
    finder = ModelZooFinder(project, mount, standins, sdk, fallback)
    sys_module.meta_path.insert(0, finder)
    return finder

