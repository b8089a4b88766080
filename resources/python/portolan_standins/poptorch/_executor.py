"""trainingModel / inferenceModel (PopTorch 3.x semantics) on the CPU.

A call takes one combined batch (micro-batch x device iterations x replication x gradient
accumulation in the first dimension, as PopTorch requires), runs forward, backward and the
optimizer step per iteration, and returns the outputs the output mode asks for. The loss is
computed inside the model's forward, as on the IPU.
"""
import torch

import _portolan_hooks as hooks
from . import _blocks, enums
from .options import Options

_executors = []  # every executor made, for the dry run's capture


def _flatten(value, out):
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _flatten(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _flatten(v, out)
    return out


def _map(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_map(v, fn) for v in value)
    if isinstance(value, list):
        return [_map(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _combine(outputs, mode):
    """Joins the per-iteration outputs like PopTorch's output modes."""
    if not outputs:
        return None
    if mode == enums.OutputMode.Final:
        return outputs[-1]

    def join(*tensors):
        if tensors[0].dim() == 0:
            stacked = torch.stack(tensors)
        else:
            stacked = torch.cat(tensors)
        return stacked.sum(0) if mode == enums.OutputMode.Sum else stacked

    first = outputs[0]
    if isinstance(first, torch.Tensor):
        return join(*outputs)
    if isinstance(first, (tuple, list)):
        joined = [_combine([o[i] for o in outputs], mode) for i in range(len(first))]
        return type(first)(joined) if isinstance(first, tuple) else joined
    if isinstance(first, dict):
        return {k: _combine([o[k] for o in outputs], mode) for k in first}
    return first


class PoplarExecutor:
    _own = frozenset({"_model", "_user_model", "_options", "_training", "_optimizer",
                      "_attached", "_compiled", "_anchors"})

    def __init__(self, model, options=None, training=True, optimizer=None, user_model=None):
        if not isinstance(model, torch.nn.Module):
            raise TypeError("model must be a torch.nn.Module")
        self._model = model
        self._user_model = user_model if user_model is not None else model
        self._options = options.clone() if options is not None else Options()
        self._training = training
        self._optimizer = optimizer
        self._attached = True
        self._compiled = False
        self._anchors = {}
        if training and optimizer is None:
            self._optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        _warn_unsupported(self._optimizer)
        _executors.append(self)
        # A plain DataLoader that the dry run made small must still give whole combined
        # batches to this model.
        opts = self._options
        hooks.fit_loaders_to(opts.device_iterations * opts.replication_factor *
                             (opts.Training.gradient_accumulation if training else 1),
                             "poptorch.trainingModel" if training else
                             "poptorch.inferenceModel")

    # Like PopTorch, the executor stands in for the model.
    def __getattr__(self, name):
        if name.startswith("__") or name in PoplarExecutor._own:
            raise AttributeError(name)
        return getattr(self._user_model, name)

    @property
    def model(self):
        return self._user_model

    @property
    def options(self):
        return self._options

    @property
    def training(self):
        return self._training

    def _split(self, args, kwargs):
        """The micro-batches of one call: [(args, kwargs)] per iteration step."""
        opts = self._options
        di = opts.device_iterations
        rf = opts.replication_factor
        ga = opts.Training.gradient_accumulation if self._training else 1
        factor = di * rf * ga
        tensors = _flatten((args, kwargs), [])
        batched = [t for t in tensors if t.dim() > 0]
        if not batched:
            return [(args, kwargs)], 1, 1
        for t in batched:
            if t.shape[0] % factor:
                raise RuntimeError(
                    f"Invalid batch dimension: the input batch dimension ({t.shape[0]}) must be "
                    f"a multiple of Options.deviceIterations({di}) * "
                    f"Options.replicationFactor({rf}) * "
                    f"Options.Training.gradientAccumulation({ga}) = {factor}")
        if factor == 1:
            # One micro-batch per call: PopTorch passes every input whole, whatever its first
            # dimension (a sequence-first batch, a flattened target, a carried state).
            return [(args, kwargs)], di, rf * ga

        # Each input is cut along its own first dimension, into `factor` equal parts.
        def piece(i):
            def cut(t):
                if t.dim() == 0:
                    return t
                micro = t.shape[0] // factor
                return t[i * micro:(i + 1) * micro]
            return cut

        pieces = [(_map(args, piece(i)), _map(kwargs, piece(i))) for i in range(factor)]
        return pieces, di, rf * ga

    def _loss_of(self, output):
        candidates = [t for t in _flatten(output, [])
                      if t.numel() == 1 and t.requires_grad and t.is_floating_point()]
        if not candidates:
            raise RuntimeError(
                "poptorch.trainingModel: the model must compute its loss inside forward and "
                "return it: no output is a scalar tensor with a gradient. Return the loss (or "
                "(output, loss)) from forward, for example through a wrapper module.")
        return candidates[-1]

    def _record_anchors(self):
        named = dict(self._user_model.named_parameters())
        for short, long_name in self._options.anchored_tensors.items():
            if long_name.startswith("Gradient___"):
                p = named.get(long_name[len("Gradient___"):])
                if p is not None and p.grad is not None:
                    self._anchors[short] = p.grad.detach().clone()
            elif long_name in named:
                self._anchors[short] = named[long_name].detach().clone()

    def __call__(self, *args, **kwargs):
        if not self._attached:
            self.attachToDevice()
        pieces, iterations, per_step = self._split(args, kwargs)
        outputs = []
        mode = self._options._values["output_mode"]
        if mode == enums.OutputMode.Default:
            mode = enums.OutputMode.Final if self._training else enums.OutputMode.All
        reduction = self._options.Training.accumulation_and_replication_reduction_type
        scale = 1.0 / per_step if reduction == enums.ReductionType.Mean else 1.0
        index = 0
        for _ in range(iterations):
            step_outputs = []
            for _ in range(per_step):
                a, k = pieces[index]
                index += 1
                _blocks._portolan_reset(self._options._execution_strategy)
                if self._training:
                    out = self._model(*a, **k)
                    loss = self._loss_of(out)
                    if hooks.loss_reporter is not None:
                        hooks.loss_reporter(loss)
                    (loss * scale if scale != 1.0 else loss).backward()
                else:
                    with torch.no_grad():
                        out = self._model(*a, **k)
                step_outputs.append(_map(out, lambda t: t.detach()))
            if self._training:
                self._record_anchors()
                _clip_gradients(self._optimizer)
                self._optimizer.step()
                self._optimizer.zero_grad()
            outputs.append(step_outputs[-1] if len(step_outputs) == 1 else
                           _combine(step_outputs, enums.OutputMode.All))
        self._compiled = True
        return _combine(outputs, mode)

    def compile(self, *args, **kwargs):
        """Checks the inputs as compilation would (one forward pass, no weight update)."""
        pieces, _, _ = self._split(args, kwargs)
        a, k = pieces[0]
        hooks.recording_suspended += 1
        try:
            with torch.no_grad():
                _blocks._portolan_reset(self._options._execution_strategy)
                out = self._model(*a, **k)
                if self._training:
                    self._loss_of_nograd(out)
        finally:
            hooks.recording_suspended -= 1
        self._compiled = True

    def _loss_of_nograd(self, output):
        if not [t for t in _flatten(output, []) if t.numel() == 1 and t.is_floating_point()]:
            raise RuntimeError("poptorch.trainingModel: the model must compute its loss inside "
                               "forward and return it.")

    def compileAndExport(self, filename, *args, export_model=True, **kwargs):
        self.compile(*args, **kwargs)

    def isCompiled(self):
        return self._compiled

    def setOptimizer(self, optimizer):
        _warn_unsupported(optimizer)
        self._optimizer = optimizer

    def copyWeightsToHost(self):
        pass

    def copyWeightsToDevice(self):
        pass

    def copyNamedBuffersToDevice(self):
        pass

    def detachFromDevice(self):
        if not self._attached:
            raise RuntimeError("Device is not attached")
        self._attached = False

    def attachToDevice(self):
        self._attached = True

    def isAttachedToDevice(self):
        return self._attached

    def destroy(self):
        self._attached = False

    def getTensorNames(self):
        names = []
        for name, _ in self._user_model.named_parameters():
            names += [name, "Gradient___" + name]
        return names

    def getAnchoredTensor(self, short_name):
        if short_name not in self._options.anchored_tensors:
            raise RuntimeError(f"Tensor {short_name} was not anchored (Options.anchorTensor)")
        if short_name not in self._anchors:
            raise RuntimeError(f"Anchored tensor {short_name} has no value yet: run the model "
                               "first")
        return self._anchors[short_name]

    def getPerfCounters(self):
        return {}

    def cycleCount(self):
        raise RuntimeError("Cycle count logging is disabled (no IPU in a CPU dry run)")

    def train(self, mode=True):
        self._user_model.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def __repr__(self):
        return f"PoplarExecutor({self._user_model!r})"


# The optimizers trainingModel takes (poptorch.optim's subclass these, LAMB is its own).
_SUPPORTED = (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW, torch.optim.RMSprop)
_warned = set()


def _warn_unsupported(optimizer):
    """PopTorch refuses any other optimizer when it compiles the model. The stand-in still steps
    it on the CPU, so that the rest of a port that keeps such an optimizer (a manual item) can be
    run and compared, and says so."""
    if optimizer is None or isinstance(optimizer, _SUPPORTED) or \
            type(optimizer).__module__.startswith("poptorch"):
        return
    name = type(optimizer).__module__ + "." + type(optimizer).__name__
    if name in _warned:
        return
    _warned.add(name)
    hooks.notify("warning", f"{name} is not an optimizer poptorch.trainingModel trains with "
                 "(SGD, Adam, AdamW, RMSprop, LAMB): PopTorch would refuse it; the dry run steps "
                 "it on the CPU as the original does, to run and compare the rest of the port",
                 kind="optimizer-unsupported", optimizer=name)


def _clip_gradients(optimizer):
    """poptorch.optim's max_grad_norm: the gradients clipped by their global 2-norm inside the
    program, before the update (default inf: none)."""
    norm = getattr(optimizer, "poptorch_settings", {}).get("max_grad_norm")
    if norm is None or float(norm) == float("inf"):
        return
    params = [p for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
    torch.nn.utils.clip_grad_norm_(params, float(norm))


def trainingModel(model, options=None, optimizer=None):
    """Wraps `model` to train on the IPU: forward, backward and the optimizer step in one call."""
    return PoplarExecutor(model=model, options=options, training=True, optimizer=optimizer,
                          user_model=model)


def inferenceModel(model, options=None):
    """Wraps `model` for inference."""
    return PoplarExecutor(model=model, options=options, training=False)
