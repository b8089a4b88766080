"""Train a small convolutional network on CIFAR-10.

Single process:   python3 train.py --epochs 2
Several workers:  torchrun --nproc_per_node 2 train.py --distributed
Without CIFAR binary batches in --data-dir a synthetic stand-in is used.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from cifar_data import NUM_CLASSES, load_cifar


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


def parse_args():
    parser = argparse.ArgumentParser(description="CIFAR-10 small conv net")
    parser.add_argument("--data-dir", default="./cifar-10-batches-bin")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--learning-rate", type=float, default=0.03)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--weight-decay", type=float, default=5e-4)
    parser.add_argument("--lr-step-size", type=int, default=1)
    parser.add_argument("--lr-gamma", type=float, default=0.5)
    parser.add_argument("--conv1-channels", type=int, default=16)
    parser.add_argument("--conv2-channels", type=int, default=32)
    parser.add_argument("--hidden-size", type=int, default=128)
    parser.add_argument("--dropout", type=float, default=0.25)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--log-steps", type=int, default=10)
    parser.add_argument("--synthetic-samples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--checkpoint-every", type=int, default=0,
                        help="save every N epochs (0: never)")
    parser.add_argument("--checkpoint-dir", default="./checkpoints")
    return parser.parse_args()


def make_dataset(args, split):
    dataset, synthetic = load_cifar(args.data_dir, split,
                                    args.synthetic_samples, args.seed)
    if synthetic:
        print(f"{split}: no CIFAR-10 batches in {args.data_dir}, "
              f"using {len(dataset)} synthetic samples")
    return dataset


def evaluate(model, loader, loss_fn, use_cuda):
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for images, labels in loader:
            if use_cuda:
                images, labels = images.cuda(), labels.cuda()
            logits = model(images)
            total_loss += loss_fn(logits, labels).item() * labels.numel()
            correct += (logits.argmax(dim=1) == labels).sum().item()
            count += labels.numel()
    return total_loss / count, correct / count


def save_checkpoint(model, optimizer, epoch):
    os.makedirs(checkpoint_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(),
                "optimizer": optimizer.state_dict()},
               os.path.join(checkpoint_dir, f"epoch_{epoch}.pt"))


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    checkpoint_dir = args.checkpoint_dir
    use_cuda = torch.cuda.is_available()
    if args.distributed:
        dist.init_process_group(backend="nccl" if use_cuda else "gloo",
                                init_method="env://")
        local_rank = int(os.environ.get("LOCAL_RANK", 0))
        if use_cuda:
            torch.cuda.set_device(local_rank)

    model = SmallConvNet(args.conv1_channels, args.conv2_channels,
                         args.hidden_size, args.dropout)
    if use_cuda:
        model = model.cuda()
    if args.distributed:
        model = DistributedDataParallel(
            model, device_ids=[local_rank] if use_cuda else None)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.learning_rate,
                                momentum=args.momentum,
                                weight_decay=args.weight_decay)
    scheduler = StepLR(optimizer, step_size=args.lr_step_size,
                       gamma=args.lr_gamma)
    loss_fn = nn.CrossEntropyLoss()

    train_set = make_dataset(args, "train")
    sampler = DistributedSampler(train_set) if args.distributed else None
    train_loader = DataLoader(train_set, batch_size=args.batch_size,
                              shuffle=sampler is None, sampler=sampler,
                              drop_last=True)
    test_loader = DataLoader(make_dataset(args, "test"),
                             batch_size=args.batch_size)

    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        model.train()
        for step, (images, labels) in enumerate(train_loader):
            if use_cuda:
                images, labels = images.cuda(), labels.cuda()
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            if step % args.log_steps == 0:
                print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}")
        scheduler.step()
        val_loss, accuracy = evaluate(model, test_loader, loss_fn, use_cuda)
        print(f"epoch {epoch}  validation_loss {val_loss:.4f}  accuracy "
              f"{accuracy:.3f}  next lr {scheduler.get_last_lr()[0]:g}")
        if args.checkpoint_every and (epoch + 1) % args.checkpoint_every == 0:
            save_checkpoint(model, optimizer, epoch)

    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
