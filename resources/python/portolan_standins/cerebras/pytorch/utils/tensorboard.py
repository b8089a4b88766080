"""cstorch.utils.tensorboard.SummaryWriter (stand-in following cerebras.pytorch R2.1-R2.4).

The real writer is torch's, whose package (tensorboard) Debian 12 lacks; a dry run keeps the
scalars in memory instead of writing event files.
"""


class SummaryWriter:
    def __init__(self, log_dir=None, base_step=0, **kwargs):
        self.log_dir = log_dir
        self.base_step = base_step
        self.scalars = []

    def add_scalar(self, tag, scalar_value, global_step=None, *args, **kwargs):
        self.scalars.append((tag, scalar_value, global_step))

    def add_tensor(self, tag, tensor, global_step=None):
        pass

    def flush(self):
        pass

    def close(self):
        pass
