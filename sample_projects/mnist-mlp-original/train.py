"""Train a small fully connected network on MNIST with plain PyTorch.

Example:
    python3 train.py --data-dir ./mnist --steps 200
Without MNIST files in --data-dir a synthetic stand-in is used.
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from mnist_data import IMAGE_SIZE, NUM_CLASSES, load_mnist

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid,
               "gelu": nn.GELU}


class MLP(nn.Module):
    """`depth` hidden layers of `hidden_size` units, then 10 logits."""

    def __init__(self, depth, hidden_size, activation_fn="relu", dropout=0.0):
        super().__init__()
        layers = []
        in_features = IMAGE_SIZE * IMAGE_SIZE
        for _ in range(depth):
            layers += [nn.Linear(in_features, hidden_size),
                       ACTIVATIONS[activation_fn](),
                       nn.Dropout(dropout)]
            in_features = hidden_size
        layers.append(nn.Linear(in_features, NUM_CLASSES))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x.flatten(start_dim=1))


def parse_args():
    parser = argparse.ArgumentParser(description="MNIST MLP")
    parser.add_argument("--data-dir", default="./mnist")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--max-gradient-norm", type=float, default=1.0)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--activation-fn", default="relu",
                        choices=sorted(ACTIVATIONS))
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--log-steps", type=int, default=10)
    parser.add_argument("--synthetic-samples", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def make_loader(args, split, shuffle):
    images, labels, synthetic = load_mnist(
        args.data_dir, split, args.synthetic_samples, args.seed)
    if synthetic:
        print(f"{split}: no MNIST files in {args.data_dir}, "
              f"using {len(labels)} synthetic samples")
    inputs = images.float().div(255.0)
    return DataLoader(TensorDataset(inputs, labels),
                      batch_size=args.batch_size, shuffle=shuffle,
                      drop_last=shuffle)


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for inputs, labels in loader:
            logits = model(inputs.to(device))
            correct += (logits.argmax(dim=1).cpu() == labels).sum().item()
            total += labels.numel()
    model.train()
    return correct / max(total, 1)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    device = torch.device("cpu")

    model = MLP(args.depth, args.hidden_size, args.activation_fn, args.dropout)
    if torch.cuda.is_available():
        model = model.cuda()
        device = torch.device("cuda")
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr,
                                momentum=args.momentum)
    loss_fn = nn.CrossEntropyLoss()
    train_loader = make_loader(args, "train", shuffle=True)
    test_loader = make_loader(args, "test", shuffle=False)

    step = 0
    while step < args.steps:
        for inputs, labels in train_loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            if args.max_gradient_norm > 0:
                nn.utils.clip_grad_norm_(model.parameters(),
                                         args.max_gradient_norm)
            optimizer.step()
            step += 1
            if step % args.log_steps == 0:
                print(f"step {step:5d}  loss {loss.item():.4f}")
            if step >= args.steps:
                break

    print(f"test accuracy {evaluate(model, test_loader, device):.3f}")


if __name__ == "__main__":
    main()
