"""Pretrained weights in a dry run: the model's own initial weights stand in for a download.

A dry run has no network, yet many projects start from published weights (torchvision's
`weights=`/`pretrained=True`, `torch.hub.load_state_dict_from_url`, `download_url_to_file`,
`torch.hub.load("pytorch/vision", ...)`). What the dry run checks (the training loop runs, the
model's shapes) does not depend on the values of the weights, so:

- `load_state_dict_from_url` (and `torch.utils.model_zoo.load_url`, and every module that bound
  it at import, such as torchvision's builders) returns an empty *stand-in state dict*; a
  `load_state_dict` given it (or any empty mapping once a stand-in was handed out, since
  projects often filter the dict into a new one) keeps the module's random initialisation;
- `download_url_to_file` of a checkpoint writes an empty state dict to the destination (and an
  empty archive of the format for an archive), so that `torch.load` of it is the same stand-in;
- `torch.hub.load` of torchvision's own repository builds the model from the installed
  torchvision, without weights; other repositories need their code, which is not downloaded.

Each stand-in is announced by a `warning` event of kind `synthetic-weights` naming what was
asked for, and the run is marked as not using the real weights.
"""
import os
import sys
import urllib.parse

import torch

CHECKPOINT_EXTS = (".pth", ".pt", ".ckpt", ".bin", ".pkl", ".pth.tar", ".tar")


class StandInStateDict(dict):
    """An empty state dict standing for downloaded weights. Deleting or popping a key that is
    not there is allowed (projects drop a classifier head from the published weights)."""

    def __init__(self, url):
        super().__init__()
        self.portolan_url = url

    def __delitem__(self, key):
        if key in self:
            super().__delitem__(key)

    def pop(self, key, *default):
        return super().pop(key, *(default or (None,)))

    def __reduce__(self):
        # torch.save of it (a project caching the download) writes a plain empty dict.
        return (dict, ())


def _name(url):
    path = urllib.parse.urlparse(str(url)).path
    return os.path.basename(path) or str(url)


class Weights:
    def __init__(self, session):
        self.session = session
        self.handed_out = []

    def announce(self, what, how, **fields):
        self.handed_out.append(what)
        self.session.synthetic_weights = True
        self.session.events.emit(
            "warning", kind="synthetic-weights",
            message=f"pretrained weights are not loaded: {what} would be downloaded, and a dry "
            f"run has no network; {how} (losses are not those of the published weights)",
            asked=what, **fields)

    # ------------------------------------------------------------------ stand-ins
    def state_dict_from_url(self, url, *args, **kwargs):
        self.announce(str(url), "the model keeps its own random initial weights",
                      url=str(url), file=_name(url))
        return StandInStateDict(str(url))

    def download_url_to_file(self, url, dst, *args, **kwargs):
        from .datafiles import ARCHIVES, empty_archive

        lower = str(dst).lower()
        kind = next((ext for ext in ARCHIVES if lower.endswith(ext) and ext != ".tar"), None)
        os.makedirs(os.path.dirname(os.path.abspath(dst)) or ".", exist_ok=True)
        if kind is not None:
            with open(dst, "wb") as f:
                f.write(empty_archive(kind))
            how = f"an empty {kind} archive is written to {dst}"
        else:
            torch.save({}, dst)
            how = f"an empty state dict is written to {dst}, and the model keeps its own " \
                "random initial weights"
        self.announce(str(url), how, url=str(url), file=_name(url), destination=str(dst))

    def hub_load(self, original, repo_or_dir, model, *args, **kwargs):
        source = kwargs.get("source", "github")
        repo = str(repo_or_dir).split(":")[0].rstrip("/").lower()
        if source == "local" or os.path.isdir(str(repo_or_dir)):
            return original(repo_or_dir, model, *args, **kwargs)
        if repo in ("pytorch/vision", "pytorch/vision.git"):
            import torchvision.models as models

            builder = getattr(models, model, None)
            if callable(builder):
                config = {k: v for k, v in kwargs.items()
                          if k not in ("source", "trust_repo", "force_reload", "verbose",
                                       "skip_validation", "pretrained", "weights")}
                asked = kwargs.get("weights") or kwargs.get("pretrained")
                self.announce(f"torch.hub.load({repo_or_dir!r}, {model!r})",
                              "the model is built by the installed torchvision "
                              f"{getattr(sys.modules.get('torchvision'), '__version__', '')}"
                              " with its random initial weights" +
                              (f" (asked for weights {asked})" if asked else ""),
                              repository=str(repo_or_dir), model=model)
                return builder(*args, **config)
        return original(repo_or_dir, model, *args, **kwargs)

    def load_state_dict_guard(self, original):
        weights = self

        def load_state_dict(module, state_dict, strict=True):
            if isinstance(state_dict, StandInStateDict) or \
                    (weights.handed_out and hasattr(state_dict, "__len__") and
                     len(state_dict) == 0):
                from torch.nn.modules.module import _IncompatibleKeys

                weights.session.info_once(
                    "weights-kept:" + type(module).__name__,
                    f"{type(module).__name__}.load_state_dict: the stand-in for downloaded "
                    "weights is empty; the module keeps its initial weights")
                return _IncompatibleKeys([], [])
            return original(module, state_dict, strict)

        load_state_dict.__doc__ = original.__doc__
        return load_state_dict

    # ------------------------------------------------------------------ install
    def install(self):
        import torch.hub as hub

        original_url = hub.load_state_dict_from_url
        original_download = hub.download_url_to_file
        original_hub_load = hub.load

        def state_dict_from_url(url, *args, **kwargs):
            return self.state_dict_from_url(url, *args, **kwargs)

        def download_url_to_file(url, dst, *args, **kwargs):
            return self.download_url_to_file(url, dst, *args, **kwargs)

        def hub_load(repo_or_dir, model, *args, **kwargs):
            return self.hub_load(original_hub_load, repo_or_dir, model, *args, **kwargs)

        replacements = {original_url: state_dict_from_url,
                        original_download: download_url_to_file}
        # Modules that bound the functions at import (torch.utils.model_zoo.load_url,
        # torchvision's builders) are rebound too.
        try:
            import torchvision.models  # noqa: F401 - binds its copy now, so it is rebound below
        except ImportError:
            pass
        for module in list(sys.modules.values()):
            names = getattr(module, "__dict__", None)
            if not isinstance(names, dict):
                continue
            for key, value in list(names.items()):
                try:
                    replacement = replacements.get(value)
                except Exception:  # noqa: BLE001 - unhashable or odd values are not ours
                    continue
                if replacement is not None:
                    setattr(module, key, replacement)
        hub.load = hub_load
        torch.nn.Module.load_state_dict = self.load_state_dict_guard(
            torch.nn.Module.load_state_dict)
        return self
