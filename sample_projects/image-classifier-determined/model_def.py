"""The small CIFAR-10 conv net as a Determined PyTorchTrial.

Determined owns the training loop, device placement, distributed training
and checkpointing; the trial only says how to build things and what one
batch of training or validation does.
"""
from typing import Any, Dict

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

from determined.pytorch import (
    DataLoader,
    LRScheduler,
    PyTorchTrial,
    PyTorchTrialContext,
)

import data

NUM_CLASSES = 10


class SmallConvNet(nn.Module):
    def __init__(self, conv1_channels, conv2_channels, hidden_size, dropout):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, conv1_channels, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(conv1_channels, conv2_channels, kernel_size=3,
                      padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(conv2_channels * 8 * 8, hidden_size),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_size, NUM_CLASSES),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


class CIFARTrial(PyTorchTrial):
    def __init__(self, context: PyTorchTrialContext) -> None:
        self.context = context
        self.data_config = context.get_data_config()

        self.model = context.wrap_model(SmallConvNet(
            conv1_channels=context.get_hparam("conv1_channels"),
            conv2_channels=context.get_hparam("conv2_channels"),
            hidden_size=context.get_hparam("hidden_size"),
            dropout=context.get_hparam("dropout"),
        ))
        self.optimizer = context.wrap_optimizer(torch.optim.SGD(
            self.model.parameters(),
            lr=context.get_hparam("learning_rate"),
            momentum=context.get_hparam("momentum"),
            weight_decay=context.get_hparam("weight_decay"),
        ))
        # Wrapped schedulers are checkpointed with the trial and stepped by
        # Determined at each epoch boundary, as StepLR was in the old loop.
        self.lr_scheduler = context.wrap_lr_scheduler(
            StepLR(self.optimizer,
                   step_size=context.get_hparam("lr_step_size"),
                   gamma=context.get_hparam("lr_gamma")),
            step_mode=LRScheduler.StepMode.STEP_EVERY_EPOCH,
        )
        self.loss_fn = nn.CrossEntropyLoss()

    def _dataset(self, split):
        return data.load_cifar(self.data_config["data_dir"], split,
                               self.data_config["synthetic_samples"],
                               self.data_config["synthetic_seed"])

    def build_training_data_loader(self) -> DataLoader:
        # Per-slot batch = global_batch_size / slots_per_trial.
        return DataLoader(self._dataset("train"),
                          batch_size=self.context.get_per_slot_batch_size(),
                          shuffle=True, drop_last=True)

    def build_validation_data_loader(self) -> DataLoader:
        return DataLoader(self._dataset("test"),
                          batch_size=self.context.get_per_slot_batch_size())

    def train_batch(self, batch: Any, epoch_idx: int,
                    batch_idx: int) -> Dict[str, torch.Tensor]:
        images, labels = batch
        loss = self.loss_fn(self.model(images), labels)
        self.context.backward(loss)
        self.context.step_optimizer(self.optimizer)
        return {"loss": loss}

    def evaluate_batch(self, batch: Any,
                       batch_idx: int) -> Dict[str, torch.Tensor]:
        images, labels = batch
        logits = self.model(images)
        accuracy = (logits.argmax(dim=1) == labels).float().mean()
        return {"validation_loss": self.loss_fn(logits, labels),
                "accuracy": accuracy}
