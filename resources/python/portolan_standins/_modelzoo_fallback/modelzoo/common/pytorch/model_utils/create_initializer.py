"""modelzoo.common.pytorch.model_utils.create_initializer (stand-in, Model Zoo R1.6-R1.8)."""
import functools

import torch

from . import weight_initializers as wi


def _get(spec, key, default):
    value = spec.get(key, default)
    return default if value is None else value


def create_initializer(spec):
    """An in-place initializer `fn(tensor)` from a name or a dict {name, ...its parameters}:
    constant, ones, zeros, eye, uniform, normal, truncated_normal, xavier/glorot uniform and
    normal, kaiming/he uniform and normal, lecun uniform and normal, variance_scaling."""
    if isinstance(spec, str):
        spec = {"name": spec}
    if "name" not in spec:
        raise ValueError("Initializer name must be provided")
    name = spec["name"].lower()
    init = torch.nn.init
    gain = _get(spec, "gain", 1.0)
    if name == "constant":
        return functools.partial(init.constant_, val=_get(spec, "val", 0.0))
    if name == "ones":
        return init.ones_
    if name == "zeros":
        return init.zeros_
    if name == "eye":
        return init.eye_
    if name == "uniform":
        return functools.partial(init.uniform_, a=_get(spec, "a", -0.05), b=_get(spec, "b", 0.05))
    if name == "normal":
        return functools.partial(init.normal_, mean=_get(spec, "mean", 0.0),
                                 std=_get(spec, "std", 0.05))
    if name == "truncated_normal":
        std = _get(spec, "std", 0.05)
        return functools.partial(wi.trunc_normal_, mean=_get(spec, "mean", 0.0), std=std,
                                 a=_get(spec, "a", -2 * std), b=_get(spec, "b", 2 * std))
    if name in ("xavier_uniform", "glorot_uniform"):
        return functools.partial(init.xavier_uniform_, gain=gain)
    if name in ("xavier_normal", "glorot_normal"):
        return functools.partial(init.xavier_normal_, gain=gain)
    if name in ("kaiming_uniform", "he_uniform"):
        return functools.partial(init.kaiming_uniform_, a=_get(spec, "a", 0),
                                 mode=_get(spec, "mode", "fan_in"),
                                 nonlinearity=_get(spec, "nonlinearity", "leaky_relu"))
    if name in ("kaiming_normal", "he_normal"):
        return functools.partial(init.kaiming_normal_, a=_get(spec, "a", 0),
                                 mode=_get(spec, "mode", "fan_in"),
                                 nonlinearity=_get(spec, "nonlinearity", "leaky_relu"))
    if name == "lecun_normal":
        return wi.lecun_normal_
    if name == "lecun_uniform":
        return wi.lecun_uniform_
    if name == "variance_scaling":
        return functools.partial(wi.variance_scaling_, scale=_get(spec, "scale", 1.0),
                                 mode=_get(spec, "mode", "fan_in"),
                                 distribution=_get(spec, "distribution", "truncated_normal"))
    raise ValueError(f"Invalid or unimplemented initializer {spec['name']!r}")
