"""Train or evaluate the alphabet transformer through the Model Zoo runner.

    python run.py CPU --mode train --params configs/params.yaml
    python run.py CSX --mode train_and_eval --params configs/params.yaml
"""
from modelzoo.common.pytorch.run_utils import run

from data import get_eval_dataloader, get_train_dataloader
from model import AlphabetTransformerWrapper
from utils import set_defaults


def main():
    run(
        model_fn=AlphabetTransformerWrapper,
        train_data_fn=get_train_dataloader,
        eval_data_fn=get_eval_dataloader,
        default_params_fn=set_defaults,
    )


if __name__ == "__main__":
    main()
