"""A Determined PyTorchTrial, driven like `det experiment create --local --test`: the trial
is built with a context whose hyperparameters come from the experiment config, then N
train_batch calls on the training loader and one evaluate_batch on the validation loader.

When the project's loader cannot be built (its data is not present and cannot be downloaded),
synthetic batches that the model's first layer accepts are used instead, with a warning. A
synthetic batch that the trial's own code rejects on the first step is undone (weights and
optimizer state restored) and the next candidate is tried.
"""
import copy
import importlib
import inspect

import torch

from . import batchargs, hpsearch, synthetic
from .driver import Failure


def _torch_loader(loader):
    get = getattr(loader, "get_data_loader", None)
    return get() if callable(get) else loader


def _first_line(e, limit=160):
    text = str(e).strip()
    line = text.splitlines()[0] if text else type(e).__name__
    return line if len(line) <= limit else line[:limit] + "..."


def _scalar(value):
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _batches(loader):
    while True:
        produced = False
        for batch in loader:
            produced = True
            yield batch
        if not produced:
            raise Failure("dryrun.no-data", "the training data loader produced no batch")


def _not_about_data(dry, e):
    """True for an error that the trial's loader code would raise on the cluster too, whatever
    its data: a name it never defined, or a call to the SDK that the SDK's signature refuses.
    Synthetic data would hide it, so the run ends on it instead."""
    if isinstance(e, NameError):
        return True
    return isinstance(e, TypeError) and dry.standin_signature(_first_line(e, 400)) is not None


def _snapshot(context):
    return ([copy.deepcopy(m.state_dict()) for m in context.models],
            [copy.deepcopy(o.state_dict()) for o in context.optimizers])


def _restore(context, snapshot):
    models, optimizers = snapshot
    for m, state in zip(context.models, models):
        m.load_state_dict(state)
    for o, state in zip(context.optimizers, optimizers):
        o.load_state_dict(state)


def run(dry, ctx):
    """The trial, with hyperparameters drawn again (hpsearch.py) while it raises
    det.InvalidHP before its first step, as Determined's searcher would."""
    from determined.pytorch import hparams_from_config

    config = ctx["experiment"]
    hparams = hparams_from_config(config)
    rng = hpsearch.rng_for(config)
    for attempt in range(1, hpsearch.MAX_DRAWS + 2):
        try:
            return _run_once(dry, ctx, hparams)
        except Exception as e:  # noqa: BLE001 - only InvalidHP is retried
            if not hpsearch.is_invalid_hp(e) or dry.session.steps_done > 0:
                raise
            if attempt > hpsearch.MAX_DRAWS:
                raise Failure("dryrun.invalid-hp",
                              f"the trial rejected {attempt} draws of its hyperparameters "
                              f"(det.InvalidHP: {_first_line(e)}); give values that it accepts "
                              "in the experiment config (--params)") from None
            rejected = hparams
            hparams = hpsearch.draw(config, rng)
            searched = {n.split(".")[0] for n in hpsearch.searched(config)}
            dry.session.reset_for_retry()
            dry.events.emit(
                "warning", kind="invalid-hp-redraw",
                message=f"the trial rejected its hyperparameters (det.InvalidHP: "
                f"{_first_line(e)}); drawn again from the experiment config's space, as "
                f"Determined's searcher would (draw {attempt} of at most "
                f"{hpsearch.MAX_DRAWS}): " +
                ", ".join(f"{k}={hparams[k]}" for k in hparams if k in searched or
                          hparams[k] != rejected.get(k)),
                rejected={k: rejected.get(k) for k in searched if k in rejected},
                hyperparameters=hparams, draw=attempt, explanation=_first_line(e))


