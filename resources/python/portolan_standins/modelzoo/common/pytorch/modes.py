"""Run modes of the Model Zoo runner (R1.6-R1.8)."""
TRAIN = "train"
EVAL = "eval"
EVAL_ALL = "eval_all"
TRAIN_AND_EVAL = "train_and_eval"
INFERENCE = "inference"

_MODES = [TRAIN, EVAL, EVAL_ALL, TRAIN_AND_EVAL, INFERENCE]


def get_modes():
    return list(_MODES)


def is_valid(mode):
    return mode in _MODES
