"""MNIST as NumPy arrays: the IDX files from a directory when present,
otherwise a deterministic synthetic stand-in of the same shape.

Nothing is downloaded (tf.keras.datasets.mnist.load_data would need the
internet), so the script also works on offline machines.
"""
import gzip
import os

import numpy as np

IMAGE_SIZE = 28
NUM_CLASSES = 10

IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def read_idx(path):
    """Read one IDX file (raw or .gz) as a uint8 array, or return None."""
    if os.path.exists(path):
        opener, name = open, path
    elif os.path.exists(path + ".gz"):
        opener, name = gzip.open, path + ".gz"
    else:
        return None
    with opener(name, "rb") as stream:
        raw = stream.read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{name}: expected an unsigned-byte IDX file")
    ndim = raw[3]
    dims = np.frombuffer(raw, dtype=">u4", count=ndim, offset=4)
    return np.frombuffer(raw, dtype=np.uint8,
                         offset=4 + 4 * ndim).reshape(tuple(dims))


def synthetic_mnist(num_samples, seed, split):
    """A blocky 7x7 random template per class (shared by both splits),
    a quarter template and three quarters noise per sample."""
    templates = np.random.default_rng(seed).random((NUM_CLASSES, 7, 7))
    templates = np.kron(templates, np.ones((4, 4)))  # 7x7 -> 28x28
    rng = np.random.default_rng(seed * 1000 + (1 if split == "train" else 2))
    labels = rng.integers(0, NUM_CLASSES, size=num_samples)
    noise = rng.random((num_samples, IMAGE_SIZE, IMAGE_SIZE))
    images = 0.25 * templates[labels] + 0.75 * noise
    return np.round(images * 255).astype(np.uint8), labels.astype(np.int32)


def load_mnist(data_dir, split, synthetic_samples, seed):
    """Return (images uint8 [N, 28, 28], labels int32 [N], is_synthetic)."""
    image_name, label_name = IDX_FILES[split]
    images = read_idx(os.path.join(data_dir, image_name))
    labels = read_idx(os.path.join(data_dir, label_name))
    if images is None or labels is None:
        images, labels = synthetic_mnist(synthetic_samples, seed, split)
        return images, labels, True
    return images, labels.astype(np.int32), False
