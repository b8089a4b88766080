"""Train and validate the small CNN on Graphcore IPUs with PopTorch.

    python3 train.py --params configs/params.yaml
"""
import argparse

import poptorch
import torch
import yaml

from data import load_mnist
from model import SmallCNN, split_over_two_ipus

# Centre the pixels roughly around zero (same as the original project).
PIXEL_MEAN = 0.5
PIXEL_STD = 0.25


def make_dataset(data_dir, split, synthetic_samples, seed):
    images, labels, synthetic = load_mnist(data_dir, split,
                                           synthetic_samples, seed)
    if synthetic:
        print(f"{split}: using {len(labels)} synthetic samples")
    inputs = (images.float().div(255.0).unsqueeze(1) - PIXEL_MEAN) / PIXEL_STD
    return torch.utils.data.TensorDataset(inputs, labels)


def make_optimizer(params, model):
    if params["optimizer"]["optimizer_type"] == "SGD":
        return poptorch.optim.SGD(model.parameters(),
                                  lr=params["optimizer"]["learning_rate"],
                                  momentum=params["optimizer"]["momentum"])
    if params["optimizer"]["optimizer_type"] == "Adam":
        return poptorch.optim.Adam(model.parameters(),
                                   lr=params["optimizer"]["learning_rate"])
    raise ValueError("optimizer_type must be SGD or Adam")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="configs/params.yaml")
    with open(parser.parse_args().params) as stream:
        params = yaml.safe_load(stream)
    if params["model"]["name"] != "small_cnn":
        raise ValueError(f"unexpected model name {params['model']['name']!r}")
    seed = params["runconfig"]["seed"]
    torch.manual_seed(seed)

    model = SmallCNN(params["model"]["conv1_channels"],
                     params["model"]["conv2_channels"],
                     params["model"]["kernel_size"],
                     params["model"]["hidden_size"],
                     params["model"]["dropout"])

    # Each host-to-IPU transfer carries device_iterations batches, so the
    # IPU is not kept waiting for the host between steps.
    opts = poptorch.Options()
    opts.deviceIterations(params["runconfig"]["device_iterations"])
    opts.randomSeed(seed)
    if params["runconfig"]["pipeline_split"]:
        model = split_over_two_ipus(model)
        opts.setExecutionStrategy(poptorch.PipelinedExecution())
        opts.Training.gradientAccumulation(
            params["runconfig"]["gradient_accumulation"])

    train_loader = poptorch.DataLoader(
        opts,
        make_dataset(params["train_input"]["data_dir"], "train",
                     params["train_input"]["synthetic_samples"], seed),
        batch_size=params["train_input"]["batch_size"],
        shuffle=params["train_input"]["shuffle"])
    optimizer = make_optimizer(params, model)
    training_model = poptorch.trainingModel(model, options=opts,
                                            optimizer=optimizer)

    # Compiling up front reports out-of-memory before any data is read and
    # keeps compile time out of the first step's timing.
    images, labels = next(iter(train_loader))
    training_model.compile(images, labels)

    for epoch in range(params["runconfig"]["num_epochs"]):
        for step, (images, labels) in enumerate(train_loader):
            _, losses = training_model(images, labels)
            if step % params["runconfig"]["log_steps"] == 0:
                print(f"epoch {epoch} step {step:4d}  "
                      f"loss {losses.mean().item():.4f}")
    training_model.detachFromDevice()

    eval_opts = poptorch.Options()
    eval_opts.deviceIterations(params["runconfig"]["device_iterations"])
    if params["runconfig"]["pipeline_split"]:
        eval_opts.setExecutionStrategy(poptorch.PipelinedExecution())
    eval_loader = poptorch.DataLoader(
        eval_opts,
        make_dataset(params["eval_input"]["data_dir"], "test",
                     params["eval_input"]["synthetic_samples"], seed),
        batch_size=params["eval_input"]["batch_size"],
        shuffle=params["eval_input"]["shuffle"])
    inference_model = poptorch.inferenceModel(model.eval(), options=eval_opts)
    correct = total = 0
    for images, labels in eval_loader:
        predictions = inference_model(images).argmax(dim=1)
        correct += (predictions == labels).sum().item()
        total += labels.numel()
    inference_model.detachFromDevice()
    print(f"test accuracy {correct / total:.3f}")


if __name__ == "__main__":
    main()
