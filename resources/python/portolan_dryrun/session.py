"""The instrumentation of a dry run: what is patched in the child process, and why.

- CUDA and accelerator calls are made CPU-safe (`.cuda()`, `.to("cuda")`, factory functions
  with a CUDA device, `torch.cuda.is_available()`, `torch.accelerator`), so original scripts run
  on the CPU unchanged.
- The network is off: a download fails at once with a clear error instead of hanging.
- Every optimizer counts its steps: the first step writes the capture, each step writes a step
  event, and the run stops after N steps (DryRunStop, a BaseException, so that a project's
  `except Exception` does not swallow it). LBFGS evaluates its closure once per step, not up to
  `max_iter` times.
- `backward()` records the loss; in a script without any optimizer a backward pass is a step.
- Module calls are recorded (first-call shapes, call counts, IPU of each module) until the
  first step, for the capture.
- DataLoaders use the dry-run batch, and so do the project's batch-size arguments
  (batchargs.py); the batch the project asked for is kept for the capture.
- argparse reports missing required arguments as a structured failure instead of exiting.
"""
import argparse
import errno
import os
import signal
import socket
import sys
import time
import types
import warnings
import weakref

import torch

import _portolan_hooks as hooks

from . import batchargs


class DryRunStop(BaseException):
    """The dry run has done its steps (or was asked to stop)."""

    def __init__(self, reason="completed"):
        super().__init__(reason)
        self.reason = reason


class ArgumentsError(BaseException):
    """The entry's argparse rejected its command line."""

    def __init__(self, parser, message):
        super().__init__(message)
        self.parser = parser
        self.message = message


