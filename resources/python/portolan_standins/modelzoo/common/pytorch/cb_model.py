"""cb_model (stand-in, Model Zoo R1.6-R1.8): the run is not on a Cerebras system.

use_cs() is False, so the project's own code takes its CPU/GPU branches, as it would with
`python run.py CPU ...` on the real Model Zoo.
"""


def use_cs():
    return False


def is_appliance():
    return False


def is_streamer():
    return False


def is_receiver():
    return False


def num_streamers():
    return 1


def num_receivers():
    return 1


def get_streaming_rank():
    return 0


def get_ordinal():
    return 0


def is_master_ordinal(local=False):
    return True


def is_sync_mode():
    return False


def num_tasks():
    return 1


def task_id():
    return 0
