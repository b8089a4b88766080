"""cstorch.utils (stand-in following cerebras.pytorch R2.1-R2.4): data, tensorboard and the
R2.1 cluster configuration (CSConfig), which the CPU run keeps but does not use."""
from . import data  # noqa: F401
from . import tensorboard  # noqa: F401


class CSConfig:
    """R2.1 cstorch.utils.CSConfig: how to reach and size the cluster."""

    def __init__(self, mgmt_address=None, mgmt_namespace=None, credentials_path=None,
                 num_csx=1, max_wgt_servers=24, max_act_per_csx=1, num_workers_per_csx=0,
                 transfer_processes=None, job_labels=None, job_time_sec=None, mount_dirs=None,
                 python_paths=None, disable_version_check=False, debug_args=None,
                 precision_opt_level=None):
        self.num_csx = num_csx
        self.mount_dirs = mount_dirs or []
        self.python_paths = python_paths or []
        self.precision_opt_level = precision_opt_level
