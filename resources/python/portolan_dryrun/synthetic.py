"""Synthetic data for a dry run whose project data is not present. Never silent: every fake
is announced by a warning event that says what it replaces and with which shapes.

Two sources of shapes:
- torchvision's data sets, whose image size and class count are fixed by the data set: when
  one cannot load (files absent, download refused), the same class is filled with random images
  of that size and goes through the project's own transforms (install_vision_fallbacks); a
  segmentation data set (Cityscapes) gets a few random frames and label maps as files;
- the model's first layer, when the project's loader itself cannot be built: a batch that the
  first layer accepts, probed by forward passes without gradients (candidates).
"""
import inspect

import torch

import _portolan_hooks as hooks

# name: (PIL mode, height, width, classes)
VISION = {
    "MNIST": ("L", 28, 28, 10),
    "FashionMNIST": ("L", 28, 28, 10),
    "KMNIST": ("L", 28, 28, 10),
    "QMNIST": ("L", 28, 28, 10),
    "EMNIST": ("L", 28, 28, 47),
    "CIFAR10": ("RGB", 32, 32, 10),
    "CIFAR100": ("RGB", 32, 32, 100),
    "SVHN": ("RGB", 32, 32, 10),
    "STL10": ("RGB", 96, 96, 10),
}
TRAIN_SAMPLES = 1024
TEST_SAMPLES = 256
# Segmentation data sets read image files by path: name: (height, width, label ids). Few
# samples, written as files under .portolan/dryrun/synthetic-data (Cityscapes' frames are 1024 x
# 2048 with 34 label ids).
SEGMENTATION = {"Cityscapes": (1024, 2048, 34)}
SEGMENTATION_SAMPLES = {True: 4, False: 2}


def _fill(dataset, name, bound, error, session):
    import numpy as np
    from torchvision.datasets.vision import VisionDataset

    mode, h, w, classes = VISION[name]
    args = bound.arguments
    root = args.get("root", ".")
    split = args.get("split")
    train = args.get("train", True) if split is None else split in ("train", "unlabeled",
                                                                     "train+unlabeled")
    n = TRAIN_SAMPLES if train else TEST_SAMPLES
    gen = torch.Generator().manual_seed(1 if train else 2)
    channels = 1 if mode == "L" else 3
    pixels = torch.randint(0, 256, (n, h, w, channels), dtype=torch.uint8, generator=gen)
    labels = torch.randint(0, classes, (n,), generator=gen)
    VisionDataset.__init__(dataset, root, transform=args.get("transform"),
                           target_transform=args.get("target_transform"))
    # The replay's record says the samples of an epoch are made up (replay.py).
    dataset._portolan_synthetic = True
    if name in ("SVHN", "STL10"):
        dataset.data = pixels.permute(0, 3, 1, 2).contiguous().numpy()
        dataset.labels = labels.numpy().astype(np.int64)
        dataset.split = split or ("train" if train else "test")
    elif mode == "L":
        dataset.data = pixels[..., 0]
        dataset.targets = labels
        dataset.train = train
    else:
        dataset.data = pixels.numpy()
        dataset.targets = labels.tolist()
        dataset.train = train
        dataset.classes = [str(i) for i in range(classes)]
        dataset.class_to_idx = {c: i for i, c in enumerate(dataset.classes)}
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    session.events.emit(
        "warning", kind="synthetic-data",
        message=(f"{'train' if train else 'eval'} data is synthetic: torchvision.datasets."
                 f"{name} could not load from {root} ({reason}); using {n} random "
                 f"{h}x{w} {'grey' if mode == 'L' else 'colour'} images with {classes} "
                 "classes, through the project's own transforms"),
        dataset=f"torchvision.datasets.{name}", samples=n, shape=[channels, h, w],
        classes=classes)
    session.synthetic = True


