"""Hyperparameters drawn again when a trial rejects them (`det.InvalidHP`).

A trial may refuse a combination its search space allows (a hidden size that the number of
heads does not divide, say) by raising det.InvalidHP; Determined's searcher then tries another
point. The dry run does the same, a bounded number of times: each hyperparameter of the
experiment config is drawn from its space as the random searcher draws it (int: an integer in
[minval, maxval]; double: uniform; log: base ** uniform(minval, maxval); categorical: one of its
values; const: its value), with a seed from the config so that a dry run is repeatable.
"""
import random

MAX_DRAWS = 12


def is_invalid_hp(error):
    """True for determined.InvalidHP (the stand-in's or the real package's)."""
    return any(cls.__name__ == "InvalidHP" and cls.__module__.split(".")[0] == "determined"
               for cls in type(error).__mro__)


def _draw(spec, rng):
    if not isinstance(spec, dict):
        return spec
    if "type" not in spec:
        return {k: _draw(v, rng) for k, v in spec.items()}
    kind = spec["type"]
    if kind == "const":
        return spec["val"]
    if kind == "categorical":
        return rng.choice(list(spec["vals"]))
    if kind == "int":
        return rng.randint(int(spec["minval"]), int(spec["maxval"]))
    if kind == "double":
        return rng.uniform(float(spec["minval"]), float(spec["maxval"]))
    if kind == "log":
        return float(spec.get("base", 10.0)) ** rng.uniform(float(spec["minval"]),
                                                            float(spec["maxval"]))
    return spec.get("val", spec.get("minval"))


def rng_for(config):
    seed = ((config.get("reproducibility") or {}).get("experiment_seed")
            if isinstance(config, dict) else None)
    return random.Random(seed if isinstance(seed, int) else 0)


def draw(config, rng):
    """One point of the experiment config's hyperparameter space."""
    return {k: _draw(v, rng) for k, v in ((config or {}).get("hyperparameters") or {}).items()}


def searched(config):
    """Names of the hyperparameters that have a range or a choice (the others are fixed)."""
    out = []

    def walk(prefix, spec):
        if isinstance(spec, dict) and "type" not in spec:
            for k, v in spec.items():
                walk(f"{prefix}{k}.", v)
        elif isinstance(spec, dict) and spec.get("type") != "const":
            out.append(prefix[:-1] if prefix.endswith(".") else prefix)

    for k, v in ((config or {}).get("hyperparameters") or {}).items():
        walk(f"{k}.", v)
    return out