def tensors(value, out=None):
    """The tensors of a nested value (tuples, lists, dicts), in order; non-tensors skipped."""
    if out is None:
        out = []
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            tensors(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            tensors(v, out)
    return out


def describe(value):
    """[{"shape": [...], "dtype": "float32"}] of the tensors in a nested value, in order."""
    return [{"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}
            for t in tensors(value)]


def first_batch_dim(value, dim=0):
    """Dimension `dim` (the batch's) of the first tensor in a nested value that has it."""
    return next((t.shape[dim] for t in tensors(value) if t.dim() > dim), None)


class ModuleRecord:
    __slots__ = ("calls", "order", "inputs", "outputs", "ipu", "block")

    def __init__(self):
        self.calls = 0
        self.order = None
        self.inputs = []
        self.outputs = []
        self.ipu = None
        self.block = None  # (user_id, ipu_id, kind) of the PopTorch block it runs in


def _is_cuda(device):
    if isinstance(device, str):
        return device.startswith("cuda") or device in ("mps", "xpu")
    if isinstance(device, torch.device):
        return device.type in ("cuda", "mps", "xpu")
    if isinstance(device, int) and not isinstance(device, bool):
        return True  # .to(0) / .cuda(0): a GPU ordinal
    return False


def _cpu_args(args, kwargs):
    args = tuple("cpu" if _is_cuda(a) else a for a in args)
    if "device" in kwargs and _is_cuda(kwargs["device"]):
        kwargs = dict(kwargs, device="cpu")
    return args, kwargs


class Session:
    def __init__(self, events, steps, batch, mode="optimizer"):
        self.events = events
        self.max_steps = steps
        self.batch = batch
        self.mode = mode  # "optimizer": steps are optimizer steps; "driver": the driver counts
        self.steps_done = 0
        self.optimizer_steps = 0
        # Before the ported training's part of the run (replay.py, PORTOLAN_REPLAY_TRAIN_FROM):
        # steps are not counted.
        self.warming = False
        self.optimizers = []
        self.started = time.time()
        self.first_step_time = None
        self.last_step_time = None
        self.stack = []
        self.window_open = True
        self.records = weakref.WeakKeyDictionary()
        self.order = 0
        self.top_calls = []  # [(weakref module, args, kwargs)] first top-level call of each
        self.top_seen = weakref.WeakKeyDictionary()
        self.samples = weakref.WeakKeyDictionary()  # top-level module -> samples since step
        self.model = None
        self.model_inputs = None
        self.step_losses = []
        self.explicit_losses = []
        self.last_loss = None
        self.last_backward_losses = []
        # Several optimizers stepped per batch (a GAN): the optimizer steps of one batch make
        # one step. `pending` holds (optimizer, the losses of the backward() calls before it)
        # of the step under way; `group_size` is how many optimizer steps a batch has, known
        # once the first batch is done.
        self.pending = []
        self.group_size = None
        self.tracing = 0
        self.on_first_step = None  # callback(session, optimizer) that writes the capture
        self.capture_done = False
        self.warned = set()
        self.network_blocked = []
        self.parsed_arguments = None
        self.batch_dim = None  # the input dimension of the batch, once the capture knows it

    # ----------------------------------------------------------------------- install
    def install(self):
        hooks.dry_run_batch = self.batch
        hooks.dry_run_steps = self.max_steps
        hooks.loss_reporter = self.report_loss
        hooks.add_listener(self._on_hook)
        self._patch_network()
        self._patch_cuda()
        self._patch_optimizers()
        self._patch_backward()
        self._patch_module_call()
        self._patch_dataloader()
        self._patch_argparse()
        self._patch_warnings()
        signal.signal(signal.SIGTERM, self._on_sigterm)

    def _patch_warnings(self):
        """A warning raised under a module call is attributed (by its stacklevel) to the
        frame of the call wrapper below; name the project's (or torch's) frame instead."""
        original = warnings.showwarning
        here = os.path.dirname(os.path.abspath(__file__))

        def showwarning(message, category, filename, lineno, file=None, line=None):
            if os.path.abspath(filename).startswith(here + os.sep):
                def ours(f):
                    return os.path.abspath(f.f_code.co_filename).startswith(here + os.sep)

                # Up to the call wrapper, then past it: the code that called the module.
                frame = sys._getframe(1)
                while frame is not None and not ours(frame):
                    frame = frame.f_back
                while frame is not None and ours(frame):
                    frame = frame.f_back
                if frame is not None:
                    filename, lineno, line = frame.f_code.co_filename, frame.f_lineno, None
            return original(message, category, filename, lineno, file, line)

        warnings.showwarning = showwarning

    def _on_sigterm(self, signum, frame):
        raise DryRunStop("stopped")

    def _on_hook(self, kind, fields):
        if kind == "eval":
            self.events.emit("eval", step=self.steps_done, **fields)
        elif kind in ("warning", "info"):
            self.events.emit(kind, **fields)

    def warn_once(self, key, message, **fields):
        if key in self.warned:
            return
        self.warned.add(key)
        self.events.emit("warning", message=message, **fields)

    def info_once(self, key, message, **fields):
        if key in self.warned:
            return
        self.warned.add(key)
        self.events.emit("info", message=message, **fields)

    # ----------------------------------------------------------------------- network
    def _patch_network(self):
        session = self

        def refuse(host):
            if host not in session.network_blocked:
                session.network_blocked.append(host)
                session.info_once("network:" + str(host),
                                  f"network access to {host} refused: a dry run does not "
                                  "download (put the data in place, or the dry run uses "
                                  "synthetic data where it can)")
            raise OSError(errno.ENETUNREACH,
                          f"network access is off in a Portolan dry run (tried {host})")

        def local(host):
            return host in (None, "", "localhost", "127.0.0.1", "::1") or \
                (isinstance(host, str) and host.startswith("/"))

        original_getaddrinfo = socket.getaddrinfo

        def getaddrinfo(host, *args, **kwargs):
            if not local(host):
                refuse(host)
            return original_getaddrinfo(host, *args, **kwargs)

        original_connect = socket.socket.connect

        def connect(sock, address):
            if sock.family != socket.AF_UNIX:
                host = address[0] if isinstance(address, tuple) else address
                if not local(host):
                    refuse(host)
            return original_connect(sock, address)

        socket.getaddrinfo = getaddrinfo
        socket.socket.connect = connect

    # ----------------------------------------------------------------------- CUDA
    def _patch_cuda(self):
        session = self
        torch.cuda.is_available = lambda: False
        torch.cuda.device_count = lambda: 0
        torch.cuda.synchronize = lambda *a, **k: None
        torch.cuda.set_device = lambda *a, **k: None
        torch.cuda.empty_cache = lambda: None
        if hasattr(torch.backends, "mps"):
            torch.backends.mps.is_available = lambda: False

        def note(what):
            session.info_once("cuda", f"{what}: the dry run runs on the CPU, so CUDA calls are "
                              "made CPU-safe")

        tensor_to = torch.Tensor.to

        def to(self, *args, **kwargs):
            cargs, ckwargs = _cpu_args(args, kwargs)
            if (cargs, ckwargs) != (args, kwargs):
                note(".to(cuda)")
            return tensor_to(self, *cargs, **ckwargs)

        torch.Tensor.to = to

        def tensor_cuda(self, device=None, non_blocking=False, memory_format=None):
            note(".cuda()")
            return self

        torch.Tensor.cuda = tensor_cuda

        module_to = torch.nn.Module.to

        def module_to_cpu(self, *args, **kwargs):
            cargs, ckwargs = _cpu_args(args, kwargs)
            if (cargs, ckwargs) != (args, kwargs):
                note("module.to(cuda)")
            return module_to(self, *cargs, **ckwargs)

        torch.nn.Module.to = module_to_cpu

        def module_cuda(self, device=None):
            note("module.cuda()")
            return self

        torch.nn.Module.cuda = module_cuda

        factories = ["zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
                     "arange", "linspace", "logspace", "eye", "tensor", "as_tensor",
                     "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                     "randn_like", "randint_like", "tril_indices", "triu_indices",
                     "from_numpy", "normal", "scalar_tensor"]
        for name in factories:
            original = getattr(torch, name, None)
            if original is None:
                continue

            def make(original, name):
                def factory(*args, **kwargs):
                    if "device" in kwargs and _is_cuda(kwargs["device"]):
                        note(f"torch.{name}(device=cuda)")
                        kwargs["device"] = "cpu"
                    return original(*args, **kwargs)

                factory.__name__ = name
                factory.__doc__ = original.__doc__
                return factory

            setattr(torch, name, make(original, name))

        load = torch.load

        def load_cpu(f, map_location=None, *args, **kwargs):
            return load(f, map_location="cpu" if map_location is None or
                        _is_cuda(map_location) else map_location, *args, **kwargs)

        torch.load = load_cpu

        if not hasattr(torch, "accelerator"):
            # PyTorch 2.6 API (torch.accelerator) used by current pytorch/examples; Debian's
            # 1.13.1 lacks it. Answer as a machine without an accelerator would.
            accelerator = types.ModuleType("torch.accelerator")

            def is_available():
                session.info_once("accelerator",
                                  "torch.accelerator (PyTorch 2.6+) is not in python3-torch "
                                  "1.13.1; the dry run answers is_available() = False")
                return False

            accelerator.is_available = is_available
            accelerator.current_accelerator = lambda *a, **k: None
            accelerator.device_count = lambda: 0
            accelerator.current_device_index = lambda: -1
            accelerator.synchronize = lambda *a, **k: None
            accelerator.set_device_index = lambda *a, **k: None
            torch.accelerator = accelerator
            sys.modules["torch.accelerator"] = accelerator

    # ----------------------------------------------------------------------- steps
    def _patch_optimizers(self):
        session = self
        original_init = torch.optim.Optimizer.__init__

        def counted_step(opt, *args, **kwargs):
            result = type(opt).step(opt, *args, **kwargs)
            session.after_optimizer_step(opt)
            return result

        def init(opt, params, defaults):
            original_init(opt, params, defaults)
            opt.step = types.MethodType(counted_step, opt)
            session.optimizers.append(weakref.ref(opt))
            session._shorten_inner_iterations(opt)

        torch.optim.Optimizer.__init__ = init

    def _shorten_inner_iterations(self, opt):
        # A quasi-Newton optimizer re-evaluates the whole closure up to max_iter times in one
        # step (LBFGS: 20 by default). The dry run checks that the loop runs and captures the
        # model; the fit is not its business, so like the batch, the inner iterations shrink to
        # one. The step's loss is still the project's own. Said once, so the user knows.
        if not isinstance(opt, torch.optim.LBFGS):
            return
        asked = max(int(g.get("max_iter", 1)) for g in opt.param_groups)
        if asked <= 1:
            return
        for group in opt.param_groups:
            group["max_iter"] = 1
            group["max_eval"] = 1
        self.info_once("lbfgs-iterations", "the dry run runs LBFGS with 1 closure evaluation "
                       "per step (the project asks for up to %d): it checks the training loop, "
                       "not the fit" % asked)

    def _patch_backward(self):
        session = self
        original = torch.Tensor.backward

        def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
            if self.numel() == 1 and self.is_floating_point():
                session.note_backward_loss(self)
            result = original(self, gradient, retain_graph, create_graph, inputs=inputs)
            session.after_backward()
            return result

        torch.Tensor.backward = backward

    def report_loss(self, loss):
        """A stand-in tells the true loss of a micro-batch (before its own scaling)."""
        try:
            self.explicit_losses.append(float(loss.detach()))
        except (RuntimeError, ValueError, TypeError):
            pass

    def note_backward_loss(self, loss):
        try:
            self.step_losses.append(float(loss.detach()))
        except (RuntimeError, ValueError):
            pass

    def has_optimizer(self):
        return any(ref() is not None for ref in self.optimizers)

    def after_backward(self):
        self.stack.clear()  # a forward that raised may have left calls on the stack
        if self.warming:
            self.step_losses = []
            return
        if self.mode == "optimizer" and not self.has_optimizer() and \
                not hooks.runner_controls_steps:
            # A script that updates its weights by hand (no optimizer): a backward is a step.
            self.info_once("backward-steps", "the script uses no optimizer: each backward() "
                           "counts as a training step")
            self.complete_step(None)

    def after_optimizer_step(self, opt):
        if self.warming:
            self.step_losses = []
            self.explicit_losses = []
            return
        self.optimizer_steps += 1
        if self.mode == "driver":
            if self.optimizer_steps == 1:
                self.first_step(opt)
            return
        live = [r for r in self.optimizers if r() is not None]
        if self.group_size is None and not self.pending and len(live) < 2:
            self.complete_step(opt)
            return
        self.step_in_group(opt)

    def step_in_group(self, opt):
        """One optimizer step of a batch that steps several. The first batch ends when an
        optimizer steps a second time or the next batch is drawn (batch_boundary); later
        batches end with their group_size-th optimizer step."""
        losses, self.step_losses = self.step_losses, []
        if any(o is opt for o, _ in self.pending):
            self.complete_group()  # the losses noted since are this batch's, not that one's
        self.pending.append((opt, losses))
        if self.group_size is not None and len(self.pending) >= self.group_size:
            self.complete_group()

    def batch_boundary(self):
        """The next batch is drawn: the optimizer steps of the last one are its step."""
        if self.pending:
            self.complete_group()

    def complete_group(self):
        pending, self.pending = self.pending, []
        if self.group_size is None:
            self.group_size = len(pending)
            if self.group_size > 1:
                self.info_once("optimizer-groups",
                               f"{self.group_size} optimizer steps per batch (several models "
                               "trained in turn): each batch counts as one step")
        self.step_losses = [loss for _, group in pending for loss in group] + self.step_losses
        self.complete_step(pending[0][0])

    def current_loss(self):
        losses = self.explicit_losses or self.step_losses
        if not losses:
            return self.last_loss
        if self.explicit_losses:
            return sum(losses) / len(losses)
        return losses[-1]

    def first_step(self, opt):
        self.window_open = False
        if self.on_first_step is not None and not self.capture_done:
            self.capture_done = True
            self.on_first_step(self, opt)

    def complete_step(self, opt, loss=None, metrics=None):
        """One training step is done: event, capture after the first, stop after the last."""
        self.steps_done += 1
        now = time.time()
        if loss is None:
            loss = self.current_loss()
        self.last_loss = loss
        if self.steps_done == 1 and not self.capture_done:
            # The capture first: it finds where the batch is, which the samples count needs.
            self.first_step(opt)
        samples = self.samples_since_step()
        elapsed = now - (self.last_step_time or self.started)
        lr = None
        if opt is not None and opt.param_groups:
            lr = opt.param_groups[0].get("lr")
        elif self.optimizers:
            live = [r() for r in self.optimizers if r() is not None]
            if live and live[0].param_groups:
                lr = live[0].param_groups[0].get("lr")
        fields = dict(step=self.steps_done, loss=loss, lr=lr, epoch=0,
                      samples=samples,
                      samples_per_sec=(samples / elapsed) if samples and elapsed > 0 else None,
                      elapsed_s=round(now - self.started, 3))
        if metrics:
            fields["metrics"] = metrics
        # Several backward() calls in the step (a GAN's losses): each, in order.
        self.last_backward_losses = list(self.step_losses)
        if len(self.step_losses) > 1 and not self.explicit_losses:
            fields["backward_losses"] = list(self.step_losses)
        if self.steps_done == 1:
            self.first_step_time = now
        self.events.emit("step", **fields)
        self.last_step_time = time.time()
        self.step_losses = []
        self.explicit_losses = []
        if self.mode == "optimizer" and not hooks.runner_controls_steps and \
                self.steps_done >= self.max_steps:
            raise DryRunStop("completed")

    # ----------------------------------------------------------------------- modules
    def _patch_module_call(self):
        session = self
        original = torch.nn.Module.__call__

        def call(module, *args, **kwargs):
            if session.tracing or hooks.recording_suspended:
                return original(module, *args, **kwargs)
            return session.run_recorded(module, args, kwargs,
                                        lambda: original(module, *args, **kwargs))

        torch.nn.Module.__call__ = call

    def run_recorded(self, module, args, kwargs, run):
        """One call of a module, recorded while the window is open (shapes, order, device),
        and noted as a top-level call when no other module call encloses it."""
        stack = self.stack
        depth = len(stack)
        record = None
        first = False
        if self.window_open:
            record = self.records.get(module)
            if record is None:
                record = ModuleRecord()
                self.records[module] = record
            record.calls += 1
            first = record.calls == 1
            if first:
                record.order = self.order
                self.order += 1
                record.inputs = describe((args, kwargs))
                record.ipu = self.ipu_of(module)
                record.block = self.block_of(module)
        if depth == 0:
            self.note_top_call(module, args, kwargs)
        stack.append(module)
        try:
            out = run()
        finally:
            if stack and stack[-1] is module:
                stack.pop()
        if first:
            record.outputs = describe(out)
        return out

    def watch_direct_forward(self, module, then):
        """Records the next call of `module.forward(...)` made directly (not through
        `module(...)`, which the Module.__call__ patch already sees), then calls `then()`.

        Layer-local training (each layer calls its own forward and steps its own optimizer)
        never goes through __call__ at the top. The class's forward is wrapped only until that
        one call, so copies of the module and other instances keep the class as it was."""
        session = self
        cls = type(module)
        own = cls.__dict__.get("forward")
        original = cls.forward

        def restore():
            if own is None:
                try:
                    delattr(cls, "forward")
                except AttributeError:
                    pass
            else:
                cls.forward = own

        def forward(this, *args, **kwargs):
            if this is not module or session.tracing or hooks.recording_suspended or \
                    (session.stack and session.stack[-1] is this):
                return original(this, *args, **kwargs)
            restore()
            opened = session.window_open
            session.window_open = True  # the shapes of the layers it calls, as at step 1
            try:
                out = session.run_recorded(this, args, kwargs,
                                           lambda: original(this, *args, **kwargs))
            finally:
                session.window_open = opened
            then()
            return out

        cls.forward = forward
        return restore

    def ipu_of(self, module):
        blocks = sys.modules.get("poptorch._blocks")
        if blocks is None or not hasattr(blocks, "_portolan_ipu_of"):
            return None
        return blocks._portolan_ipu_of(module)

    def block_of(self, module):
        blocks = sys.modules.get("poptorch._blocks")
        if blocks is None or not hasattr(blocks, "_portolan_block_of"):
            return None
        return blocks._portolan_block_of(module)

    def note_top_call(self, module, args, kwargs):
        # The shapes are kept and counted at the step, once the capture knows which dimension
        # holds the batch (the second for a sequence-first model).
        shape = next((tuple(t.shape) for t in tensors((args, kwargs)) if t.dim() > 0), None)
        if shape is not None:
            self.samples.setdefault(module, []).append(shape)
        if self.window_open and module not in self.top_seen:
            self.top_seen[module] = True
            self.top_calls.append((weakref.ref(module), args, kwargs))

    def samples_since_step(self):
        dim = self.batch_dim or 0
        counts = {m: sum(shape[dim] for shape in shapes if len(shape) > dim) or None
                  for m, shapes in self.samples.items()}
        self.samples = weakref.WeakKeyDictionary()
        if self.model is not None:
            root = self.model
            ordered = [counts.get(root)]
            # The model may be called through a wrapper (DataParallel, a loss wrapper).
            ordered += [v for k, v in counts.items() if k is not root]
            return next((c for c in ordered if c), None)
        return max((c for c in counts.values() if c), default=None)

    def reset_for_retry(self):
        """Forget a failed attempt (a synthetic batch that did not fit the project's code)."""
        self.steps_done = 0
        self.optimizer_steps = 0
        self.window_open = True
        self.records = weakref.WeakKeyDictionary()
        self.order = 0
        self.top_calls = []
        self.top_seen = weakref.WeakKeyDictionary()
        self.samples = weakref.WeakKeyDictionary()
        self.model = None
        self.capture_done = False
        self.step_losses = []
        self.explicit_losses = []
        self.pending = []
        self.group_size = None
        self.stack.clear()

    # ----------------------------------------------------------------------- data
    def _patch_dataloader(self):
        original = torch.utils.data.DataLoader.__init__

        def init(loader, dataset, batch_size=1, *args, **kwargs):
            requested = batch_size
            if not hooks.clamp_suspended() and isinstance(batch_size, int) and \
                    kwargs.get("batch_sampler") is None and hooks.dry_run_batch is not None:
                name = type(loader).__module__ + "." + type(loader).__name__
                batch_size = hooks.clamp_batch(batch_size, f"{name}(batch_size=...)")
            if hooks.dry_run_batch is not None and kwargs.get("num_workers"):
                kwargs["num_workers"] = 0
                kwargs.pop("prefetch_factor", None)
                kwargs["persistent_workers"] = False
            result = original(loader, dataset, batch_size, *args, **kwargs)
            if requested != batch_size and isinstance(requested, int):
                hooks.clamped_loaders.append([weakref.ref(loader), requested, batch_size])
            return result

        torch.utils.data.DataLoader.__init__ = init

    # ----------------------------------------------------------------------- arguments
    def _patch_argparse(self):
        session = self
        original_error = argparse.ArgumentParser.error
        original_parse = argparse.ArgumentParser.parse_known_args

        def error(parser, message):
            if getattr(parser, "_portolan_probe", False):
                return original_error(parser, message)
            raise ArgumentsError(parser, message)

        def parse_known_args(parser, args=None, namespace=None):
            result = original_parse(parser, args, namespace)
            if session.parsed_arguments is None and args is None:
                batchargs.shrink(session, result[0])
                session.parsed_arguments = result[0]
                values = {k: v for k, v in vars(result[0]).items()}
                session.events.emit("arguments", argv=sys.argv[1:], values=values,
                                    defaults=[a.dest for a in parser._actions
                                              if a.dest in values and a.default is not
                                              argparse.SUPPRESS and
                                              values[a.dest] == a.default])
            return result

        argparse.ArgumentParser.error = error
        argparse.ArgumentParser.parse_known_args = parse_known_args


def required_arguments(parser):
    """[{flag, dest, help, type, choices}] of the parser's required options and positionals
    the command line did not give (from argparse's own error)."""
    out = []
    for action in parser._actions:
        required = action.required or (not action.option_strings and action.nargs not in
                                        ("?", "*", argparse.REMAINDER) and
                                        not isinstance(action, argparse._SubParsersAction))
        if not required or isinstance(action, argparse._HelpAction):
            continue
        out.append({
            "flag": action.option_strings[-1] if action.option_strings else action.dest,
            "dest": action.dest,
            "help": action.help or "",
            "type": getattr(action.type, "__name__", None) if action.type else "str",
            "choices": [str(c) for c in action.choices] if action.choices else None,
            "positional": not action.option_strings,
        })
    return out
