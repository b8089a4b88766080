"""The small CNN, written for PopTorch.

PopTorch compiles forward, loss and backward into one IPU program, so the
training model computes its own loss inside forward.
"""
import torch.nn as nn
import poptorch

IMAGE_SIZE = 28
NUM_CLASSES = 10


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
        self.loss_fn = nn.CrossEntropyLoss()

    def forward(self, x, labels=None):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.dropout(self.relu(self.fc1(x.flatten(start_dim=1))))
        logits = self.fc2(x)
        if self.training:
            return logits, self.loss_fn(logits, labels)
        return logits


def split_over_two_ipus(model):
    """Pipeline annotation: convolutions on IPU 0, classifier on IPU 1.

    The classifier's first layer holds most of the weights, so this split
    also balances memory between the two IPUs.
    """
    model.fc1 = poptorch.BeginBlock(model.fc1, ipu_id=1)
    return model
