"""cerebras_pytorch: the R1.9-R2.2 import name of cstorch (stand-in, see cerebras.pytorch).

Both names are one implementation: importing this module hands back cerebras.pytorch itself,
and its submodules are registered under this name too, so `from cerebras_pytorch.metrics
import AccuracyMetric` and `cerebras.pytorch.metrics.AccuracyMetric` are the same class.
"""
import sys

import cerebras.pytorch as _impl

for _name, _module in list(sys.modules.items()):
    if _name.startswith("cerebras.pytorch."):
        sys.modules["cerebras_pytorch" + _name[len("cerebras.pytorch"):]] = _module
sys.modules[__name__] = _impl
