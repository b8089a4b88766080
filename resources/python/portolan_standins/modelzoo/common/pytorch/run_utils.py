"""The Model Zoo PyTorch runner (stand-in following Model Zoo R1.6-R1.8) on the CPU.

run(model_fn, train_data_fn, eval_data_fn, default_params_fn) parses the runner's command line
(R1.6 form `run.py --mode M --params P`, or R1.8 form `run.py CPU --mode M --params P`), reads
the params file into `params` (command-line flags fill `runconfig`), calls default_params_fn,
builds the model with model_fn(params) -- a PyTorchBaseModel whose __call__(data) returns the
loss -- and trains it with the optimizer and learning-rate schedule the base model built from
params["optimizer"]; then evaluates.
"""
import argparse
import inspect
import math
import os

import torch
import yaml

import _portolan_hooks as hooks

from . import modes
from .half_dtype import half_dtype_instance  # noqa: F401
from .PyTorchBaseModel import PyTorchBaseModel

DEVICES = ["CPU", "GPU", "CSX"]
STRATEGIES = ["pipeline", "weight_streaming"]


def get_parser(run_dir=None, extra_args_parser_fn=None):
    parents = []
    if extra_args_parser_fn is not None:
        extra = extra_args_parser_fn()
        if isinstance(extra, argparse.ArgumentParser):
            parents.append(extra)
        elif isinstance(extra, dict):
            for value in extra.values():
                parents += list(value) if isinstance(value, (list, tuple)) else [value]
        elif isinstance(extra, (list, tuple)):
            parents += list(extra)
    parser = argparse.ArgumentParser(parents=parents, conflict_handler="resolve")
    parser.add_argument("target_device", nargs="?", choices=DEVICES,
                        help="Target device (R1.8 form); omitted in R1.6")
    parser.add_argument("execution_strategy", nargs="?", choices=STRATEGIES,
                        help="Execution strategy on CSX")
    parser.add_argument("-p", "--params", required=True,
                        help="Path to .yaml file with model parameters")
    parser.add_argument("-m", "--mode", required=True,
                        choices=[modes.TRAIN, modes.EVAL, modes.TRAIN_AND_EVAL, modes.EVAL_ALL],
                        help="Select mode of execution for the run")
    default_model_dir = os.path.join(run_dir, "model_dir") if run_dir else None
    parser.add_argument("-o", "--model_dir", default=default_model_dir,
                        help="Model directory where checkpoints will be written")
    parser.add_argument("--checkpoint_path", default=None)
    parser.add_argument("--is_pretrained_checkpoint", action="store_true", default=None)
    parser.add_argument("--logging", default=None)
    parser.add_argument("--max_steps", type=int, default=None)
    parser.add_argument("--eval_steps", type=int, default=None)
    parser.add_argument("--num_epochs", type=int, default=None)
    parser.add_argument("--steps_per_epoch", type=int, default=None)
    parser.add_argument("--checkpoint_steps", type=int, default=None)
    parser.add_argument("--compile_only", action="store_true", default=None)
    parser.add_argument("--validate_only", action="store_true", default=None)
    parser.add_argument("--cs_ip", default=None)
    parser.add_argument("--cs_config", default=None)
    parser.add_argument("--multireplica", action="store_true", default=None)
    parser.add_argument("--num_csx", type=int, default=None)
    parser.add_argument("--num_wgt_servers", type=int, default=None)
    parser.add_argument("--num_act_servers", type=int, default=None)
    parser.add_argument("--num_workers_per_csx", type=int, default=None)
    parser.add_argument("-c", "--compile_dir", default=None)
    parser.add_argument("--job_labels", nargs="+", default=None)
    parser.add_argument("--debug_args_path", default=None)
    parser.add_argument("--mount_dirs", nargs="+", default=None)
    parser.add_argument("--python_paths", nargs="+", default=None)
    parser.add_argument("--credentials_path", default=None)
    parser.add_argument("--mgmt_address", default=None)
    parser.add_argument("--job_time_sec", type=int, default=None)
    parser.add_argument("--disable_version_check", action="store_true", default=None)
    parser.add_argument("-dist_addr", "--dist_addr", default=None)
    parser.add_argument("-dist_backend", "--dist_backend", choices=["nccl", "mpi", "gloo"],
                        default=None)
    parser.add_argument("-init_method", "--init_method", default=None)
    return parser


def get_params_from_args(run_dir=None, extra_args_parser_fn=None):
    args = get_parser(run_dir, extra_args_parser_fn).parse_args()
    with open(args.params, "r") as stream:
        params = yaml.safe_load(stream)
    if not isinstance(params, dict):
        raise ValueError(f"{args.params}: expected a mapping of sections (train_input, "
                         "eval_input, model, optimizer, runconfig)")
    runconfig = params.setdefault("runconfig", {})
    for key, value in vars(args).items():
        if key == "params":
            runconfig["params_path"] = value
        elif value is not None:
            runconfig[key] = value
    runconfig.setdefault("target_device", args.target_device or "CPU")
    return params


def run(model_fn, train_data_fn=None, eval_data_fn=None, default_params_fn=None,
        extra_args_parser_fn=None):
    """Entry point of a Model Zoo run.py: command line, params, then the CPU run."""
    caller = inspect.stack()[1].filename
    run_dir = os.path.dirname(os.path.abspath(caller))
    params = get_params_from_args(run_dir, extra_args_parser_fn)
    if default_params_fn is not None:
        params = default_params_fn(params) or params
    return run_with_params(params, model_fn, train_data_fn, eval_data_fn)


