"""MNIST for the sample projects: the real IDX files when they are present,
otherwise a deterministic synthetic stand-in of the same shape.

Nothing is ever downloaded. Put train-images-idx3-ubyte,
train-labels-idx1-ubyte, t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte
(optionally .gz) into the data directory to train on real MNIST.
"""
import gzip
import os
import struct

import torch
import torch.nn.functional as F

IMAGE_SIZE = 28
NUM_CLASSES = 10

IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def _open_maybe_gzipped(path):
    if os.path.exists(path):
        return open(path, "rb")
    if os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rb")
    return None


def read_idx(stream):
    """Parse one IDX file (big-endian header, unsigned bytes) into a tensor."""
    raw = stream.read()
    zero, type_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or type_code != 0x08:
        raise ValueError("expected an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    body = bytearray(raw[4 + 4 * ndim:])
    return torch.frombuffer(body, dtype=torch.uint8).reshape(dims)


def synthetic_mnist(num_samples, seed, split):
    """MNIST-shaped uint8 images and int64 labels, fully determined by seed.

    Each class gets a smooth random template (a 7x7 pattern upsampled to
    28x28); a sample is a quarter template, three quarters uniform noise, so
    the task is learnable but not solved in a few steps. The templates
    depend only on `seed`, so train and test share them, while the samples
    of each split come from their own generator.
    """
    template_gen = torch.Generator().manual_seed(seed)
    coarse = torch.rand(NUM_CLASSES, 1, 7, 7, generator=template_gen)
    templates = F.interpolate(coarse, size=(IMAGE_SIZE, IMAGE_SIZE),
                              mode="bilinear", align_corners=False)[:, 0]

    split_offset = 1 if split == "train" else 2
    sample_gen = torch.Generator().manual_seed(seed * 1000 + split_offset)
    labels = torch.randint(0, NUM_CLASSES, (num_samples,),
                           generator=sample_gen)
    noise = torch.rand(num_samples, IMAGE_SIZE, IMAGE_SIZE,
                       generator=sample_gen)
    images = 0.25 * templates[labels] + 0.75 * noise
    return (images * 255).round().to(torch.uint8), labels


def load_mnist(data_dir, split, synthetic_samples, seed):
    """Return (images uint8 [N, 28, 28], labels int64 [N], is_synthetic).

    `synthetic_samples` sizes the synthetic training split; the synthetic
    test split is a sixth of it, the same ratio as real MNIST (60k / 10k).
    """
    image_name, label_name = IDX_FILES[split]
    image_stream = _open_maybe_gzipped(os.path.join(data_dir, image_name))
    label_stream = _open_maybe_gzipped(os.path.join(data_dir, label_name))
    if image_stream is None or label_stream is None:
        count = synthetic_samples
        if split != "train":
            count = max(synthetic_samples // 6, 1)
        images, labels = synthetic_mnist(count, seed, split)
        return images, labels, True
    with image_stream, label_stream:
        images = read_idx(image_stream)
        labels = read_idx(label_stream).long()
    return images, labels, False
