"""input_fn for the CerebrasEstimator: MNIST IDX files from data_dir, or a
deterministic synthetic stand-in when they are missing (no downloads).

The CS system needs an endless stream of fixed-shape batches: the dataset
repeats forever (training length is max_steps) and drops partial batches.
"""
import gzip
import os

import numpy as np
import tensorflow as tf

IMAGE_SIZE = 28
NUM_CLASSES = 10

IDX_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def _read_idx(path):
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


def _synthetic(num_samples, seed, split):
    # Blocky per-class templates shared by both splits; a quarter template,
    # three quarters noise per sample (same recipe as the original project).
    templates = np.random.default_rng(seed).random((NUM_CLASSES, 7, 7))
    templates = np.kron(templates, np.ones((4, 4)))
    rng = np.random.default_rng(seed * 1000 + (1 if split == "train" else 2))
    labels = rng.integers(0, NUM_CLASSES, size=num_samples)
    noise = rng.random((num_samples, IMAGE_SIZE, IMAGE_SIZE))
    images = 0.25 * templates[labels] + 0.75 * noise
    return np.round(images * 255).astype(np.uint8), labels


def _load(data_dir, split, synthetic_samples, seed):
    image_name, label_name = IDX_FILES[split]
    images = _read_idx(os.path.join(data_dir, image_name))
    labels = _read_idx(os.path.join(data_dir, label_name))
    if images is None or labels is None:
        print(f"{split}: no MNIST files in {data_dir}, "
              f"using {synthetic_samples} synthetic samples")
        images, labels = _synthetic(synthetic_samples, seed, split)
    return images.astype(np.float32) / 255.0, labels.astype(np.int32)


def input_fn(params, mode=tf.estimator.ModeKeys.TRAIN):
    """Return a tf.data.Dataset of (features [B, 28, 28], labels [B])."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    if training:
        images, labels = _load(params["train_input"]["data_dir"], "train",
                               params["train_input"]["synthetic_samples"],
                               params["runconfig"]["seed"])
        batch_size = params["train_input"]["batch_size"]
    else:
        images, labels = _load(params["eval_input"]["data_dir"], "test",
                               params["eval_input"]["synthetic_samples"],
                               params["runconfig"]["seed"])
        batch_size = params["eval_input"]["batch_size"]

    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    if training:
        dataset = dataset.shuffle(params["train_input"]["shuffle_buffer"],
                                  seed=params["runconfig"]["seed"])
        dataset = dataset.repeat()
    dataset = dataset.batch(batch_size, drop_remainder=True)
    return dataset.prefetch(tf.data.experimental.AUTOTUNE)
