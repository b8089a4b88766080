"""Reading params.yaml and filling in defaults.

run.py hands set_defaults to the Model Zoo runner, which loads the YAML
itself; get_params is for scripts and notebooks that need the same view.
"""
import yaml

SUPPORTED_NONLINEARITIES = ("relu", "gelu")
SUPPORTED_OPTIMIZERS = ("SGD", "Adam")


def set_defaults(params):
    """Fill optional keys and reject shapes the model cannot be built with.

    Checking on the host fails in seconds instead of after a long compile.
    """
    for section in ("train_input", "eval_input"):
        params[section].setdefault("drop_last_batch", True)
        params[section].setdefault("shuffle", section == "train_input")
    params["model"].setdefault("dropout", 0.0)
    params["model"].setdefault("nonlinearity", "relu")
    params["runconfig"].setdefault("seed", 1)

    if params["model"]["name"] != "alphabet_transformer":
        raise ValueError(f"unexpected model name {params['model']['name']!r}")
    if params["model"]["embedding_size"] % params["model"]["num_heads"]:
        raise ValueError("model.embedding_size must be divisible by "
                         "model.num_heads")
    if params["model"]["nonlinearity"] not in SUPPORTED_NONLINEARITIES:
        raise ValueError("model.nonlinearity must be one of "
                         f"{SUPPORTED_NONLINEARITIES}")
    if params["model"]["num_hidden_layers"] < 1:
        raise ValueError("model.num_hidden_layers must be >= 1")
    if params["model"]["hidden_size"] < 1 or params["model"]["seq_len"] < 1:
        raise ValueError("model.hidden_size and model.seq_len must be >= 1")
    if params["model"]["vocab_size"] < 2:
        raise ValueError("model.vocab_size must be >= 2")
    if params["optimizer"]["optimizer_type"] not in SUPPORTED_OPTIMIZERS:
        raise ValueError("optimizer.optimizer_type must be one of "
                         f"{SUPPORTED_OPTIMIZERS}")
    if params["optimizer"]["learning_rate"] <= 0:
        raise ValueError("optimizer.learning_rate must be positive")
    return params


def get_params(params_file):
    with open(params_file, "r") as stream:
        params = yaml.safe_load(stream)
    return set_defaults(params)
