"""cerebras.modelzoo.trainer.utils (fallback following Model Zoo R2.10): from the Trainer
YAML to a Trainer run.

run_trainer(mode, params) reads `trainer: {init: ..., fit: ...}` (a list of such trainers
runs them in turn), rejects keys R2.10's TrainerInitConfig / TrainerFitConfig do not have,
builds the model from its typed config, the cstorch optimizer and schedulers from their
single-key mappings ({SGD: {lr: ...}}, [{LinearLR: {...}}]) and the data processors into
cstorch DataLoaders, and calls fit.
"""
import inspect
import typing

import _portolan_hooks as hooks

from .lookup import data_processor_class, model_class

INIT_KEYS = {"model", "device", "backend", "model_dir", "optimizer", "schedulers", "precision",
             "sparsity", "loop", "checkpoint", "logging", "callbacks", "loggers", "seed",
             "autorestart"}
FIT_KEYS = {"train_dataloader", "val_dataloader", "ckpt_path"}
TRAINER_KEYS = {"init", "fit", "validate", "validate_all"}


def _check_keys(section, where, allowed):
    if not isinstance(section, dict):
        raise TypeError(f"Expected {where} to be a dict. Got: {type(section).__name__}")
    extra = sorted(set(section) - allowed)
    if extra:
        raise ValueError(f"{where}: unexpected key(s) {extra}; expected some of "
                         f"{sorted(allowed)}")


def _single(d, what):
    if not isinstance(d, dict) or len(d) != 1:
        raise ValueError(f"Expected {what} to have a single key. Got: "
                         f"{sorted(d) if isinstance(d, dict) else type(d).__name__}")
    name = next(iter(d))
    return name, dict(d[name] or {})


def _by_name(module, name, base, what):
    for attr in dir(module):
        cls = getattr(module, attr)
        if isinstance(cls, type) and issubclass(cls, base) and attr.lower() == name.lower():
            return cls
    raise ValueError(f"Unknown {what} {name!r}")


def build_from_config(cls, values, where):
    """cls(config=Config(**values)) when its __init__ takes one typed config (the R2.10
    convention), else cls(**values) with the signature's keys only."""
    from cerebras.modelzoo.config import BaseConfig

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    hints = typing.get_type_hints(cls.__init__) if params else {}
    if len(params) == 1:
        ann = hints.get(params[0].name)
        if isinstance(ann, type) and issubclass(ann, BaseConfig):
            return cls(**{params[0].name: ann(**values)})
    names = {p.name for p in params}
    extra = sorted(set(values) - names - {"name"})
    if extra and not any(p.kind is p.VAR_KEYWORD for p in params):
        raise ValueError(f"{where}: unexpected key(s) {extra} for {cls.__name__}")
    return cls(**{k: v for k, v in values.items() if k != "name"})


def create_dataloader_from_config(model_name, values):
    import cerebras.pytorch as cstorch
    import torch

    values = dict(values)
    processor = values.get("data_processor")
    if processor is None:
        raise ValueError("Data Processor config must have a `data_processor` key")
    cls = data_processor_class(model_name, processor)
    if isinstance(values.get("batch_size"), int):
        values["batch_size"] = hooks.clamp_batch(values["batch_size"],
                                                 f"{processor}.batch_size")

    def data_processor_fn(**kwargs):
        dp = build_from_config(cls, kwargs, processor)
        if isinstance(dp, torch.utils.data.DataLoader):
            return dp
        if hasattr(dp, "create_dataloader"):
            return dp.create_dataloader()
        if hasattr(dp, "__iter__"):
            return dp
        raise TypeError("Expected dataprocessor to be an iterable (e.g., torch dataloader) or "
                        "have a `create_dataloader()` method that returns an iterable for "
                        "generating input data.")

    return cstorch.utils.data.DataLoader(data_processor_fn, **values)


