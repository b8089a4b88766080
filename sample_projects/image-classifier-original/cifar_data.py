"""CIFAR-10 for the sample projects: the binary batches when present,
otherwise a deterministic synthetic stand-in of the same shape.

The binary format (cifar-10-batches-bin) is a flat run of 3073-byte
records: one label byte, then 1024 red, 1024 green and 1024 blue pixel
bytes, each plane row-major. Nothing is ever downloaded.
"""
import os

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset, TensorDataset

NUM_CLASSES = 10
RECORD_BYTES = 1 + 3 * 32 * 32
TRAIN_FILES = [f"data_batch_{i}.bin" for i in range(1, 6)]
TEST_FILES = ["test_batch.bin"]


def read_cifar_bin(paths):
    """Read binary CIFAR batches into (uint8 [N, 3, 32, 32], int64 [N])."""
    raw = bytearray()
    for path in paths:
        with open(path, "rb") as stream:
            raw += stream.read()
    if len(raw) % RECORD_BYTES:
        raise ValueError("CIFAR file size is not a multiple of 3073 bytes")
    records = torch.frombuffer(raw, dtype=torch.uint8)
    records = records.reshape(-1, RECORD_BYTES)
    labels = records[:, 0].long()
    images = records[:, 1:].reshape(-1, 3, 32, 32).clone()
    return images, labels


class SyntheticCIFAR(Dataset):
    """CIFAR-shaped samples: a smooth colour template per class (shared by
    both splits) under stronger per-sample noise.

    Sample i is generated on demand from its own seed, so any size costs no
    memory and every epoch, worker and run sees the same images.
    """

    def __init__(self, num_samples, seed, split):
        template_gen = torch.Generator().manual_seed(seed)
        coarse = torch.rand(NUM_CLASSES, 3, 4, 4, generator=template_gen)
        self.templates = F.interpolate(coarse, size=(32, 32),
                                       mode="bilinear", align_corners=False)
        self.num_samples = num_samples
        self.base_seed = (seed * 1000 + (1 if split == "train" else 2)) << 32

    def __len__(self):
        return self.num_samples

    def __getitem__(self, index):
        gen = torch.Generator().manual_seed(self.base_seed + index)
        label = int(torch.randint(0, NUM_CLASSES, (1,), generator=gen))
        noise = torch.rand(3, 32, 32, generator=gen)
        image = 0.2 * self.templates[label] + 0.8 * noise
        # Quantise like real 8-bit pixels.
        return (image * 255).round() / 255, label


def load_cifar(data_dir, split, synthetic_samples, seed):
    """Return (dataset of (float image [3, 32, 32], label), is_synthetic).

    The synthetic test split is a fifth of the training split, the ratio of
    the real data set (50,000 / 10,000).
    """
    names = TRAIN_FILES if split == "train" else TEST_FILES
    present = [os.path.join(data_dir, name) for name in names
               if os.path.exists(os.path.join(data_dir, name))]
    if not present:
        count = synthetic_samples
        if split != "train":
            count = max(synthetic_samples // 5, 1)
        return SyntheticCIFAR(count, seed, split), True
    images, labels = read_cifar_bin(present)
    return TensorDataset(images.float().div(255.0), labels), False
