"""Train a small CNN on MNIST (or a synthetic stand-in) with plain PyTorch.

Example:
    python3 train.py --epochs 1
"""
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

from mnist_data import IMAGE_SIZE, NUM_CLASSES, load_mnist

# Centre the pixels roughly around zero; with raw [0, 1] inputs the conv net
# sits on a long loss plateau before it starts to learn.
PIXEL_MEAN = 0.5
PIXEL_STD = 0.25


class SmallCNN(nn.Module):
    """Two conv/pool blocks (28 -> 14 -> 7) and two linear layers."""

    def __init__(self, conv1_channels, conv2_channels, kernel_size,
                 hidden_size, dropout):
        super().__init__()
        padding = kernel_size // 2  # keep 28x28 through each convolution
        self.conv1 = nn.Conv2d(1, conv1_channels, kernel_size, padding=padding)
        self.conv2 = nn.Conv2d(conv1_channels, conv2_channels, kernel_size,
                               padding=padding)
        self.pool = nn.MaxPool2d(2)
        self.relu = nn.ReLU()
        self.fc1 = nn.Linear(conv2_channels * (IMAGE_SIZE // 4) ** 2,
                             hidden_size)
        self.dropout = nn.Dropout(dropout)
        self.fc2 = nn.Linear(hidden_size, NUM_CLASSES)

    def forward(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.dropout(self.relu(self.fc1(x.flatten(start_dim=1))))
        return self.fc2(x)


def parse_args():
    parser = argparse.ArgumentParser(description="MNIST small CNN")
    parser.add_argument("--data-dir", default="./mnist")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--conv1-channels", type=int, default=8)
    parser.add_argument("--conv2-channels", type=int, default=16)
    parser.add_argument("--kernel-size", type=int, default=5)
    parser.add_argument("--hidden-size", type=int, default=64)
    parser.add_argument("--dropout", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--log-steps", type=int, default=10)
    parser.add_argument("--synthetic-samples", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    return parser.parse_args()


def make_loader(args, split, shuffle):
    images, labels, synthetic = load_mnist(
        args.data_dir, split, args.synthetic_samples, args.seed)
    if synthetic:
        print(f"{split}: no MNIST files in {args.data_dir}, "
              f"using {len(labels)} synthetic samples")
    inputs = images.float().div(255.0).unsqueeze(1)  # [N, 1, 28, 28]
    inputs = (inputs - PIXEL_MEAN) / PIXEL_STD
    return DataLoader(TensorDataset(inputs, labels),
                      batch_size=args.batch_size, shuffle=shuffle,
                      drop_last=shuffle)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = SmallCNN(args.conv1_channels, args.conv2_channels,
                     args.kernel_size, args.hidden_size,
                     args.dropout).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr,
                                momentum=args.momentum)
    criterion = nn.CrossEntropyLoss()
    train_loader = make_loader(args, "train", shuffle=True)
    test_loader = make_loader(args, "test", shuffle=False)

    for epoch in range(args.epochs):
        model.train()
        for step, (images, labels) in enumerate(train_loader):
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % args.log_steps == 0:
                print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}")

        model.eval()
        correct = total = 0
        with torch.no_grad():
            for images, labels in test_loader:
                predictions = model(images.to(device)).argmax(dim=1)
                correct += (predictions.cpu() == labels).sum().item()
                total += labels.numel()
        print(f"epoch {epoch}  test accuracy {correct / total:.3f}")


if __name__ == "__main__":
    main()