def configure_trainer_from_config(init, mode=None):
    import cerebras.pytorch as cstorch

    from . import Trainer
    from .callbacks import Checkpoint, Logging, MixedPrecision, TrainingLoop

    _check_keys(init, "trainer.init", INIT_KEYS)
    model_values = dict(init["model"])
    name = model_values.get("name")
    backend_args = dict(init.get("backend") or {})
    backend_type = backend_args.pop("backend_type", None) or init.get("device")
    if backend_type is None:
        raise ValueError("No device specified. Please specify a device using the 'device' key "
                         "inside the 'init' key of the trainer params or through the cszoo "
                         "CLI with the target_device flag (e.g. --target_device=CSX).")
    accepted = cstorch.get_backend_args(backend_type)
    backend = cstorch.backend(backend_type, **{k: v for k, v in backend_args.items()
                                               if k in accepted})
    cls = model_class(name)

    def optimizer_fn(model):
        if not init.get("optimizer") or mode in ("eval", "eval_all"):
            return None
        opt_name, args = _single(init["optimizer"], "optimizer")
        opt_cls = _by_name(cstorch.optim, opt_name, cstorch.optim.Optimizer, "optimizer")
        accepted = inspect.signature(opt_cls.__init__).parameters
        if "learning_rate" in args and "lr" in accepted:
            args["lr"] = args.pop("learning_rate")
        unused = sorted(k for k in args if k not in accepted or k in ("self", "params"))
        if unused:
            hooks.notify("warning", f"{opt_cls.__name__} got {len(unused)} unexpected and "
                         f"unused parameters: {unused}")
        args = {k: v for k, v in args.items() if k not in unused}
        return opt_cls(cstorch.optim.configure_param_groups(model, args), **args)

    def scheduler(spec):
        sched_name, args = _single(spec, "scheduler")
        sched_cls = _by_name(cstorch.optim.lr_scheduler, sched_name,
                             cstorch.optim.lr_scheduler.LRScheduler, "LR scheduler")

        def make(optimizer):
            kwargs = dict(args)
            if "schedulers" in kwargs:
                subs = [scheduler(s)(optimizer) for s in kwargs["schedulers"]]
                kwargs["schedulers"] = subs
                if issubclass(sched_cls, cstorch.optim.lr_scheduler.SequentialLR):
                    total, milestones = 0, []
                    for s in subs[:-1]:
                        total += int(s.total_iters or 0)
                        milestones.append(total)
                    kwargs.setdefault("milestones", milestones)
            return sched_cls(optimizer, **kwargs)

        return make

    schedulers = init.get("schedulers")
    if isinstance(schedulers, dict):
        schedulers = [schedulers]
    return Trainer(
        backend=backend, model_dir=init.get("model_dir", "./model_dir"),
        model=lambda: build_from_config(cls, model_values, "trainer.init.model"),
        optimizer=optimizer_fn,
        schedulers=[scheduler(s) for s in schedulers or []],
        precision=MixedPrecision(**init["precision"]) if init.get("precision") else None,
        loop=TrainingLoop(**init["loop"]) if init.get("loop") else None,
        checkpoint=Checkpoint(**init["checkpoint"]) if init.get("checkpoint") else None,
        logging=Logging(**init["logging"]) if init.get("logging") else None,
        sparsity=init.get("sparsity"), callbacks=init.get("callbacks"),
        loggers=init.get("loggers"), seed=init.get("seed"),
        autorestart=init.get("autorestart"))


def run_trainer(mode, params):
    if "trainer" not in params:
        raise KeyError("Trainer configuration not found in params. Please ensure that the "
                       "params contain a 'trainer' key. (The dry run's Trainer reads the "
                       "trainer layout only; convert legacy params with `cszoo config "
                       "convert_legacy`.)")
    trainers = params["trainer"] if isinstance(params["trainer"], list) else [params]
    for t in trainers:
        trainer = t["trainer"] if "trainer" in t else t
        _check_keys(trainer, "trainer", TRAINER_KEYS)
        if "init" not in trainer or "model" not in trainer["init"]:
            raise KeyError("Trainer configuration must have an 'init' key with a 'model' key.")
        model = trainer["init"]["model"]
        if "model_name" in model:
            model.setdefault("name", model.pop("model_name"))
        if "name" not in model:
            raise KeyError("Model configuration must have a 'name' key.")
        hooks.modelzoo_params = {"trainer": trainer}
        built = configure_trainer_from_config(trainer["init"], mode)
        if mode in ("train", "train_and_eval"):
            fit = trainer.get("fit")
            if not fit:
                raise RuntimeError("Fit requested but config is missing `fit` section. Please "
                                   "add a `fit` section to your trainer configuration.")
            _check_keys(fit, "trainer.fit", FIT_KEYS)
            name = model["name"]
            train = create_dataloader_from_config(name, fit["train_dataloader"])
            val = None
            if mode == "train":
                built.loop.eval_frequency = None
            elif fit.get("val_dataloader"):
                vals = fit["val_dataloader"]
                val = [create_dataloader_from_config(name, v)
                       for v in (vals if isinstance(vals, list) else [vals])]
            built.fit(train, val, fit.get("ckpt_path", ...))
        elif mode == "eval":
            section = trainer.get("validate")
            if not section:
                raise RuntimeError("Validation requested but config is missing `validate` "
                                   "section.")
            built.validate(create_dataloader_from_config(model["name"],
                                                         section["val_dataloader"]))
        else:
            raise ValueError(f"Invalid mode \"{mode}\". Expected one of: train, "
                             "train_and_eval, eval.")
