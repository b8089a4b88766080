"""cbtorch (stand-in): the Cerebras PyTorch runtime's entry points, as no-ops off the system."""


class _State:
    is_inside_execution_loop = False
    execution_strategy = None

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return None


class _Env:
    weight_streaming_mode = False
    pipeline_mode = False


_state = _State()
_env = _Env()


def state():
    return _state


def env():
    return _env


def module(model, device=None):
    return model


def optimizer(opt):
    return opt


def dataloader(loader, *args, **kwargs):
    return loader


def initialize(*args, **kwargs):
    return None
