"""determined.core stand-in (the Core API of Determined 0.2x) for one CPU process.

Written for Portolan from the documented API surface: `core.init()` gives a Context with
`distributed`, `train`, `checkpoint`, `preempt` and `searcher`; `DistributedContext` and its
`from_torch_distributed` / `from_horovod` / `from_deepspeed` constructors, which scripts of the
Trainer API pass to `det.pytorch.init(distributed=...)`. A dry run is one process: rank 0 of 1,
never preempted, metrics reported nowhere (the dry run's own events say what happened),
checkpoints written to a scratch folder of the dry run.
"""
import contextlib
import os
import pathlib
import tempfile
import uuid

import _portolan_hooks as hooks


class DistributedContext:
    """Rank 0 of a one-process job, whatever the launcher would have started."""

    def __init__(self, *, rank=0, size=1, local_rank=0, local_size=1, cross_rank=0,
                 cross_size=1, chief_ip=None, pub_port=None, pull_port=None,
                 port_offset=0, force_tcp=False):
        self.rank, self.size = 0, 1
        self.local_rank, self.local_size = 0, 1
        self.cross_rank, self.cross_size = 0, 1
        self._chief_ip = chief_ip

    @classmethod
    def from_torch_distributed(cls, chief_ip=None):
        return cls(chief_ip=chief_ip)

    @classmethod
    def from_horovod(cls, hvd, chief_ip=None):
        return cls(chief_ip=chief_ip)

    @classmethod
    def from_deepspeed(cls, chief_ip=None):
        return cls(chief_ip=chief_ip)

    def get_rank(self):
        return 0

    def get_size(self):
        return 1

    def get_local_rank(self):
        return 0

    def get_local_size(self):
        return 1

    def get_cross_rank(self):
        return 0

    def get_cross_size(self):
        return 1

    def allgather(self, stuff):
        return [stuff]

    def gather(self, stuff):
        return [stuff]

    def broadcast(self, stuff):
        return stuff

    allgather_local = allgather
    gather_local = gather
    broadcast_local = broadcast

    def close(self):
        pass


class TrainContext:
    def report_training_metrics(self, steps_completed, metrics, batch_metrics=None):
        pass

    def report_validation_metrics(self, steps_completed, metrics):
        pass

    def report_progress(self, progress):
        pass

    def report_early_exit(self, reason):
        pass

    def set_status(self, status):
        pass

    def get_experiment_best_validation(self):
        return None


class CheckpointContext:
    """Checkpoints go to a scratch folder of the dry run (nothing is uploaded)."""

    def __init__(self):
        self._root = os.path.join(tempfile.gettempdir(), f"portolan-checkpoints-{os.getpid()}")

    def _path(self, storage_id):
        return pathlib.Path(self._root) / storage_id

    @contextlib.contextmanager
    def store_path(self, metadata=None, shard=False):
        storage_id = str(uuid.uuid4())
        path = self._path(storage_id)
        os.makedirs(path, exist_ok=True)
        yield path, storage_id

    @contextlib.contextmanager
    def restore_path(self, storage_id, selector=None):
        yield self._path(storage_id)

    def upload(self, ckpt_dir, metadata=None, shard=False, selector=None):
        return str(uuid.uuid4())

    def download(self, storage_id, ckpt_dir, download_mode=None, selector=None):
        os.makedirs(ckpt_dir, exist_ok=True)

    def get_metadata(self, storage_id):
        return {}


class PreemptContext:
    def should_preempt(self, auto_ack=True):
        return False

    def acknowledge_preemption_signal(self):
        pass


class SearcherOperation:
    """One operation: train to `length` (in the searcher's units) and report."""

    def __init__(self, length):
        self.length = length

    def report_progress(self, length):
        pass

    def report_completed(self, searcher_metric):
        pass


class SearcherContext:
    def __init__(self, length=1):
        self._length = length

    def operations(self, searcher_mode=None, auto_ack=True):
        yield SearcherOperation(self._length)

    def acknowledge_out_of_ops(self):
        pass

    def get_configured_units(self):
        return None


def searcher_length(config):
    """The length the searcher asks a trial to train to: searcher.max_length ({unit: n} or n)
    or max_time (newer configs), else 1; in the config's own units."""
    searcher = (config or {}).get("searcher") or {}
    length = searcher.get("max_length", searcher.get("max_time"))
    if isinstance(length, dict) and length:
        length = next(iter(length.values()))
    return length if isinstance(length, int) and length > 0 else 1


class Context:
    def __init__(self, distributed=None):
        import determined

        self.distributed = distributed or DistributedContext()
        self.train = TrainContext()
        self.checkpoint = CheckpointContext()
        self.preempt = PreemptContext()
        self.searcher = SearcherContext(searcher_length(hooks.determined_experiment))
        self.info = determined.get_cluster_info()

    def close(self):
        pass


@contextlib.contextmanager
def init(*, distributed=None, checkpoint_storage=None, preempt_mode=None,
         tensorboard_mode=None, async_upload=False):
    """The Core API's context, for one CPU process."""
    yield Context(distributed)
