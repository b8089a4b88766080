"""modelzoo.common.pytorch.utils helpers (stand-in, Model Zoo R1.6-R1.8)."""
import random

import torch
import yaml


def get_params(param_path, config=None):
    with open(param_path, "r") as f:
        return yaml.safe_load(f)


class BufferedShuffleDataset(torch.utils.data.IterableDataset):
    """Shuffles an iterable dataset through a buffer of `buffer_size` samples."""

    def __init__(self, dataset, buffer_size):
        super().__init__()
        self.dataset = dataset
        self.buffer_size = buffer_size

    def __iter__(self):
        buffer = []
        for item in self.dataset:
            if len(buffer) == self.buffer_size:
                i = random.randint(0, self.buffer_size - 1)
                yield buffer[i]
                buffer[i] = item
            else:
                buffer.append(item)
        random.shuffle(buffer)
        yield from buffer


def get_debug_args(debug_args_path, debug_ini_path):
    """The appliance's debug arguments: off the system there are none, so an empty set of
    attributes (any read gives None)."""

    class DebugArgs:
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return None

    return DebugArgs()
