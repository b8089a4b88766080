"""cerebras.modelzoo.common.run_utils (fallback following Model Zoo R2.10): run() and main().

run() parses the command line R2.10's run.py takes (`run.py {CPU,GPU,CSX} --params P --mode M
[--model_dir D] ...`), reads the params file, lets the command line fill the trainer's
device, model_dir and checkpoint, and runs the Trainer.
"""
import argparse

import yaml

MODES = ["train", "eval", "train_and_eval", "eval_all"]


def _parser(extra_args_parser_fn=None):
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("-p", "--params", required=True)
    parent.add_argument("-m", "--mode", required=True, choices=MODES)
    parent.add_argument("-o", "--model_dir", default=None)
    parent.add_argument("--checkpoint_path", default=None)
    parent.add_argument("--load_checkpoint_states", default=None)
    parent.add_argument("--logging", default=None)
    parent.add_argument("--max_steps", type=int, default=None)
    parent.add_argument("--num_steps", type=int, default=None)
    parent.add_argument("--eval_steps", type=int, default=None)
    parent.add_argument("--num_epochs", type=int, default=None)
    parent.add_argument("--steps_per_epoch", type=int, default=None)
    parent.add_argument("--checkpoint_steps", type=int, default=None)
    parent.add_argument("--compile_only", action="store_true", default=None)
    parent.add_argument("--validate_only", action="store_true", default=None)
    parent.add_argument("--num_csx", type=int, default=None)
    parent.add_argument("--mount_dirs", nargs="+", default=None)
    parent.add_argument("--python_paths", nargs="+", default=None)
    parent.add_argument("--job_labels", nargs="+", default=None)
    parent.add_argument("--mgmt_address", default=None)
    parent.add_argument("--credentials_path", default=None)
    parent.add_argument("--disable_version_check", action="store_true", default=None)
    extra = list(extra_args_parser_fn() or []) if extra_args_parser_fn else []
    parser = argparse.ArgumentParser()
    sp = parser.add_subparsers(title="Target Device", dest="target_device")
    sp.required = True
    for device in ("CPU", "GPU", "CSX"):
        sp.add_parser(device, parents=[parent] + [e for e in extra
                                                  if isinstance(e, argparse.ArgumentParser)])
    return parser


def get_params_from_args(extra_args_parser_fn=None):
    args = _parser(extra_args_parser_fn).parse_args()
    with open(args.params, "r") as f:
        params = yaml.safe_load(f)
    runconfig = params.setdefault("runconfig", {})
    for key, value in vars(args).items():
        if value is not None and key != "params":
            runconfig[key] = value
    runconfig["params_path"] = args.params
    return params


def _inject(runconfig, params):
    """The command line's settings go into each trainer (R2.10
    inject_cli_args_to_trainer_params, for the keys a dry run gives)."""
    trainers = params["trainer"] if isinstance(params["trainer"], list) else [params]
    for t in trainers:
        init = (t["trainer"] if "trainer" in t else t).setdefault("init", {})
        if runconfig.get("target_device"):
            backend = init.get("backend") or {}
            if not backend.get("backend_type"):
                init.setdefault("device", runconfig["target_device"])
        if runconfig.get("model_dir"):
            init["model_dir"] = runconfig["model_dir"]
        loop = init.setdefault("loop", {}) if any(
            runconfig.get(k) is not None for k in ("max_steps", "num_steps")) else None
        for key in ("max_steps", "num_steps"):
            if runconfig.get(key) is not None:
                loop[key] = runconfig[key]
    return params


def main(params, script=None, extra_args_parser_fn=None):
    from cerebras.modelzoo.trainer.utils import run_trainer

    runconfig = params.pop("runconfig", {}) if "trainer" in params else params.get("runconfig",
                                                                                     {})
    mode = runconfig.get("mode", "train")
    if "trainer" in params:
        params = _inject(runconfig, params)
    return run_trainer(mode, params)


def run(extra_args_parser_fn=None):
    return main(get_params_from_args(extra_args_parser_fn),
                extra_args_parser_fn=extra_args_parser_fn)
