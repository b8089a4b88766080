"""poptorch.DataLoader (PopTorch 3.x signature) on the CPU.

One element of the loader is a combined batch: batch_size x device iterations x replication x
gradient accumulation samples, as on the IPU. In a dry run the micro-batch is made small and
worker processes are not started (the batches are the same; only the speed differs).
"""
import torch

import _portolan_hooks as hooks
from . import enums
from .options import Options


class DataLoader(torch.utils.data.DataLoader):
    def __init__(self, options, dataset, batch_size=1, shuffle=False, num_workers=0,
                 drop_last=True, persistent_workers=None, auto_distributed_partitioning=True,
                 mode=enums.DataLoaderMode.Sync, async_options=None, rebatched_worker_size=None,
                 **kwargs):
        if options is None:
            options = Options()
        assert isinstance(options, Options), "options must be a poptorch.Options"
        if not isinstance(mode, enums.DataLoaderMode):
            raise ValueError("mode must be a poptorch.DataLoaderMode")
        self._options = options
        self._mode = mode
        self._requested_batch_size = batch_size
        micro = hooks.clamp_batch(batch_size, "poptorch.DataLoader(batch_size=...)",
                                  keep_small=False)
        if batch_size is None:
            self._combined_batch_size = None
        else:
            self._combined_batch_size = (micro * options.device_iterations *
                                         options.replication_factor *
                                         options.Training.gradient_accumulation)
        if hooks.dry_run_batch is not None and num_workers:
            num_workers = 0
            persistent_workers = False
        if persistent_workers is None:
            persistent_workers = num_workers > 0
        if not isinstance(dataset, torch.utils.data.IterableDataset) and \
                self._combined_batch_size is not None and not drop_last:
            n = len(dataset)
            if n % self._combined_batch_size:
                raise AssertionError(
                    f"The number of elements in the dataset ({n}) is not divisible by the "
                    f"number of elements processed per step ({self._combined_batch_size}) and "
                    "drop_last=False. Switch to drop_last=True.")
        with hooks.suspend_clamp():
            super().__init__(dataset, batch_size=self._combined_batch_size, shuffle=shuffle,
                             num_workers=num_workers, drop_last=drop_last,
                             persistent_workers=persistent_workers, **kwargs)

    @property
    def combinedBatchSize(self):
        return self._combined_batch_size

    @property
    def options(self):
        return self._options

    def terminate(self):
        """Stops the asynchronous loader's worker (nothing runs asynchronously here)."""


class AsynchronousDataAccessor:
    def __init__(self, dataset, buffer_size=3, miss_sleep_time_in_ms=0.1,
                 load_indefinitely=True, early_preload=False, sharing_strategy=None,
                 rebatched_size=None):
        self._dataset = dataset

    def terminate(self):
        pass

    def __len__(self):
        return len(self._dataset)

    def __iter__(self):
        return iter(self._dataset)
