"""modelzoo.common.run_utils.cli_pytorch (stand-in following Model Zoo R1.9-R2.2): the
command line of a cstorch-generation run.py, `run.py {CPU,GPU,CSX} --params P --mode M`."""
import inspect
import os


def get_params_from_args(extra_args_parser_fn=None):
    from modelzoo.common.pytorch.run_utils import get_params_from_args as parse

    caller = inspect.stack()[1].filename
    return parse(os.path.dirname(os.path.abspath(caller)), extra_args_parser_fn)
