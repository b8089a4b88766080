"""Train or evaluate the MNIST MLP with the CerebrasEstimator.

    python run.py --mode train --params configs/params.yaml
    python run.py --mode train --params configs/params.yaml --cs_ip 10.0.0.2
    python run.py --mode eval --params configs/params.yaml

Without --cs_ip the same code runs on the CPU, which is the quickest way
to check a change before compiling for the CS system.
"""
import argparse

from modelzoo.common.tf.estimator.cs_estimator import CerebrasEstimator
from modelzoo.common.tf.estimator.run_config import CSRunConfig

from data import input_fn
from model import model_fn
from utils import get_params


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="configs/params.yaml")
    parser.add_argument("--mode", choices=["train", "eval"], default="train")
    parser.add_argument("--cs_ip", default=None,
                        help="address of the CS system; CPU if omitted")
    cli = parser.parse_args()

    params = get_params(cli.params)
    config = CSRunConfig(
        cs_ip=cli.cs_ip,
        model_dir=params["runconfig"]["model_dir"],
        tf_random_seed=params["runconfig"]["seed"],
        save_checkpoints_steps=params["runconfig"]["checkpoint_steps"],
        log_step_count_steps=params["runconfig"]["log_steps"],
    )
    estimator = CerebrasEstimator(
        model_fn=model_fn,
        model_dir=params["runconfig"]["model_dir"],
        config=config,
        params=params,
    )
    use_cs = cli.cs_ip is not None
    if cli.mode == "train":
        estimator.train(input_fn=input_fn,
                        max_steps=params["runconfig"]["max_steps"],
                        use_cs=use_cs)
    else:
        estimator.evaluate(input_fn=input_fn,
                           steps=params["runconfig"]["eval_steps"])


if __name__ == "__main__":
    main()
