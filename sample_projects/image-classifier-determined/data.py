"""CIFAR-10 datasets for the trial: the binary batches when present in the
data directory, otherwise a deterministic synthetic stand-in.

The binary format (cifar-10-batches-bin) is a flat run of 3073-byte
records: one label byte, then the red, green and blue 32x32 planes.
Nothing is downloaded, so trials also start on clusters without internet.
"""
import os

import torch
import torch.nn.functional as F
from torch.utils.data import Dataset, TensorDataset

NUM_CLASSES = 10
RECORD_BYTES = 1 + 3 * 32 * 32
TRAIN_FILES = [f"data_batch_{i}.bin" for i in range(1, 6)]
TEST_FILES = ["test_batch.bin"]


def _read_cifar_bin(paths):
    raw = bytearray()
    for path in paths:
        with open(path, "rb") as stream:
            raw += stream.read()
    if len(raw) % RECORD_BYTES:
        raise ValueError("CIFAR file size is not a multiple of 3073 bytes")
    records = torch.frombuffer(raw, dtype=torch.uint8)
    records = records.reshape(-1, RECORD_BYTES)
    images = records[:, 1:].reshape(-1, 3, 32, 32).float().div(255.0)
    return TensorDataset(images, records[:, 0].long())


class SyntheticCIFAR(Dataset):
    """Per-class smooth colour templates under per-sample noise.

    Sample i is generated on demand from its own seed: no memory cost for
    a full 50,000-sample epoch, and every worker sees the same images.
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
        return (image * 255).round() / 255, label


def load_cifar(data_dir, split, synthetic_samples, seed):
    """Dataset of (float image [3, 32, 32], label) for "train" or "test".

    The synthetic test split is a fifth of the training split, the ratio of
    the real data set.
    """
    names = TRAIN_FILES if split == "train" else TEST_FILES
    present = [os.path.join(data_dir, name) for name in names
               if os.path.exists(os.path.join(data_dir, name))]
    if present:
        return _read_cifar_bin(present)
    count = synthetic_samples if split == "train" else synthetic_samples // 5
    print(f"{split}: no CIFAR-10 batches in {data_dir}, "
          f"using {count} synthetic samples")
    return SyntheticCIFAR(max(count, 1), seed, split)
