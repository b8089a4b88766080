"""Record and replay for the port's equivalence check (issue 24).

--record DIR (the original's dry run): keeps the initial weights of the models the optimizers
own, one group per optimizer in the order they are built (or of the first top-level module
called, when the code has no optimizer), the batch each of the first K steps trains on, the
per-step losses (and each backward() loss of a step that has several) and the weights after K
steps, in DIR/record.pt.

--replay DIR (the port's dry run): loads each recorded group of initial weights into the port's
model when the port builds the matching optimizer (the first into the first, ...), replaces the
batch of each of the first K steps with the recorded one, and after K steps emits a `replay`
event with the largest weight difference to the original.

In both, the torch random state is set to the same seed when a step's batch is handed out, so
dropout and sampling inside the step draw the same numbers in both runs.
"""
import copy
import os
import random
import sys

import torch

SEED = 24024
# The files read that a record lists (watch_reads): more is a data set, which the port notes.
MAX_FILES_READ = 2000


def _seed_all(seed):
    """torch's, Python's and NumPy's random state (NumPy's when the project imported it): a step
    draws its noise with any of them (a GAN's latent vectors from np.random.normal)."""
    torch.manual_seed(seed)
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        np.random.seed(seed % 2**32)


def _clone(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_clone(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    if isinstance(value, dict):
        return {k: _clone(v) for k, v in value.items()}
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an uncopyable batch part is kept as it is
        return value


def _same_structure(a, b):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_structure(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_structure(a[k], b[k]) for k in a)
    return True


def _made_up(dataset, session):
    """Whether the dry run made this data set up: a torchvision data set filled with random
    images (synthetic.py), or a folder data set read from the synthetic-data mirror
    (datafiles.py, folders.py). A data set of the project's own class reads whatever files it
    opens: made up when anything was made up in this run."""
    if getattr(dataset, "_portolan_synthetic", False):
        return True
    root = getattr(dataset, "root", None)
    if isinstance(root, (str, os.PathLike)):
        mirror = os.sep + os.path.join(".portolan", "dryrun", "synthetic-data") + os.sep
        return mirror in os.path.abspath(os.fspath(root)) + os.sep
    return bool(getattr(session, "synthetic", False))


class _Batches:
    def __init__(self, owner, inner, loader=None):
        self._owner = owner
        self._inner = inner
        self._loader = loader

    def __iter__(self):
        return self

    def __next__(self):
        return self._owner.on_batch(next(self._inner), self._loader)

    def __len__(self):
        return len(self._inner)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class Replay:
    def __init__(self, session, events, steps, record_dir=None, replay_dir=None):
        self.session = session
        self.events = events
        self.steps = steps
        self.record_dir = record_dir
        self.replay_dir = replay_dir
        self.params = None
        self.initial = None
        self.groups = []  # the number of tensors each adopted optimizer brought
        self.backward_losses = []
        self.batches = {}
        self.losses = []
        self.done = False
        self.loaded = None
        self.weights_loaded = False
        self.replayed = 0
        # How the parameters were found: "optimizer", or "module" (no optimizer: the weights
        # are updated by hand, which the session may count as a step before the update runs).
        self.adopted_by = None
        self.start_of_last = None
        self.warm_batches = 0  # batches of the trainings before the ported one
        # The samples of the data set whose loader hands out the first step's batch (len of its
        # dataset), and whether the dry run made that data up: the port's epoch in records
        # (Determined's records_per_epoch, a Cerebras schedule counted in steps) comes from it.
        self.train_samples = None
        self.train_samples_synthetic = False
        self.files_read = set()  # watch_reads
        if replay_dir:
            self.loaded = torch.load(os.path.join(replay_dir, "record.pt"))

    # ------------------------------------------------------------------ install
    def watch_reads(self, root):
        """The files of the project's folder the run opens for reading, by a path relative to
        it (its data, however the code names the path): the port needs them in its own folder.
        Sources, caches and Portolan's own stand-ins are not data."""
        prefix = os.path.realpath(root) + os.sep
        seen = self.files_read
        writing = os.O_WRONLY | os.O_RDWR | os.O_CREAT

        def hook(event, args):
            if event != "open" or len(seen) >= MAX_FILES_READ:
                return
            try:
                path = args[0]
                if isinstance(path, int):
                    return
                mode = args[1] if len(args) > 1 else None
                flags = args[2] if len(args) > 2 else 0
                if isinstance(mode, str) and any(c in mode for c in "wax+"):
                    return
                if mode is None and isinstance(flags, int) and flags & writing:
                    return
                name = os.fsdecode(path)
                real = os.path.realpath(name if os.path.isabs(name)
                                        else os.path.join(os.getcwd(), name))
                if not real.startswith(prefix):
                    return
                rel = real[len(prefix):]
                if rel.endswith((".py", ".pyc")) or rel.startswith(".portolan") or \
                        "__pycache__" in rel or not os.path.isfile(real):
                    return
                seen.add(rel.replace(os.sep, "/"))
            except Exception:  # an audit hook never stops the run
                pass

        sys.addaudithook(hook)

    def install(self):
        # The same random state when the project's own code starts in both runs: module-level
        # draws (a target function drawn with torch.randn at import) are then the same.
        torch.manual_seed(SEED - 1)
        self._watch_lines()
        self._patch_optimizer()
        self._patch_module_call()
        self._patch_loader()
        self._patch_steps()

    def _adopt(self, params, how="optimizer"):
        if self.adopted_by == "module" and self._readopt(params, how):
            pass  # the module adopted first was not the one that trains: start again
        elif self.adopted_by == "module" or (how == "module" and self.params is not None):
            return
        seen = {id(p) for p in (self.params or [])}
        new = [p for p in params if isinstance(p, torch.Tensor) and id(p) not in seen]
        if self.params is not None and not new:
            return
        recorded = None
        if self.loaded is not None:
            initial = self.loaded["initial"]
            sizes = self.loaded.get("groups") or [len(initial)]
            group = len(self.groups)
            if group >= len(sizes):
                return  # an optimizer the original does not have: not compared
            start = sum(sizes[:group])
            recorded = initial[start:start + sizes[group]]
        self.adopted_by = how
        self.params = (self.params or []) + new
        self.groups.append(len(new))
        if self.record_dir:
            self.initial = (self.initial or []) + [p.detach().clone() for p in new]
        if recorded is not None:
            shapes = [tuple(p.shape) for p in new]
            theirs = [tuple(t.shape) for t in recorded]
            if shapes != theirs:
                self.weights_loaded = False
                self.events.emit("warning", kind="replay-weights",
                                 message="the port's model has other parameters than the "
                                 f"original's ({len(shapes)} against {len(theirs)} tensors, "
                                 "or other shapes): its initial weights are its own")
                return
            with torch.no_grad():
                for p, w in zip(new, recorded):
                    p.copy_(w)
            self.weights_loaded = len(self.groups) == 1 or self.weights_loaded

    def _readopt(self, params, how):
        # A module called before the optimizer is built (a script that first shows what an
        # embedding returns, a warm-up) is not necessarily the one that trains: the optimizer's
        # parameters are, when it comes before the first step. Both runs apply the same rule.
        if how != "optimizer" or self.adopted_by != "module" or self.session.steps_done:
            return False
        mine = {id(p) for p in self.params}
        if {id(p) for p in params if isinstance(p, torch.Tensor)} == mine:
            return False
        self.params = None
        self.groups = []
        self.initial = None
        self.weights_loaded = False
        return True

    def _watch_lines(self):
        """One trace for the lines the verification names, each "file:line" (relative to the
        working directory). PORTOLAN_REPLAY_SEED_AT: where a step of the original begins when
        its step draws its own batch (a get_batch() helper, no DataLoader); it is seeded there
        with the seed the port's replay sets when its loader hands out the same step, so both
        draw the same batch. PORTOLAN_REPLAY_TRAIN_FROM: where the ported training's part of the
        run begins when the original trains other models before it (a tutorial that trains a
        model, then a better one): the steps before are not counted."""
        watched = {}
        for variable, then in (("PORTOLAN_REPLAY_SEED_AT", self._on_step_line),
                               ("PORTOLAN_REPLAY_TRAIN_FROM", self._on_training_start)):
            path, _, line = os.environ.get(variable, "").rpartition(":")
            if path and line.isdigit():
                watched.setdefault(os.path.realpath(path), {})[int(line)] = then
        if not watched:
            return
        if "PORTOLAN_REPLAY_TRAIN_FROM" in os.environ:
            self.session.warming = True
        owner = self

        def local(lines):
            def on_line(frame, event, arg):
                if event == "line" and not owner.done:
                    then = lines.get(frame.f_lineno)
                    if then is not None:
                        then()
                return on_line
            return on_line

        known = {}

        def trace(frame, event, arg):
            if owner.done:
                return None
            name = frame.f_code.co_filename
            if name not in known:
                lines = watched.get(os.path.realpath(name))
                known[name] = local(lines) if lines else None
            return known[name]

        sys.settrace(trace)

    def _on_step_line(self):
        if getattr(self.session, "warming", False):
            return
        # The loop body begins again: the optimizer steps of the last pass are its step, as
        # when a loader hands out the next batch.
        self._end_last_batch()
        k = self.session.steps_done
        if k < self.steps:
            self._step_start(k)
            _seed_all(SEED + k)

    def _on_training_start(self):
        # The trainings before are over: what they adopted and counted is not the port's.
        session = self.session
        if not getattr(session, "warming", False):
            return
        session.warming = False
        session.optimizers = []
        session.pending = []
        session.group_size = None
        session.step_losses = []
        session.explicit_losses = []
        self.params = None
        self.groups = []
        self.initial = None
        self.adopted_by = None
        self.weights_loaded = False

    def _patch_optimizer(self):
        owner = self
        original = torch.optim.Optimizer.__init__

        def init(opt, params, defaults):
            original(opt, params, defaults)
            owner._adopt([p for g in opt.param_groups for p in g["params"]])

        torch.optim.Optimizer.__init__ = init

    def _patch_module_call(self):
        owner = self
        original = torch.nn.Module.__call__

        def call(module, *args, **kwargs):
            # A module whose parameters are all frozen (a feature extractor for a perceptual
            # loss, called before the optimizer exists) is not the one that trains.
            if owner.params is None and any(p.requires_grad for p in module.parameters()):
                owner._adopt(list(module.parameters()), "module")
            return original(module, *args, **kwargs)

        torch.nn.Module.__call__ = call

    def _patch_loader(self):
        owner = self
        original = torch.utils.data.DataLoader.__iter__

        def iterate(loader):
            return _Batches(owner, original(loader), loader)

        torch.utils.data.DataLoader.__iter__ = iterate

    def on_batch(self, batch, loader=None):
        # A batch drawn without gradients is a validation's, not a training step's: it is
        # neither recorded nor replaced (a validation between epochs reads its own data).
        if not torch.is_grad_enabled():
            return batch
        # A training the port does not port, run before the one it ports: a few of its batches
        # show that it runs; its result is discarded by the original itself.
        if getattr(self.session, "warming", False):
            self.warm_batches += 1
            if self.warm_batches > self.steps:
                raise StopIteration
            return batch
        self._end_last_batch()
        k = self.session.steps_done
        if k >= self.steps or self.done:
            return batch
        if k == 0 and self.train_samples is None and loader is not None:
            try:
                self.train_samples = len(loader.dataset)
                self.train_samples_synthetic = _made_up(loader.dataset, self.session)
            except Exception:  # noqa: BLE001 - an iterable data set has no length: unknown
                self.train_samples = None
        self._step_start(k)
        if self.record_dir:
            self.batches[k] = _clone(batch)
        if self.loaded is not None:
            recorded = self.loaded["batches"]
            if k < len(recorded) and recorded[k] is not None:
                if _same_structure(batch, recorded[k]):
                    batch = _clone(recorded[k])
                    self.replayed = max(self.replayed, k + 1)
                else:
                    self.events.emit("warning", kind="replay-batch",
                                     message=f"the port's batch {k + 1} has another structure "
                                     "than the original's: it is not replaced")
        _seed_all(SEED + k)
        return batch

    def _end_last_batch(self):
        # Several optimizers per batch (models trained in turn): until the session knows how
        # many steps a batch makes, the first batch's step ends only when the next one starts.
        # Counted later, the next step would be seeded as the first and draw its dropout masks
        # again, while the port's, counted per batch, draws the second's.
        boundary = getattr(self.session, "batch_boundary", None)
        if boundary is not None and not self.done:
            boundary()

    def _step_start(self, k):
        # The weights when the last compared step starts (after K - 1 updates): the point both
        # runs agree on when the original updates its weights by hand.
        if k == self.steps - 1 and self.params is not None:
            self.start_of_last = [p.detach().clone() for p in self.params]

    def _patch_steps(self):
        owner = self
        session = self.session
        original = session.complete_step

        def complete_step(opt, loss=None, metrics=None):
            try:
                return original(opt, loss, metrics)
            finally:
                if len(owner.losses) < session.steps_done:
                    owner.losses.append(session.last_loss)
                    owner.backward_losses.append(
                        list(getattr(session, "last_backward_losses", [])))
                if session.steps_done >= owner.steps and not owner.done:
                    owner.done = True
                    owner.finish()

        session.complete_step = complete_step

    # ------------------------------------------------------------------ finish
    def finish(self):
        final = [p.detach().clone() for p in (self.params or [])]
        at_start = self.adopted_by == "module" and self.start_of_last is not None
        if self.loaded is not None and self.loaded.get("final_at") == "last-step-start":
            final = self.start_of_last or []
        if self.record_dir:
            if at_start:
                final = self.start_of_last
            os.makedirs(self.record_dir, exist_ok=True)
            batches = [self.batches.get(k) for k in range(self.steps)]
            torch.save({"initial": self.initial or [], "batches": batches, "final": final,
                        "final_at": "last-step-start" if at_start else "end",
                        "losses": self.losses, "groups": self.groups,
                        "backward_losses": self.backward_losses},
                       os.path.join(self.record_dir, "record.pt"))
            self.events.emit("record", steps=len(self.losses), tensors=len(final),
                             weight_change=self._change(self.initial or [], final or []),
                             batches=sum(1 for b in batches if b is not None),
                             train_samples=self.train_samples,
                             train_samples_synthetic=self.train_samples_synthetic,
                             files_read=sorted(self.files_read))
        if self.loaded is not None:
            # The original's groups the port has (an optimizer only the original builds is
            # not compared).
            theirs = (self.loaded.get("final") or [])[:len(final)]
            diff = None
            if final and len(theirs) == len(final) and \
                    all(a.shape == b.shape for a, b in zip(final, theirs)):
                diff = max((float((a.double() - b.double()).abs().max()) if a.numel() else 0.0)
                           for a, b in zip(final, theirs))
            self.events.emit("replay", steps=len(self.losses),
                             weights_loaded=self.weights_loaded,
                             batches_replayed=self.replayed,
                             max_abs_weight_diff=diff,
                             original_losses=self.loaded.get("losses"),
                             port_losses=self.losses,
                             original_backward_losses=self.loaded.get("backward_losses"),
                             port_backward_losses=self.backward_losses)


    @staticmethod
    def _change(initial, final):
        # How far the recorded steps moved the trained weights (the largest change of one):
        # a training that moved none of them cannot be told from a port that does not train.
        if not final or len(initial) != len(final) or \
                any(a.shape != b.shape for a, b in zip(initial, final)):
            return None
        return max((float((b.double() - a.double()).abs().max()) if a.numel() else 0.0)
                   for a, b in zip(initial, final))


def install(session, events, steps, record_dir=None, replay_dir=None):
    replay = Replay(session, events, steps, record_dir, replay_dir)
    replay.install()
    return replay
