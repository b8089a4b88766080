"""Reading params files (Model Zoo R1.8 modelzoo.common.run_utils.cli_parser)."""
import yaml


def read_params_file(params_file: str) -> dict:
    with open(params_file, "r") as stream:
        return yaml.safe_load(stream)


def get_params(params_file: str) -> dict:
    return read_params_file(params_file)
