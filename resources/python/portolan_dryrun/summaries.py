"""`torch.utils.tensorboard` without the tensorboard package, in a dry run.

Training code often imports `from torch.utils.tensorboard import SummaryWriter` only to log
scalars (the Model Zoo's R1.x runner does, in its open code). torch's module needs the
`tensorboard` package, which Debian 12 does not ship, so the import alone would end the run
with "needs tensorboard", although logging has no part in what a dry run checks. When the
package is not installed, the module is a writer that keeps nothing: every `add_*` call is
accepted and dropped. Said once, in a `warning` event of kind `no-summaries`, when the project
makes its first writer. The one helper of tensorboard's own package that training code is known
to import (Model Zoo R1.8's summaries: `tensorboard.backend.event_processing.io_wrapper.
IsSummaryEventsFile`, which tells an event file by "tfevents" in its name) is there too. With
tensorboard installed, torch's and tensorboard's own modules are used.
"""
import importlib.machinery
import importlib.util
import os
import sys
import types


def _writer_class(session):
    class SummaryWriter:
        """torch.utils.tensorboard.SummaryWriter's surface; nothing is written."""

        def __init__(self, log_dir=None, *args, **kwargs):
            self.log_dir = log_dir
            session.warn_once(
                "no-summaries", "tensorboard is not installed (Debian 12 does not package it): "
                "the project's SummaryWriter"
                f"{f' for {log_dir}' if log_dir else ''} writes no event files in the dry run",
                kind="no-summaries")

        def get_logdir(self):
            return self.log_dir

        def __getattr__(self, name):
            # add_scalar, add_scalars, add_histogram, add_graph, flush, close, ...
            if name.startswith("__"):
                raise AttributeError(name)
            return lambda *args, **kwargs: None

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    return SummaryWriter


def install(session):
    if importlib.util.find_spec("tensorboard") is not None:
        return
    module = types.ModuleType("torch.utils.tensorboard")
    module.__doc__ = __doc__
    module.SummaryWriter = _writer_class(session)
    writer = types.ModuleType("torch.utils.tensorboard.writer")
    writer.SummaryWriter = module.SummaryWriter
    module.writer = writer
    module.__path__ = []  # a package, so that `torch.utils.tensorboard.writer` imports
    module.__spec__ = importlib.machinery.ModuleSpec(module.__name__, None, is_package=True)
    writer.__spec__ = importlib.machinery.ModuleSpec(writer.__name__, None)
    sys.modules["torch.utils.tensorboard"] = module
    sys.modules["torch.utils.tensorboard.writer"] = writer
    import torch.utils

    torch.utils.tensorboard = module
    _install_package()


def _install_package():
    """The `tensorboard` package's io_wrapper helper, as packages of empty parents."""
    names = ["tensorboard", "tensorboard.backend", "tensorboard.backend.event_processing",
             "tensorboard.backend.event_processing.io_wrapper"]
    parent = None
    for name in names:
        module = types.ModuleType(name)
        module.__path__ = []
        # A spec, so that importlib.util.find_spec(name) answers instead of raising.
        module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        module.__doc__ = "stand-in (tensorboard is not installed): see portolan_dryrun.summaries"
        sys.modules[name] = module
        if parent is not None:
            setattr(parent, name.rsplit(".", 1)[1], module)
        parent = module
    parent.IsSummaryEventsFile = lambda path: "tfevents" in os.path.basename(str(path))
