#!/usr/bin/python3
"""PyTorch side of bench_train: the sample projects' own Python models, trained on CPU.

    /usr/bin/python3 bench_train_pytorch.py --model mlp --batch 64 --steps 300 --threads 1

Prints one JSON line: {"model", "batch", "threads", "steps", "samples_per_sec", "loop"}.
Models come from the original sample projects (mnist-mlp-original/train.py MLP,
alphabet-transformer-original/model.py), hyperparameters from the ported projects' params
files, so both sides train the same network. Two loops:
  tight   - batches cut from in-memory tensors by a seeded permutation, like the LibTorch runtime
  sample  - torch.utils.data.DataLoader over a TensorDataset, as the samples' training scripts do
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.nn as nn
import yaml

SAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "sample_projects")


def load_model_params(project):
    with open(os.path.join(SAMPLES, project, "configs", "params.yaml")) as f:
        return yaml.safe_load(f)


def build(model_kind):
    if model_kind == "mlp":
        sys.path.insert(0, os.path.join(SAMPLES, "mnist-mlp-original"))
        from train import MLP  # noqa: E402  (main() is guarded)
        from mnist_data import synthetic_mnist  # noqa: E402
        p = load_model_params("mnist-mlp-cerebras-pytorch")
        m = p["model"]
        model = MLP(m["depth"], m["hidden_size"], m["activation_fn"], m["dropout"])
        optimizer = torch.optim.SGD(model.parameters(), lr=p["optimizer"]["learning_rate"],
                                    momentum=p["optimizer"]["momentum"])
        images, labels = synthetic_mnist(p["train_input"]["synthetic_samples"], 1, "train")
        inputs = images.float().div(255.0)
        clip = p["optimizer"]["max_gradient_norm"]
        return model, optimizer, inputs, labels, clip, None, False

    sys.path.insert(0, os.path.join(SAMPLES, "alphabet-transformer-original"))
    from model import AlphabetTransformer  # noqa: E402
    from train import alphabet_dataset  # noqa: E402
    p = load_model_params("alphabet-transformer-cerebras-layers")
    m = p["model"]
    model = AlphabetTransformer(m["vocab_size"], m["embedding_size"], m["num_heads"],
                                m["num_hidden_layers"], m["hidden_size"], m["dropout"],
                                m["nonlinearity"], m["seq_len"])
    optimizer = torch.optim.Adam(model.parameters(), lr=p["optimizer"]["learning_rate"])
    data = alphabet_dataset(p["train_input"]["num_samples"], m["seq_len"], m["vocab_size"], 1)
    inputs, labels = data.tensors
    return model, optimizer, inputs, labels, 0.0, m["vocab_size"], True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "transformer"], required=True)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--loop", choices=["tight", "sample"], default="tight")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    model, optimizer, inputs, labels, clip, vocab, seq_first = build(args.model)
    loss_fn = nn.CrossEntropyLoss()
    model.train()

    def batches():
        if args.loop == "sample":
            loader = torch.utils.data.DataLoader(
                torch.utils.data.TensorDataset(inputs, labels), batch_size=args.batch,
                shuffle=True, drop_last=True)
            while True:
                yield from loader
        gen = torch.Generator().manual_seed(7)
        while True:
            order = torch.randperm(inputs.size(0), generator=gen)
            for start in range(0, inputs.size(0) - args.batch + 1, args.batch):
                idx = order[start:start + args.batch]
                yield inputs.index_select(0, idx), labels.index_select(0, idx)

    def step(x, y):
        if seq_first:  # the original transformer is sequence-first, as its train.py feeds it
            x, y = x.t(), y.t()
        optimizer.zero_grad()
        logits = model(x)
        if vocab:
            loss = loss_fn(logits.reshape(-1, vocab), y.reshape(-1))
        else:
            loss = loss_fn(logits, y)
        loss.backward()
        if clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        return loss.item()

    stream = batches()
    for _ in range(args.warmup):
        step(*next(stream))
    start = time.perf_counter()
    for _ in range(args.steps):
        step(*next(stream))
    seconds = time.perf_counter() - start
    print(json.dumps({"model": args.model, "batch": args.batch, "threads": args.threads,
                      "steps": args.steps, "loop": args.loop,
                      "samples_per_sec": args.steps * args.batch / seconds}))


if __name__ == "__main__":
    main()
