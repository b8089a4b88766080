"""Determined stand-in for Portolan's CPU dry run, written for Portolan.

Follows the Determined 0.2x Python API (determined.pytorch.PyTorchTrial, PyTorchTrialContext
and friends, as documented for 0.21-0.26). Only what a trial needs to train on one CPU slot is
provided; a call with the wrong arity or an unknown keyword raises TypeError as the real
harness does, and unknown hyperparameters raise the harness's ValueError.
"""
from . import core, errors  # noqa: F401

__version__ = "0.26.0+portolan.standin"
PORTOLAN_STANDIN = True

# The log format the harness configures, which scripts of the Trainer and Core APIs reuse.
LOG_FORMAT = "%(levelname)s: [%(process)s] %(name)s: %(message)s"


class InvalidHP(Exception):
    """Raised by a trial to tell the searcher that a hyperparameter combination is invalid."""

    def __init__(self, explanation=""):
        super().__init__(explanation)
        self.explanation = explanation


class TrialContext:
    """The part of the trial context that does not depend on the framework."""


class TrialInfo:
    def __init__(self, config, hparams):
        self.trial_id = 1
        self.experiment_id = 1
        self.trial_seed = (config.get("reproducibility") or {}).get("experiment_seed", 0)
        self.hparams = hparams
        self.config = config
        self.steps_completed = 0
        self.trial_run_id = 1
        self.debug = False
        self.inter_node_network_interface = None


class ClusterInfo:
    """What a trial's container knows about its cluster (Determined 0.2x), for trial 1 of the
    experiment the dry run runs, on one local slot, with no checkpoint to resume from."""

    def __init__(self, config, hparams):
        self.master_url = "http://127.0.0.1:8080"
        self.cluster_id = "portolan-dry-run"
        self.agent_id = "local"
        self.slot_ids = [0]
        self.task_id = "1.1"
        self.allocation_id = "1.1.1"
        self.session_token = ""
        self.task_type = "TRIAL"
        self.master_cert_file = None
        self.master_cert_name = None
        self.latest_checkpoint = None
        self.container_addrs = ["127.0.0.1"]
        self.container_rank = 0
        self.container_slot_counts = [1]
        self.user_data = {}
        self.trial = TrialInfo(config, hparams)


_cluster_info = []


def get_cluster_info():
    """On a cluster, the trial's ClusterInfo. A dry run of one of an experiment's entrypoints
    stands in for trial 1 of that experiment (the config's hyperparameters as the dry run's
    test trial takes them, no checkpoint to resume), said once in a `cluster-info` warning;
    outside such a run (a script of its own) there is no cluster: None."""
    import _portolan_hooks as hooks

    config = hooks.determined_experiment
    if config is None:
        return None
    if not _cluster_info:
        from .pytorch import hparams_from_config

        hparams = hparams_from_config(config)
        _cluster_info.append(ClusterInfo(config, hparams))
        hooks.notify("warning", "det.get_cluster_info(): the dry run stands in for trial 1 of "
                     "the experiment config, on one local slot with no checkpoint to resume; "
                     "hyperparameters " + ", ".join(f"{k}={v}" for k, v in hparams.items()),
                     kind="cluster-info", hyperparameters=hparams)
    return _cluster_info[0]