def _step_limit(runconfig, loader):
    limit = runconfig.get("max_steps")
    if limit is None and runconfig.get("num_epochs") is not None:
        per_epoch = runconfig.get("steps_per_epoch")
        if per_epoch is None:
            try:
                per_epoch = len(loader)
            except TypeError:
                per_epoch = None
        if per_epoch is not None:
            limit = int(runconfig["num_epochs"]) * int(per_epoch)
    if hooks.dry_run_steps is not None:
        limit = hooks.dry_run_steps if limit is None else min(int(limit), hooks.dry_run_steps)
    return limit


def _batches(loader):
    while True:
        produced = False
        for batch in loader:
            produced = True
            yield batch
        if not produced:
            raise ValueError("the training data loader produced no batch")


def _clip(optimizer, oparams):
    parameters = [p for g in optimizer.param_groups for p in g["params"] if p.grad is not None]
    norm = float(oparams.get("max_gradient_norm", 0.0) or 0.0)
    value = float(oparams.get("max_gradient_value", 0.0) or 0.0)
    if norm > 0:
        torch.nn.utils.clip_grad_norm_(parameters, norm)
    elif value > 0:
        torch.nn.utils.clip_grad_value_(parameters, value)


def _dry_run_batch(params, section):
    """The dry run trains on a small batch; the config's batch is kept for the capture."""
    inputs = params.get(section)
    if hooks.dry_run_batch is None or not isinstance(inputs, dict):
        return
    if isinstance(inputs.get("batch_size"), int):
        inputs["batch_size"] = hooks.clamp_batch(inputs["batch_size"], f"{section}.batch_size")


def _dry_run_model_batches(params):
    """A batch size the model reads from its own section (`model.bs`, the original's flag that
    a port's step slices its batches with) is shrunk as the original's flag is in its dry run
    (portolan_dryrun/batchargs.py), so that both build the same batches."""
    inputs = params.get("model")
    if hooks.dry_run_batch is None or not isinstance(inputs, dict):
        return
    for key, value in list(inputs.items()):
        if hooks.BATCH_NAME.search(key) and isinstance(value, int) and \
                not isinstance(value, bool) and hooks.dry_batch(value) != value:
            inputs[key] = hooks.clamp_batch(value, f"model.{key}")


def run_with_params(params, model_fn, train_data_fn=None, eval_data_fn=None,
                    extra_args_parser_fn=None):
    runconfig = params["runconfig"]
    mode = runconfig["mode"]
    if mode not in (modes.TRAIN, modes.EVAL, modes.TRAIN_AND_EVAL, modes.EVAL_ALL):
        raise ValueError(f"Unsupported mode {mode!r}")
    seed = runconfig.get("seed")
    if seed is not None:
        torch.manual_seed(seed)
    hooks.runner_controls_steps = True
    hooks.modelzoo_params = params
    # Shrunk before the model is built: a model sized from the params' batch (a parameter of
    # shape [batch, 1, d]) must agree with the loaders, as it does in the real run.
    if mode in (modes.TRAIN, modes.TRAIN_AND_EVAL):
        _dry_run_batch(params, "train_input")
        _dry_run_model_batches(params)
    model = model_fn(params)
    if not isinstance(model, PyTorchBaseModel):
        raise TypeError("model_fn must return a PyTorchBaseModel (got "
                        f"{type(model).__name__})")

    if mode in (modes.TRAIN, modes.TRAIN_AND_EVAL):
        if train_data_fn is None:
            raise ValueError(f"mode {mode} needs train_data_fn")
        loader = train_data_fn(params)
        limit = _step_limit(runconfig, loader)
        if limit is None:
            raise ValueError("runconfig needs max_steps, or num_epochs, to train")
        optimizer = model.get_optimizer()
        oparams = params.get("optimizer", {})
        batches = _batches(loader)
        for _ in range(int(limit)):
            model.train()
            loss = model(next(batches))
            if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
                raise TypeError("PyTorchBaseModel.__call__(data) must return the loss, a "
                                "scalar tensor")
            loss.backward()
            _clip(optimizer, oparams)
            optimizer.step()
            if model.lr_scheduler is not None:
                model.lr_scheduler.step()
            optimizer.zero_grad()

    if mode in (modes.EVAL, modes.TRAIN_AND_EVAL, modes.EVAL_ALL) and eval_data_fn is not None:
        _dry_run_batch(params, "eval_input")
        loader = eval_data_fn(params)
        eval_steps = runconfig.get("eval_steps")
        if hooks.dry_run_steps is not None:
            eval_steps = 1
        total, count = 0.0, 0
        model.eval()
        with torch.no_grad():
            for i, batch in enumerate(loader):
                if eval_steps is not None and i >= int(eval_steps):
                    break
                loss = model(batch)
                total += float(loss)
                count += 1
        if count:
            metrics = {}
            try:
                from modelzoo.common.pytorch.metrics import compute_all_metrics

                metrics = compute_all_metrics()
            except ImportError:
                pass
            loss = total / count
            hooks.notify("eval", f"eval loss {loss:.4f} over {count} batch(es)", loss=loss,
                         batches=count, metrics=metrics,
                         perplexity=math.exp(loss) if loss < 50 else None)
    return None


def main(params, model_fn, train_data_fn=None, eval_data_fn=None, script=None,
         extra_args_parser_fn=None):
    if inspect.isclass(model_fn) and not issubclass(model_fn, PyTorchBaseModel):
        # R1.9-R2.2 hand main() a plain torch.nn.Module class: the cstorch flow.
        from .run_cstorch_flow import run_cstorch_flow

        return run_cstorch_flow(params, model_fn, train_data_fn, eval_data_fn)
    return run_with_params(params, model_fn, train_data_fn, eval_data_fn)
