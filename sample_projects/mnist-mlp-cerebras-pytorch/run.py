"""Train or evaluate the MNIST MLP through the Cerebras Model Zoo runner.

    python run.py CPU --mode train --params configs/params.yaml
    python run.py CSX --mode train --params configs/params.yaml

The runner parses the command line, loads the params file, calls
set_defaults on it and drives the training loop on the chosen device.
"""
from modelzoo.common.pytorch.run_utils import run

from data import get_eval_dataloader, get_train_dataloader
from model import MNISTModelWrapper
from utils import set_defaults


def main():
    run(
        model_fn=MNISTModelWrapper,
        train_data_fn=get_train_dataloader,
        eval_data_fn=get_eval_dataloader,
        default_params_fn=set_defaults,
    )


if __name__ == "__main__":
    main()
