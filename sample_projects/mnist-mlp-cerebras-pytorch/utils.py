"""Reading params.yaml and filling in defaults.

run.py hands set_defaults to the Model Zoo runner, which loads the YAML
itself; get_params is for scripts and notebooks that need the same view.
"""
import yaml

SUPPORTED_OPTIMIZERS = ("SGD", "Adam")


def set_defaults(params):
    """Fill optional keys and reject values the model cannot use.

    Checking on the host fails in seconds instead of after a long compile.
    """
    for section in ("train_input", "eval_input"):
        params[section].setdefault("drop_last_batch", True)
        params[section].setdefault("shuffle", section == "train_input")
        params[section].setdefault("synthetic_samples", 1000)
    params["model"].setdefault("activation_fn", "relu")
    params["model"].setdefault("dropout", 0.0)
    params["optimizer"].setdefault("momentum", 0.0)
    params["optimizer"].setdefault("max_gradient_norm", 0.0)
    params["runconfig"].setdefault("seed", 1)

    if params["model"]["name"] != "fc_mnist":
        raise ValueError(f"unexpected model name {params['model']['name']!r}")
    if params["model"]["depth"] < 1 or params["model"]["hidden_size"] < 1:
        raise ValueError("model.depth and model.hidden_size must be >= 1")
    if params["optimizer"]["optimizer_type"] not in SUPPORTED_OPTIMIZERS:
        raise ValueError("optimizer.optimizer_type must be one of "
                         f"{SUPPORTED_OPTIMIZERS}")
    if params["optimizer"]["learning_rate"] <= 0:
        raise ValueError("optimizer.learning_rate must be positive")
    if params["optimizer"]["momentum"] < 0:
        raise ValueError("optimizer.momentum must not be negative")
    if params["optimizer"]["max_gradient_norm"] < 0:
        raise ValueError("optimizer.max_gradient_norm must not be negative")
    return params


def get_params(params_file):
    with open(params_file, "r") as stream:
        params = yaml.safe_load(stream)
    return set_defaults(params)
