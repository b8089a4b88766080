"""cbtorch.core.modes (stand-in): the run modes of the Model Zoo runner."""
TRAIN = "train"
EVAL = "eval"
TRAIN_AND_EVAL = "train_and_eval"
INFERENCE = "inference"
EVAL_ALL = "eval_all"


def get_modes():
    return (TRAIN, EVAL, TRAIN_AND_EVAL, INFERENCE, EVAL_ALL)


def is_valid(mode):
    return mode in get_modes()
