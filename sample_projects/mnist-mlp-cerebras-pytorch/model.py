"""MNIST MLP for the Cerebras Model Zoo (classic PyTorch layout).

MNISTModel is an ordinary torch.nn.Module; MNISTModelWrapper is what the
Model Zoo runner instantiates. The runner owns the device, the optimizer,
backward and the weight update, so the wrapper only returns the loss.
"""
import torch.nn as nn

from modelzoo.common.pytorch.PyTorchBaseModel import PyTorchBaseModel

IMAGE_SIZE = 28
NUM_CLASSES = 10

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid,
               "gelu": nn.GELU}


class MNISTModel(nn.Module):
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


class MNISTModelWrapper(PyTorchBaseModel):
    def __init__(self, params, device=None):
        self.params = params
        self.model = MNISTModel(
            depth=params["model"]["depth"],
            hidden_size=params["model"]["hidden_size"],
            activation_fn=params["model"]["activation_fn"],
            dropout=params["model"]["dropout"],
        )
        self.loss_fn = nn.CrossEntropyLoss()
        # The base class builds the optimizer from params["optimizer"] and
        # moves the model to `device`, so both must exist before this call.
        super().__init__(params=params, model=self.model, device=device)

    def __call__(self, data):
        inputs, labels = data
        logits = self.model(inputs)
        return self.loss_fn(logits, labels)
