"""Input pipeline: MNIST IDX files from data_dir, or a synthetic stand-in.

Batches must keep a fixed shape on a CS system, hence drop_last_batch.
Nothing is downloaded; the synthetic data is deterministic for a given seed.
"""
import gzip
import os
import struct

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

IMAGE_SIZE = 28
NUM_CLASSES = 10

IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def _read_idx(path):
    """Parse one IDX file (raw or .gz) into a uint8 tensor, or return None."""
    if os.path.exists(path):
        stream = open(path, "rb")
    elif os.path.exists(path + ".gz"):
        stream = gzip.open(path + ".gz", "rb")
    else:
        return None
    with stream:
        raw = stream.read()
    zero, type_code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or type_code != 0x08:
        raise ValueError(f"{path}: expected an unsigned-byte IDX file")
    dims = struct.unpack(">" + "I" * ndim, raw[4:4 + 4 * ndim])
    body = bytearray(raw[4 + 4 * ndim:])
    return torch.frombuffer(body, dtype=torch.uint8).reshape(dims)


def _synthetic(num_samples, seed, split):
    # Per-class smooth templates shared by both splits (they depend on the
    # seed only); a sample is a quarter template, three quarters noise.
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


def _dataset(data_dir, split, synthetic_samples, seed):
    image_name, label_name = IDX_FILES[split]
    images = _read_idx(os.path.join(data_dir, image_name))
    labels = _read_idx(os.path.join(data_dir, label_name))
    if images is None or labels is None:
        print(f"{split}: no MNIST files in {data_dir}, "
              f"using {synthetic_samples} synthetic samples")
        images, labels = _synthetic(synthetic_samples, seed, split)
    return TensorDataset(images.float().div(255.0), labels.long())


def get_train_dataloader(params):
    dataset = _dataset(params["train_input"]["data_dir"], "train",
                       params["train_input"]["synthetic_samples"],
                       params["runconfig"]["seed"])
    return DataLoader(dataset,
                      batch_size=params["train_input"]["batch_size"],
                      shuffle=params["train_input"]["shuffle"],
                      drop_last=params["train_input"]["drop_last_batch"])


def get_eval_dataloader(params):
    dataset = _dataset(params["eval_input"]["data_dir"], "test",
                       params["eval_input"]["synthetic_samples"],
                       params["runconfig"]["seed"])
    return DataLoader(dataset,
                      batch_size=params["eval_input"]["batch_size"],
                      shuffle=params["eval_input"]["shuffle"],
                      drop_last=params["eval_input"]["drop_last_batch"])