def _fill_segmentation(dataset, name, bound, error, session):
    """Random frames and label maps, as files of the data set's own layout and size, listed in
    the attributes its __getitem__ reads (images, targets per target type)."""
    import json
    import os

    from PIL import Image
    from torchvision.datasets.vision import VisionDataset

    h, w, classes = SEGMENTATION[name]
    args = bound.arguments
    split = args.get("split", "train")
    train = split == "train"
    kinds = args.get("target_type", "instance")
    kinds = [kinds] if isinstance(kinds, str) else list(kinds)
    folder = os.path.join(os.getcwd(), ".portolan", "dryrun", "synthetic-data",
                          f"torchvision-{name}", split)
    os.makedirs(folder, exist_ok=True)
    gen = torch.Generator().manual_seed(3 if train else 4)
    images, targets = [], []
    for i in range(SEGMENTATION_SAMPLES[train]):
        image = os.path.join(folder, f"frame{i:03d}.png")
        if not os.path.isfile(image):
            pixels = torch.randint(0, 256, (h, w, 3), dtype=torch.uint8, generator=gen)
            Image.fromarray(pixels.numpy(), "RGB").save(image, compress_level=1)
        ids = torch.randint(0, classes, (h, w), dtype=torch.uint8, generator=gen).numpy()
        paths = []
        for kind in kinds:
            path = os.path.join(folder, f"frame{i:03d}_{kind}" +
                                (".json" if kind == "polygon" else ".png"))
            if not os.path.isfile(path):
                if kind == "polygon":
                    with open(path, "w", encoding="utf-8") as f:
                        json.dump({"imgHeight": h, "imgWidth": w, "objects": []}, f)
                elif kind == "color":
                    Image.fromarray(ids, "L").convert("RGBA").save(path, compress_level=1)
                elif kind == "instance":
                    Image.fromarray(ids.astype("int32"), "I").save(path, compress_level=1)
                else:
                    Image.fromarray(ids, "L").save(path, compress_level=1)
            paths.append(path)
        images.append(image)
        targets.append(paths)
    VisionDataset.__init__(dataset, args.get("root", "."), args.get("transforms"),
                           args.get("transform"), args.get("target_transform"))
    dataset.split = split
    dataset.mode = "gtFine" if args.get("mode", "fine") == "fine" else "gtCoarse"
    dataset.target_type = kinds
    dataset.images_dir = dataset.targets_dir = folder
    dataset.images, dataset.targets = images, targets
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    session.events.emit(
        "warning", kind="synthetic-data",
        message=(f"{'train' if train else 'eval'} data is synthetic: torchvision.datasets."
                 f"{name} could not load from {args.get('root')} ({reason}); using "
                 f"{len(images)} random {h}x{w} colour frames with {classes} label ids "
                 f"({', '.join(kinds)}), through the project's own transforms"),
        dataset=f"torchvision.datasets.{name}", samples=len(images), shape=[3, h, w],
        classes=classes)
    session.synthetic = True


def install_vision_fallbacks(session):
    """Makes torchvision's fixed-shape data sets fall back to random images of their shape."""
    try:
        import torchvision.datasets as datasets
    except ImportError:
        return False
    for name in list(VISION) + list(SEGMENTATION):
        cls = getattr(datasets, name, None)
        if cls is None or getattr(cls.__init__, "_portolan", False):
            continue
        original = cls.__init__
        signature = inspect.signature(original)

        def make(original, signature, name):
            def __init__(self, *args, **kwargs):
                try:
                    original(self, *args, **kwargs)
                except Exception as error:  # noqa: BLE001 - any failure to load the data
                    try:
                        bound = signature.bind(self, *args, **kwargs)
                    except TypeError:
                        raise error from None
                    bound.apply_defaults()
                    own = type(self).__name__
                    if name in SEGMENTATION:
                        _fill_segmentation(self, name, bound, error, session)
                    else:
                        _fill(self, own if own in VISION else name, bound, error, session)

            __init__._portolan = True
            __init__.__doc__ = original.__doc__
            __init__.__signature__ = signature
            return __init__

        cls.__init__ = make(original, signature, name)
    return True


# --------------------------------------------------------------------------- model-based
SIZES_2D = [28, 32, 64, 96, 128, 224, 256, 16, 8]
SEQ_LENGTHS = [32, 16, 128, 8, 64]


def _first_layers(model, limit=3):
    out = []
    for module in model.modules():
        if any(True for _ in module.children()):
            continue
        if not any(True for _ in module.parameters(recurse=False)):
            continue
        if isinstance(module, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d,
                               torch.nn.Linear, torch.nn.Embedding, torch.nn.RNNBase,
                               torch.nn.Bilinear)):
            out.append(module)
        if len(out) >= limit:
            break
    return out


