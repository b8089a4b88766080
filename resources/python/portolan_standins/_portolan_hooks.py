"""The seam between Portolan's SDK stand-ins and its dry-run driver.

This module is not part of any vendor SDK. The stand-ins work without the driver (unit tests
import them directly); when the driver runs, it fills these settings and listens here.
"""
import re

# The micro-batch the dry run uses instead of the project's (None: keep the project's).
dry_run_batch = None

# The optimizer steps the dry run makes (None: as many as the project wants).
dry_run_steps = None

# Set by a stand-in runner that stops after dry_run_steps itself (Model Zoo's run()): the
# driver then does not interrupt the project at the last step.
runner_controls_steps = False

# The params of a Model Zoo run, once the stand-in runner has read them (for the capture).
modelzoo_params = None

# The Determined experiment config whose entrypoint the dry run runs (a script entrypoint):
# what the cluster would give the Trainer API's init() (hyperparameters, data, searcher).
determined_experiment = None

# Batch sizes the project asked for, in the order its loaders were built:
# [{"requested": 64, "used": 2, "source": "poptorch.DataLoader(batch_size=...)"}]
requested_batches = []

# Plain torch DataLoaders whose batch the dry run made small: [[weakref, requested, used]],
# so that an SDK stand-in that learns later how its batches must be combined can refit them.
clamped_loaders = []

# While > 0, torch DataLoaders built are not clamped again (a stand-in already did it).
_clamp_suspended = 0

# While > 0, the driver does not record module calls (a stand-in's warm-up, a trace).
recording_suspended = 0

# Set by the driver: fn(loss tensor) for a stand-in to report the loss of a micro-batch before
# its own scaling (poptorch's gradient accumulation divides it).
loss_reporter = None

# Callbacks the driver registers: fn(kind, fields) for "warning" and "info" messages.
_listeners = []


# A batch the project's own PyTorch code declares at most this large is kept whole in the dry
# run: it costs little on a CPU, and code that reads a batch by its declared size (a preview that
# prints the labels of `range(batch_size)` or `range(4)` first images) would index past a shrunk
# one and stop the original's dry run before its first step. Larger batches are what the dry-run
# batch is for (an ImageNet batch of 256). The rule is the same for a port's loaders (Determined,
# Cerebras), whose model may be sized by the batch the original kept; only PopTorch's
# micro-batch, which device iterations and gradient accumulation multiply, is always shrunk
# (keep_small=False).
KEPT_BATCH = 8

# The names of a program's own batch-size settings (a flag, a hyperparameter, a params key):
# batch_size, test_batch_size, eval_batchsize, micro_batch_size, bs, batch.
BATCH_NAME = re.compile(r"(^|_)(batch_?size|bs)$|^batch$", re.IGNORECASE)


def dry_batch(requested, keep_small=True):
    """The batch size the dry run uses for `requested` (an int), without recording it."""
    if requested is None or dry_run_batch is None:
        return requested
    if keep_small and int(requested) <= KEPT_BATCH:
        return int(requested)
    return min(int(requested), int(dry_run_batch))


def clamp_batch(requested, source, keep_small=True):
    """The batch size a loader should use in the dry run, and a note of what was asked."""
    if requested is None or dry_run_batch is None:
        return requested
    used = dry_batch(requested, keep_small)
    requested_batches.append({"requested": int(requested), "used": used, "source": source})
    return used


class suspend_clamp:
    """Context manager: torch DataLoaders built inside are already clamped by a stand-in."""

    def __enter__(self):
        global _clamp_suspended
        _clamp_suspended += 1
        return self

    def __exit__(self, *exc):
        global _clamp_suspended
        _clamp_suspended -= 1
        return False


def clamp_suspended():
    return _clamp_suspended > 0


def notify(event, message, **fields):
    """Tells the driver (if any) something the user must see, such as a fake being used.
    `event` is the event ("warning", "info", "eval"); a warning's own `kind` is a field."""
    for listener in list(_listeners):
        listener(event, dict(fields, message=message))


def add_listener(fn):
    _listeners.append(fn)


def fit_loaders_to(factor, source):
    """Refits clamped plain DataLoaders to a model that takes `factor` micro-batches per call
    (PopTorch: device iterations x replicas x gradient accumulation). A loader whose requested
    batch is a multiple of the factor (so built for this model) gets a small micro-batch times
    the factor, keeping the model's options; it is announced as a `batch-shrunk` warning."""
    if dry_run_batch is None or not isinstance(factor, int) or factor <= 1:
        return []
    changed = []
    for entry in clamped_loaders:
        ref, requested, used = entry
        loader = ref()
        if loader is None or requested % factor or used % factor == 0:
            continue
        sampler = getattr(loader, "batch_sampler", None)
        if sampler is None or not hasattr(sampler, "batch_size"):
            continue
        micro = max(1, min(int(dry_run_batch), requested // factor))
        new = micro * factor
        sampler.batch_size = new
        # DataLoader refuses to set batch_size after __init__; its sampler is what iterates.
        loader.__dict__["batch_size"] = new
        entry[2] = new
        for record in requested_batches:
            if record.get("requested") == requested and record.get("used") == used:
                record["used"] = new
                record["micro"] = micro
                break
        changed.append({"requested": requested, "used": new, "micro": micro})
    if changed:
        notify("warning", "the dry run's small batch is refitted to the model's options: "
               f"{source} takes {factor} micro-batches per call, so the DataLoader batch "
               + ", ".join(f"{c['requested']} is shrunk to {c['used']} ({c['micro']} x "
                           f"{factor})" for c in changed) +
               " instead of the dry run's batch alone; the options are kept",
               kind="batch-shrunk", factor=factor, source=source, loaders=changed)
    return changed
