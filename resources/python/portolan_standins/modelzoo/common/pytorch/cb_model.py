"""modelzoo.common.pytorch.cb_model (stand-in): in Model Zoo R1.x this name is the closed
framework's device model (`from cerebras.framework.torch.core import cb_model`), re-exported by
modelzoo.common.pytorch; the stand-in of that closed module is the one source of its API."""
from cerebras.framework.torch.core.cb_model import *  # noqa: F401,F403
from cerebras.framework.torch.core.cb_model import (  # noqa: F401
    RateTracker, WORKER_CACHE_ROOT, METRIC_NAME_PREFIX, _advance_run_step)