def _inputs_for(layer, batch):
    """Candidate inputs for a model starting with `layer` (a few spatial sizes or lengths)."""
    if isinstance(layer, torch.nn.Conv2d):
        for s in SIZES_2D:
            yield f"[{batch}, {layer.in_channels}, {s}, {s}] float32 images", \
                torch.randn(batch, layer.in_channels, s, s)
    elif isinstance(layer, torch.nn.Conv1d):
        for s in SEQ_LENGTHS:
            yield f"[{batch}, {layer.in_channels}, {s}] float32", \
                torch.randn(batch, layer.in_channels, s)
    elif isinstance(layer, torch.nn.Conv3d):
        for s in (16, 32, 8, 64):
            yield f"[{batch}, {layer.in_channels}, {s}, {s}, {s}] float32", \
                torch.randn(batch, layer.in_channels, s, s, s)
    elif isinstance(layer, torch.nn.Linear):
        yield f"[{batch}, {layer.in_features}] float32", torch.randn(batch, layer.in_features)
        for s in (SEQ_LENGTHS[0],):
            yield f"[{batch}, {s}, {layer.in_features}] float32", \
                torch.randn(batch, s, layer.in_features)
    elif isinstance(layer, torch.nn.Embedding):
        for s in SEQ_LENGTHS:
            yield f"[{batch}, {s}] int64 token ids below {layer.num_embeddings}", \
                torch.randint(0, layer.num_embeddings, (batch, s))
        for s in SEQ_LENGTHS[:2]:
            yield f"[{s}, {batch}] int64 token ids below {layer.num_embeddings} " \
                "(sequence first)", torch.randint(0, layer.num_embeddings, (s, batch))
    elif isinstance(layer, torch.nn.RNNBase):
        for s in SEQ_LENGTHS[:2]:
            shape = (batch, s, layer.input_size) if layer.batch_first else \
                (s, batch, layer.input_size)
            yield f"{list(shape)} float32 sequence", torch.randn(*shape)


def _target_for(output, batch):
    out = output[0] if isinstance(output, (tuple, list)) and output else output
    if isinstance(out, dict) and out:
        out = next(iter(out.values()))
    if not isinstance(out, torch.Tensor):
        return "int64 zeros", torch.zeros(batch, dtype=torch.long)
    if out.dim() == 2 and out.shape[0] == batch and out.shape[1] > 1:
        return f"[{batch}] int64 class labels below {out.shape[1]}", \
            torch.randint(0, out.shape[1], (batch,))
    return f"{list(out.shape)} float32 targets", torch.randn(*out.shape)


def candidates(models, batch):
    """[(description, batch)] that the models' first layers accept, in order to try."""
    found = []
    hooks.recording_suspended += 1
    try:
        for model in models:
            was_training = model.training
            model.eval()
            try:
                for layer in _first_layers(model):
                    for what, x in _inputs_for(layer, batch):
                        try:
                            with torch.no_grad():
                                out = model(x)
                        except Exception:  # noqa: BLE001 - a size the model does not take
                            continue
                        target_what, y = _target_for(out, batch)
                        found.append((f"inputs {what}, targets {target_what} (for "
                                      f"{type(model).__name__})", (x, y)))
                        break
                    if found and found[-1][0].endswith(f"(for {type(model).__name__})"):
                        break
            finally:
                model.train(was_training)
    finally:
        hooks.recording_suspended -= 1
    return found


class SyntheticLoader:
    """An endless loader of one synthetic batch (fresh random values per step)."""

    def __init__(self, example):
        self.example = example

    def _fresh(self, value):
        if isinstance(value, torch.Tensor):
            if value.is_floating_point():
                return torch.randn_like(value)
            high = int(value.max()) + 1 if value.numel() else 1
            return torch.randint(0, max(high, 1), value.shape, dtype=value.dtype)
        if isinstance(value, (tuple, list)):
            return type(value)(self._fresh(v) for v in value)
        return value

    def __iter__(self):
        while True:
            yield self._fresh(self.example)

    def __len__(self):
        return 1 << 30
