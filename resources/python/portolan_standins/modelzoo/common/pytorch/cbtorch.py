"""modelzoo.common.pytorch.cbtorch (stand-in): in Model Zoo R1.x this name is the closed
framework itself (`import cerebras.framework.torch as cbtorch`), re-exported by
modelzoo.common.pytorch; the stand-in of that closed package is the one source of its API."""
from cerebras.framework.torch import (  # noqa: F401
    _env, _state, amp, core, dataloader, env, initialize, load, module, save, state, utils)
