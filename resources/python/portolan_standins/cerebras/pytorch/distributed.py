"""cstorch.distributed (stand-in following cerebras.pytorch R2.1-R2.10): one process on the
CPU is the master, the only streamer and worker 0."""


def is_master_ordinal(local=False):
    return True


def get_ordinal():
    return 0


def num_tasks():
    return 1


def is_streamer():
    return True


def num_streamers():
    return 1


def get_streaming_rank():
    return 0


def num_receivers():
    return 1


def get_worker_state():
    raise RuntimeError("get_worker_state() is only defined inside a RestartableDataLoader's "
                       "state_dict()")


class ClusterConfig:
    """R2.2+ cluster configuration of the CSX backend; kept, not used on the CPU."""

    def __init__(self, mgmt_address=None, mgmt_namespace=None, credentials_path=None,
                 num_csx=1, max_wgt_servers=24, max_act_per_csx=1, num_workers_per_csx=0,
                 job_labels=None, job_time_sec=None, mount_dirs=None, python_paths=None,
                 disable_version_check=False, **kwargs):
        self.num_csx = num_csx
        self.mount_dirs = mount_dirs or []
        self.python_paths = python_paths or []
