"""The capture for the simulated compilers (resources/capture/README.md).

Written after the first optimizer step: PROJECT/.portolan/capture/model.pt (TorchScript of the
model, traced on the first batch in training mode) and capture.json (module tree, sizes,
first-call shapes, IPU of each module, the declared pipeline, options, optimizer). Anything not
known is null, never guessed.
"""
import gc
import inspect
import json
import os
import sys

import torch

import _portolan_hooks as hooks

from .session import describe, tensors

FORMAT = "portolan-capture"
VERSION = 1


def _type_name(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    if module.startswith("torch.optim.") and hasattr(torch.optim, cls.__name__):
        module = "torch.optim"
    return f"{module}.{cls.__qualname__}"


def _wrapped(module):
    """The module inside DataParallel / DistributedDataParallel."""
    parallel = (torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel)
    while isinstance(module, parallel):
        module = module.module
    return module


def find_model(session, optimizer):
    """(model, args, kwargs, reason): the top-level module whose parameters the optimizer owns
    (or, without an optimizer, that got gradients), with the arguments of its first call."""
    if optimizer is not None:
        owned = {id(p) for g in optimizer.param_groups for p in g["params"]}
    else:
        owned = None
    best = None
    for index, (ref, args, kwargs) in enumerate(session.top_calls):
        module = ref()
        if module is None:
            continue
        params = list(module.parameters())
        if owned is None:
            mine = {id(p) for p in params if p.grad is not None}
        else:
            mine = {id(p) for p in params} & owned
        if not mine:
            continue
        key = (len(mine), -(len(params) - len(mine)), -index)
        if best is None or key > best[0]:
            best = (key, module, args, kwargs)
    if best is None:
        return None, None, None, "no module called by the project has parameters the " \
            "optimizer trains"
    _, module, args, kwargs = best
    reason = "the module whose parameters the optimizer owns" if owned is not None else \
        "the module whose parameters got gradients (the script has no optimizer)"
    return _wrapped(module), args, kwargs, reason


def owner_of_parameters(optimizer):
    """The live module owning most of the optimizer's parameters (the outermost of those that
    own the same), found without any call of it; None when no module owns any."""
    owned = {id(p) for g in optimizer.param_groups for p in g["params"]}
    best = None
    for obj in gc.get_objects():
        if not isinstance(obj, torch.nn.Module):
            continue
        params = {id(p) for p in obj.parameters()}
        mine = params & owned
        if not mine:
            continue
        key = (len(mine), -(len(params) - len(mine)), sum(1 for _ in obj.modules()))
        if best is None or key > best[0]:
            best = (key, obj)
    return _wrapped(best[1]) if best is not None else None


def all_models(session, chosen, chosen_optimizer):
    """Every model the project's optimizers own (a GAN's generator and discriminator), the chosen
    one first: [{class, parameters, optimizer, traced, chosen_as}]. A model is the top-level
    module owning most of an optimizer's parameters."""
    out = [chosen]
    seen = {id(chosen)}
    optimizers = [chosen_optimizer] + [r() for r in session.optimizers]
    for opt in optimizers:
        if opt is None:
            continue
        model = find_model(session, opt)[0]
        if model is None or id(model) in seen:
            continue
        seen.add(id(model))
        out.append((model, opt))
    rows = []
    for i, item in enumerate(out):
        model, opt = (item, chosen_optimizer) if i == 0 else item
        seen_params = set()
        total = 0
        for p in model.parameters():
            if id(p) not in seen_params:
                seen_params.add(id(p))
                total += p.numel()
        rows.append({"class": _type_name(model), "parameters": total,
                     "optimizer": _type_name(opt) if opt is not None else None,
                     "traced": i == 0,
                     "chosen_as": "the module whose parameters the optimizer that stepped "
                     "first owns" if i == 0 else "owns the parameters of another optimizer"})
    return rows


class _Call(torch.nn.Module):
    """Calls the model with the keyword and non-tensor arguments of its first call, taking
    only the tensors as inputs (torch.jit.trace accepts positional tensors only)."""

    def __init__(self, model, args, kwargs):
        super().__init__()
        self.model = model
        self._template = (args, kwargs)

    def forward(self, *tensors):
        it = iter(tensors)

        def fill(value):
            if isinstance(value, torch.Tensor):
                return next(it)
            if isinstance(value, tuple):
                return tuple(fill(v) for v in value)
            if isinstance(value, list):
                return [fill(v) for v in value]
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            return value

        args, kwargs = fill(self._template)
        return self.model(*args, **kwargs)


def _only_tensors(value):
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return len(value) > 0 and all(_only_tensors(v) for v in value)
    return False


def positional(model, args, kwargs):
    """The first call as positional tensors when it can be (keywords that follow the
    signature's order without gaps are moved into place); None otherwise."""
    args = tuple(args)
    if kwargs:
        try:
            signature = inspect.signature(model.forward)
            bound = signature.bind(*args, **kwargs)
        except (TypeError, ValueError):
            return None
        ordered = []
        given = bound.arguments
        names = [n for n, p in signature.parameters.items()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for name in names:
            if name not in given:
                break
            ordered.append(given[name])
        if len(ordered) != len(given):
            return None
        args = tuple(ordered)
    if not args or not all(_only_tensors(a) for a in args):
        return None
    return args


def input_names(model, args, kwargs):
    names = []
    try:
        params = [n for n, p in inspect.signature(model.forward).parameters.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    for i, value in enumerate(args):
        base = params[i] if i < len(params) else f"arg{i}"
        count = len(tensors(value))
        names += [base] if count == 1 else [f"{base}.{j}" for j in range(count)]
    for key, value in (kwargs or {}).items():
        count = len(tensors(value))
        names += [key] if count == 1 else [f"{key}.{j}" for j in range(count)]
    return names


def input_structure(model, args, kwargs, root):
    """The traced forward's arguments as nested lists of indices into `inputs`, when some
    argument is a tuple or list of tensors (an LSTM's (h, c)); None when each input is one
    argument (then the field is left out, as in captures written before it existed)."""
    if root is not None:
        return None  # the wrapper takes the tensors flat
    example = positional(model, args, kwargs)
    if example is None or all(isinstance(a, torch.Tensor) for a in example):
        return None
    counter = iter(range(1 << 30))

    def walk(value):
        if isinstance(value, torch.Tensor):
            return next(counter)
        return [walk(v) for v in value]

    return [walk(a) for a in example]


def trace(session, model, args, kwargs, path):
    """Writes model.pt; returns (file name or None, error or None, wrapper attribute)."""
    example = positional(model, args, kwargs)
    target, root = model, None
    if example is None:
        found = tensors((args, kwargs))
        if not found:
            return None, "the model's first call has no tensor arguments to trace with", None
        target, root = _Call(model, args, kwargs), "model"
        example = tuple(found)
    rng = torch.get_rng_state()
    buffers = {name: b.detach().clone() for name, b in model.named_buffers()}
    session.tracing += 1
    try:
        with torch.no_grad():
            traced = torch.jit.trace(target, example, check_trace=False, strict=False)
        tmp = path + ".tmp"
        traced.save(tmp)
        os.replace(tmp, path)
        return os.path.basename(path), None, root
    except Exception as e:  # noqa: BLE001 - any tracing failure is reported, not fatal
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return None, f"{type(e).__name__}: {first}"[:500], root
    finally:
        session.tracing -= 1
        torch.set_rng_state(rng)
        with torch.no_grad():
            for name, b in model.named_buffers():
                if name in buffers and b.shape == buffers[name].shape:
                    b.copy_(buffers[name])


def module_table(session, model):
    rows = []
    seen_params = set()
    seen_buffers = set()
    for path, module in model.named_modules():
        record = session.records.get(module)
        params = [p for p in module._parameters.values()
                  if p is not None and id(p) not in seen_params]
        seen_params.update(id(p) for p in params)
        buffers = [b for b in module._buffers.values()
                   if b is not None and id(b) not in seen_buffers]
        seen_buffers.update(id(b) for b in buffers)
        rows.append({
            "path": path,
            "type": _type_name(module),
            "leaf": not any(True for _ in module.children()),
            "params": sum(p.numel() for p in params),
            "param_bytes": sum(p.numel() * p.element_size() for p in params),
            "buffers": sum(b.numel() for b in buffers),
            "buffer_bytes": sum(b.numel() * b.element_size() for b in buffers),
            "trainable_params": sum(p.numel() for p in params if p.requires_grad),
            "ipu": record.ipu if record is not None else None,
            "_block": record.block if record is not None else None,
            "calls": record.calls if record is not None else 0,
            "inputs": record.inputs if record is not None else [],
            "outputs": record.outputs if record is not None else [],
            "_order": record.order if record is not None else None,
        })
    # A container is on one IPU only when everything in it that ran is.
    by_path = {r["path"]: r for r in rows}
    for r in sorted(rows, key=lambda r: -(r["path"].count(".") + 1 if r["path"] else 0)):
        if r["leaf"]:
            continue
        prefix = r["path"] + "." if r["path"] else ""
        ipus = {c["ipu"] for p, c in by_path.items()
                if p.startswith(prefix) and p != r["path"] and c["calls"]}
        own = {r["ipu"]} if r["calls"] else set()
        every = (ipus | own) - {None}
        r["ipu"] = every.pop() if len(every) == 1 and None not in (ipus | own) else None
    return rows


def _executor_of(model):
    """The PopTorch executor (trainingModel / inferenceModel) that wraps `model`, or None."""
    executor = sys.modules.get("poptorch._executor")
    if executor is None:
        return None
    for ex in reversed(executor._executors):
        if ex._user_model is model or ex._model is model or \
                any(m is model for m in ex._user_model.modules()):
            return ex
    return None


def _strategy_of(model):
    ex = _executor_of(model)
    return ex._options._execution_strategy if ex is not None else None


def _place(strategy, block):
    """(stage, phase, ipu) of a recorded block under the model's strategy."""
    user_id, ipu_id = block[0], block[1]
    if strategy is None or not hasattr(strategy, "_portolan_place"):
        return None, None, ipu_id if ipu_id is not None else 0
    return strategy._portolan_place(user_id, ipu_id)


def pipeline_of(rows, model=None):
    """The declared split: consecutive groups, in call order, of the outermost modules that
    run on one IPU, with the blocks and PopTorch stage ids they run in, the execution strategy
    that placed them, and notes where PopTorch would not place a block. None when the project
    declares no blocks."""
    blocks = sys.modules.get("poptorch._blocks")
    if blocks is None or not blocks._portolan_declared():
        return None
    by_path = {r["path"]: r for r in rows}
    outer = []
    for r in rows:
        if r["ipu"] is None or r["_order"] is None:
            continue
        parent = r["path"].rsplit(".", 1)[0] if "." in r["path"] else ("" if r["path"] else None)
        if parent is not None and parent in by_path and by_path[parent]["ipu"] is not None:
            continue
        outer.append(r)
    outer.sort(key=lambda r: r["_order"])
    strategy = _strategy_of(model) if model is not None else None
    # The blocks each outermost module runs in: its own, and those of the modules inside it.
    inner_blocks = {}
    for r in sorted(rows, key=lambda r: (r["_order"] is None, r["_order"] or 0)):
        if r["_block"] is None or not r["calls"]:
            continue
        for o in outer:
            prefix = o["path"] + "." if o["path"] else ""
            if r["path"] == o["path"] or r["path"].startswith(prefix):
                seen = inner_blocks.setdefault(o["path"], [])
                if r["_block"] not in seen:
                    seen.append(r["_block"])
                break
    stages = []
    kinds = []
    for r in outer:
        own = inner_blocks.get(r["path"], [])
        if stages and stages[-1]["ipu"] == r["ipu"]:
            stage = stages[-1]
            stage["modules"].append(r["path"])
        else:
            stage = {"ipu": r["ipu"], "modules": [r["path"]], "blocks": [], "stage": None}
            stages.append(stage)
        for b in own:
            if b[0] not in stage["blocks"]:
                stage["blocks"].append(b[0])
            if b[2] not in kinds:
                kinds.append(b[2])
            stage_id, phase_id, _ = _place(strategy, b)
            if stage["stage"] is None:
                stage["stage"] = stage_id
            if phase_id is not None and "phase" not in stage:
                stage["phase"] = phase_id
    out = {"source": " + ".join(kinds) if kinds else "poptorch.BeginBlock", "stages": stages}
    if strategy is not None:
        d = strategy.toDict()
        out["strategy"] = d["type"]
        out["auto_stage"] = d.get("auto_stage")
        out["explicit_stages"] = bool(getattr(strategy, "_block_map", None))
        if "phases" in d:
            out["phases"] = d["phases"]
        notes = list(getattr(strategy, "_portolan_notes", []))
        if notes:
            out["notes"] = notes
    ipus = [s["ipu"] for s in stages if s["ipu"] is not None]
    out["ipus"] = max(ipus) + 1 if ipus else None
    return out


def poptorch_options(model):
    ex = _executor_of(model)
    if ex is None:
        return None
    d = ex._options.toDict()
    dtype = next((p.dtype for p in model.parameters()), torch.float32)
    blocks = sys.modules.get("poptorch._blocks")
    calls = blocks._portolan_available_memory_calls() if blocks is not None and \
        hasattr(blocks, "_portolan_available_memory_calls") else []
    return {
        "device_iterations": d.get("device_iterations"),
        "replication_factor": d.get("replication_factor"),
        "gradient_accumulation": d.get("gradient_accumulation"),
        "precision": str(dtype).replace("torch.", ""),
        "half": dtype in (torch.float16, torch.bfloat16),
        "partials_type": d.get("precision", {}).get("partials_type"),
        "available_memory_proportion": d.get("available_memory_proportion") or {},
        "set_available_memory": calls,
        "execution_strategy": d.get("execution_strategy"),
        "output_mode": d.get("output_mode"),
        "training": ex._training,
        "all": d,
    }


def optimizer_summary(optimizer):
    if optimizer is None:
        return None
    groups = []
    for g in optimizer.param_groups:
        entry = {"lr": g.get("lr"), "params": sum(p.numel() for p in g["params"])}
        for key in ("weight_decay", "momentum", "betas", "eps", "alpha"):
            if key in g:
                entry[key] = list(g[key]) if isinstance(g[key], tuple) else g[key]
        groups.append(entry)
    out = {"class": _type_name(optimizer), "param_groups": groups}
    extra = getattr(optimizer, "poptorch_settings", None)
    if extra:
        out["poptorch"] = extra
    return out


BATCH_ARGUMENTS = ("batch_size", "batchsize", "train_batch_size", "per_device_train_batch_size",
                   "micro_batch_size", "global_batch_size")


def _batch_candidates(session):
    """[(size, source)] for the micro-batch the dry run really used, most reliable first: the
    loaders the driver clamped (what they used), then the project's own batch-size arguments
    (argparse), then --batch."""
    out = []
    for note in hooks.requested_batches:
        out.append((note["used"], note["source"], note["requested"]))
    arguments = vars(session.parsed_arguments) if session.parsed_arguments is not None else {}
    for key, value in arguments.items():
        if key.lower() in BATCH_ARGUMENTS and isinstance(value, int) and \
                not isinstance(value, bool) and value > 0:
            out.append((value, f"argparse --{key}", value))
    out.append((session.batch, "--batch", None))
    return out


def batch_info(session, inputs):
    """The batch of the capture: `dry_run` is the micro-batch the model really received and
    `dim` the dimension of the first input that carries it (1 for a sequence-first model);
    both come from a loader or argument whose size is one of the first input's dimensions,
    never from the input's first dimension alone. Unknown stays null."""
    notes = hooks.requested_batches
    chosen = next((n for n in notes if n["requested"] > n["used"]), notes[0] if notes else None)
    shape = next((t.shape for t in tensors(inputs) if t.dim() > 0), None)
    dry_run, dim, used_source, full_from = None, None, None, None
    if shape is not None:
        for size, source, requested in _batch_candidates(session):
            for d in range(min(2, len(shape))):
                if shape[d] == size:
                    dry_run, dim, used_source, full_from = size, d, source, requested
                    break
            if dry_run is not None:
                break
    full = chosen["requested"] if chosen else None
    full_source = chosen["source"] if chosen else None
    if full is None and full_from is not None and used_source.startswith("argparse"):
        full, full_source = full_from, used_source
    return {"dry_run": dry_run, "full": full, "source": full_source, "dim": dim,
            "dry_run_source": used_source}


def _write_json(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False, allow_nan=False,
                  default=lambda o: str(o))
        f.write("\n")
    os.replace(tmp, path)


class Capture:
    def __init__(self, folder, context):
        self.folder = folder
        self.context = context  # project, entry, flavour, runconfig, extra options
        self.data = None
        self.hold = False  # True: the capture event waits for release() (a trial attempt)
        self.pending = None
        self.emitted = False
        self.waiting = None  # why the first step found no model, while a direct call is awaited

    def _event(self, session, fields):
        if self.hold:
            self.pending = (session, fields)
        elif not self.emitted:
            self.emitted = True
            session.events.emit("capture", **fields)

    def release(self):
        """The attempt whose capture is on disk succeeded: send its one capture event."""
        self.hold = False
        if self.pending is not None:
            session, fields = self.pending
            self.pending = None
            self._event(session, fields)

    def clear(self):
        for name in ("capture.json", "model.pt"):
            try:
                os.remove(os.path.join(self.folder, name))
            except FileNotFoundError:
                pass

    def write(self, session, optimizer):
        os.makedirs(self.folder, exist_ok=True)
        model, args, kwargs, reason = find_model(session, optimizer)
        if model is None and optimizer is not None and self.waiting is None:
            # No module call owns the optimizer's parameters: the project calls the module's
            # forward() directly (layer-local training). Find the module by its parameters and
            # capture it at its next direct call.
            owner = owner_of_parameters(optimizer)
            if owner is not None:
                self.waiting = reason
                session.watch_direct_forward(owner, lambda: self.write(session, optimizer))
                session.events.emit(
                    "info", message=f"{_type_name(owner)} trains through direct calls of its "
                    "forward() (not module(x)): the capture is taken at its next call")
                return None
        if model is None:
            self.data = None
            if self.waiting is None:
                session.events.emit("warning", message=f"no capture: {reason}")
            return None
        if self.waiting is not None:
            reason = "the module whose parameters the optimizer owns, called through its " \
                "forward() directly"
            self.waiting = None
        session.model = model
        trace_file, error, root = trace(session, model, args, kwargs,
                                        os.path.join(self.folder, "model.pt"))
        if trace_file is None:
            try:
                os.remove(os.path.join(self.folder, "model.pt"))
            except FileNotFoundError:
                pass
        rows = module_table(session, model)
        names = input_names(model, args, kwargs)
        inputs = describe((args, kwargs))
        for i, item in enumerate(inputs):
            item["name"] = names[i] if i < len(names) else f"input{i}"
        structure = input_structure(model, args, kwargs, root)
        pipeline = pipeline_of(rows, model)
        for r in rows:
            r.pop("_order", None)
            block = r.pop("_block", None)
            r["block"] = block[0] if block is not None else None
        options = {"poptorch": poptorch_options(model),
                   "runconfig": self.context.get("runconfig")}
        options.update(self.context.get("options", {}))
        self.data = {
            "format": FORMAT, "version": VERSION,
            "project": self.context["project"], "entry": self.context["entry"],
            "flavour": self.context["flavour"],
            "torch_version": torch.__version__.split("+")[0],
            "model": {"class": _type_name(model), "trace": trace_file, "trace_error": error,
                      "training": model.training, "trace_root": root, "chosen_as": reason},
            "models": all_models(session, model, optimizer),
            "inputs": [{"name": i["name"], "shape": i["shape"], "dtype": i["dtype"]}
                       for i in inputs],
            **({"input_structure": structure} if structure is not None else {}),
            "batch": batch_info(session, (args, kwargs)),
            "modules": rows,
            "pipeline": pipeline,
            "options": options,
            "optimizer": optimizer_summary(optimizer),
            "steps": session.steps_done or 1,
            "synthetic_data": bool(self.context.get("synthetic")),
        }
        _write_json(os.path.join(self.folder, "capture.json"), self.data)
        session.batch_dim = self.data["batch"]["dim"]
        batch = self.data["batch"]
        kept = [n for n in hooks.requested_batches
                if n["used"] == n["requested"] == batch["dry_run"] and
                hooks.dry_batch(n["requested"]) == n["requested"] != session.batch]
        if batch["dry_run"] is not None and batch["dry_run"] != session.batch and kept:
            session.events.emit(
                "info", message=f"the model received batches of {batch['dry_run']} samples, as "
                f"{kept[0]['source']} asks: a batch of at most {hooks.KEPT_BATCH} is kept whole "
                f"(--batch {session.batch} makes larger ones small), since code may read a "
                "batch by the size it declares")
        elif batch["dry_run"] is not None and batch["dry_run"] != session.batch:
            session.events.emit(
                "info", message=f"the model received batches of {batch['dry_run']} samples "
                f"({batch['dry_run_source']}), not --batch {session.batch}: --batch sizes the "
                "project's data loaders, and this batch does not come from one")
        total = sum(r["params"] for r in rows)
        self._event(session, dict(path=self.folder, model=self.data["model"]["class"],
                                  parameters=total, traced=trace_file is not None,
                                  trace_error=error, modules=len(rows),
                                  pipeline_stages=len(pipeline["stages"]) if pipeline else 0,
                                  batch=self.data["batch"],
                                  models=[m["class"] for m in self.data["models"]]))
        return self.data

    def finish(self, steps, session=None):
        """Records the steps actually done (the capture was written after the first)."""
        if self.data is None:
            if self.waiting is not None and session is not None:
                session.events.emit("warning", message=f"no capture: {self.waiting}, and the "
                                    "module owning them was not called again")
            return
        self.data["steps"] = steps
        _write_json(os.path.join(self.folder, "capture.json"), self.data)