def _run_once(dry, ctx, hparams):
    from determined.pytorch import LRScheduler, PyTorchTrial, PyTorchTrialContext

    session = dry.session
    events = dry.events
    config = ctx["experiment"]
    try:
        module = importlib.import_module(ctx["module"])
    except ModuleNotFoundError as e:
        if e.name == ctx["module"]:
            raise Failure("dryrun.entrypoint", f"the entrypoint's module {ctx['module']} is not "
                          "in the project") from None
        raise
    cls = getattr(module, ctx["trial_class"], None)
    if cls is None:
        raise Failure("dryrun.entrypoint", f"{ctx['module']} has no class {ctx['trial_class']}")
    if not (isinstance(cls, type) and issubclass(cls, PyTorchTrial)):
        raise Failure("dryrun.entrypoint",
                      f"{ctx['module']}:{ctx['trial_class']} is not a PyTorchTrial subclass")
    hparams = batchargs.shrink_hparams(session, hparams)
    ctx["hparams"] = hparams
    events.emit("info", message="hyperparameters for this test trial: " +
                ", ".join(f"{k}={v}" for k, v in hparams.items()))
    context = PyTorchTrialContext(config, hparams)
    trial = cls(context)

    data_error = None
    try:
        loader = _torch_loader(trial.build_training_data_loader())
    except Exception as e:  # noqa: BLE001 - the data may be absent; see below
        if not context.models or _not_about_data(dry, e):
            raise
        data_error = e
        loader = None

    attempts = [(None, loader)]
    if loader is None:
        found = synthetic.candidates(context.models, dry.o.batch)
        if not found:
            raise data_error
        attempts = [(what, synthetic.SyntheticLoader(example)) for what, example in found]

    steps = dry.o.steps
    example_batch = None
    for index, (what, source) in enumerate(attempts):
        snapshot = _snapshot(context) if what is not None else None
        # A synthetic attempt may be undone: its capture event waits until it has stepped.
        dry.capture.hold = what is not None
        if what is not None:
            session.synthetic = True
            events.emit("warning", kind="synthetic-data",
                        message=f"train data is synthetic: build_training_data_loader() failed "
                        f"({type(data_error).__name__}: {_first_line(data_error)}); using "
                        f"{what}", candidate=index + 1, candidates=len(attempts))
        batches = _batches(source)
        done = 0
        try:
            epoch_len = len(source) if what is None and len(source) > 0 else None
        except TypeError:  # an iterable data set: no length, no epoch end known
            epoch_len = None
        try:
            for batch_idx in range(steps):
                batch = context.to_device(next(batches))
                if example_batch is None:
                    example_batch = batch
                context._current_batch_idx = batch_idx
                for model in context.models:
                    model.train()
                # The epoch the harness is in (a pass over the training loader): a trial that
                # acts when a new epoch starts (a reset, a scheduler stepped with a metric) does
                # so in the dry run as under the harness.
                epoch_idx = batch_idx // epoch_len if epoch_len else 0
                metrics = trial.train_batch(batch, epoch_idx, batch_idx)
                metrics = metrics if isinstance(metrics, dict) else {"loss": metrics}
                loss = _scalar(metrics.get("loss"))
                others = {k: _scalar(v) for k, v in metrics.items()
                          if k != "loss" and _scalar(v) is not None}
                # An epoch is a pass over the training loader (as the harness's): the schedulers
                # stepped once per epoch step at its end.
                epoch_end = epoch_len is not None and (batch_idx + 1) % epoch_len == 0
                for scheduler in context.lr_schedulers:
                    if scheduler._step_mode == LRScheduler.StepMode.STEP_EVERY_BATCH or (
                            epoch_end and
                            scheduler._step_mode == LRScheduler.StepMode.STEP_EVERY_EPOCH):
                        scheduler._scheduler.step()
                opt = context.optimizers[0] if context.optimizers else None
                session.complete_step(opt, loss=loss, metrics=others)
                # The harness validates every min_validation_period epochs, between one epoch's
                # last batch and the next one's first: what the trial does there (a scheduler
                # stepped with the validation's metric) is part of the compared training.
                if epoch_end and batch_idx + 1 < steps and _validates_after(
                        config, (batch_idx + 1) // epoch_len):
                    _validate_whole(trial, context)
                done += 1
                # A step done keeps this attempt: its capture is the run's.
                dry.capture.release()
            break
        except Failure:
            raise
        except Exception as e:  # noqa: BLE001
            if what is None or done > 0 or index == len(attempts) - 1:
                raise
            events.emit("warning", kind="synthetic-data",
                        message=f"the synthetic batch did not fit train_batch ({type(e).__name__}:"
                        f" {_first_line(e)}); trying the next shape")
            _restore(context, snapshot)
            session.reset_for_retry()
            example_batch = None

    # One validation batch, as the local test mode does.
    try:
        val = _torch_loader(trial.build_validation_data_loader())
        val_batch = next(iter(val))
    except Exception as e:  # noqa: BLE001
        if example_batch is None:
            raise
        events.emit("warning", kind="synthetic-data",
                    message=f"eval data is synthetic: build_validation_data_loader() failed "
                    f"({type(e).__name__}: {_first_line(e)}); using a batch shaped like the "
                    "training one")
        val = None
        val_batch = synthetic.SyntheticLoader(example_batch)._fresh(example_batch)
    val_batch = context.to_device(val_batch)
    for model in context.models:
        model.eval()
    with torch.no_grad():
        evaluate = getattr(type(trial), "evaluate_batch", None)
        if evaluate is not None:
            # Determined resets the validation's reducers before it and adds what they reduce
            # to the batches' metrics after it (wrap_reducer).
            reducers = [(r, name) for r, name, _, for_validation in context._reducers
                        if for_validation and hasattr(r, "reset")]
            for reducer, _ in reducers:
                reducer.reset()
            if len(inspect.signature(trial.evaluate_batch).parameters) >= 2:
                metrics = trial.evaluate_batch(val_batch, 0)
            else:
                metrics = trial.evaluate_batch(val_batch)
            metrics = dict(metrics) if isinstance(metrics, dict) else {}
            for reducer, name in reducers:
                reduced = reducer.cross_slot_reduce([reducer.per_slot_reduce()])
                metrics.update(reduced if name is None else {name: reduced})
        elif hasattr(trial, "evaluate_full_dataset"):
            metrics = trial.evaluate_full_dataset(_OneBatch(val, val_batch))
        else:
            raise Failure("dryrun.sdk-api", f"{ctx['trial_class']} defines neither "
                          "evaluate_batch nor evaluate_full_dataset")
    for model in context.models:
        model.train()
    metrics = metrics if isinstance(metrics, dict) else {}
    values = {k: _scalar(v) for k, v in metrics.items() if _scalar(v) is not None}
    loss = next((values[k] for k in ("validation_loss", "val_loss", "loss") if k in values), None)
    accuracy = next((values[k] for k in ("accuracy", "validation_accuracy", "val_accuracy")
                     if k in values), None)
    events.emit("eval", step=session.steps_done, loss=loss, accuracy=accuracy, batches=1,
                metrics=values)


def _validates_after(config, epochs_done):
    period = (config or {}).get("min_validation_period")
    every = period.get("epochs") if isinstance(period, dict) else None
    return isinstance(every, int) and every > 0 and epochs_done % every == 0


def _validate_whole(trial, context):
    """evaluate_full_dataset over the whole validation loader, as the harness runs it (a trial
    with evaluate_batch validates nothing the training reads)."""
    if getattr(type(trial), "evaluate_batch", None) is not None or \
            not hasattr(trial, "evaluate_full_dataset"):
        return
    loader = _torch_loader(trial.build_validation_data_loader())
    for model in context.models:
        model.eval()
    with torch.no_grad():
        trial.evaluate_full_dataset(loader)
    for model in context.models:
        model.train()


class _OneBatch:
    """The validation loader, cut to its first batch (for evaluate_full_dataset)."""

    def __init__(self, loader, batch):
        self._loader = loader
        self._batch = batch
        self.dataset = getattr(loader, "dataset", [batch])

    def __iter__(self):
        yield self._batch

    def __len__(self):
        return 1
