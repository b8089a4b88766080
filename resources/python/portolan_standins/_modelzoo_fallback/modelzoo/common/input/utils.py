"""modelzoo.common.input.utils helpers (stand-in, Model Zoo R1.6-R1.8)."""
import os

import yaml


def check_and_create_output_dirs(output_dir, filetype):
    """Creates output_dir; refuses to mix with existing files of `filetype`."""
    os.makedirs(output_dir, exist_ok=True)
    existing = [f for f in os.listdir(output_dir) if f.endswith(filetype)]
    if existing:
        raise ValueError(f"{output_dir} already holds {filetype} files")


def save_params(params, model_dir, fname="params.yaml"):
    os.makedirs(model_dir, exist_ok=True)
    with open(os.path.join(model_dir, fname), "w") as f:
        yaml.dump(params, f, default_flow_style=False)
