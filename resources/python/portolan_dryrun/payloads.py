"""What a refused download is answered with, chosen by the format its URL names.

The project's own code then unpacks or parses it as it would the real file, and the files it
reads afterwards are datafiles.py's stand-ins. Formats (by the URL's file name):
- archives (.zip, .tar, .tar.gz/.tgz, .tar.bz2, .tar.xz): a valid archive with no members;
- a single gzip-compressed file (.gz): the gzip of the payload of the name without .gz;
- text (.txt, .tokens, .raw): a small synthetic corpus; tables (.csv, .tsv): a numeric table;
- .json: an empty object; images: a random image; .npy: a small random array;
- checkpoints (.pt, .pth, .ckpt, .bin): an empty state dict (the model keeps its own weights).
Anything else is still refused: a format the dry run does not know is not guessed.
"""
import gzip
import io
import os
import random
import urllib.parse

TABLE_ROWS = 2000
TABLE_COLUMNS = 32


def file_name(url):
    return os.path.basename(urllib.parse.urlparse(str(url)).path).lower()


def table_text(separator=" ", header=False, rows=TABLE_ROWS, columns=TABLE_COLUMNS, seed=0):
    """A whitespace (or comma) separated table of integers: the row number first, then 0/1
    columns. Every value is a valid row number, so that a table of links between rows (an edge
    list) read the same way refers to rows that exist."""
    rng = random.Random(seed)
    lines = []
    if header:
        lines.append(separator.join(["id"] + [f"c{i}" for i in range(1, columns)]))
    for r in range(rows):
        lines.append(separator.join([str(r)] + [str(rng.randint(0, 1))
                                                for _ in range(columns - 1)]))
    return "\n".join(lines) + "\n"


def payload(url):
    """(format, bytes, what) for a download of `url`, or None when the format is unknown."""
    from .datafiles import ARCHIVES, TEXT, IMAGES, empty_archive

    name = file_name(url)
    kind = next((ext for ext in ARCHIVES if name.endswith(ext)), None)
    if kind is not None:
        return kind, empty_archive(kind), f"an empty {kind} archive"
    if name.endswith(".gz"):
        inner = payload(url[:-3]) if str(url).lower().endswith(".gz") else None
        if inner is None:
            return None
        return ".gz", gzip.compress(inner[1]), f"the gzip of {inner[2]}"
    ext = os.path.splitext(name)[1]
    if ext in TEXT:
        from .datafiles import TEXT_LINES, VOCABULARY, _words

        rng = random.Random(name)
        vocabulary, weights = _words(rng)
        text = "\n".join(" ".join(rng.choices(vocabulary, weights, k=rng.randint(4, 20)))
                         for _ in range(TEXT_LINES)) + "\n"
        return ext, text.encode(), f"a synthetic text of {TEXT_LINES} lines"
    if ext in (".csv", ".tsv"):
        sep = "," if ext == ".csv" else "\t"
        return ext, table_text(sep, header=True).encode(), \
            f"a {TABLE_ROWS}x{TABLE_COLUMNS} table of integers"
    if ext == ".json":
        return ext, b"{}", "an empty JSON object"
    if ext in IMAGES:
        import numpy as np
        from PIL import Image

        buffer = io.BytesIO()
        pixels = np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)
        fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".bmp": "BMP"}[ext]
        Image.fromarray(pixels, "RGB").save(buffer, fmt)
        return ext, buffer.getvalue(), "a random 64x64 image"
    if ext == ".npy":
        import numpy as np

        buffer = io.BytesIO()
        np.save(buffer, np.random.default_rng(0).standard_normal((64, 16)).astype(np.float32))
        return ext, buffer.getvalue(), "a random 64x16 float32 array"
    if ext in (".pt", ".pth", ".ckpt", ".bin"):
        import torch

        buffer = io.BytesIO()
        torch.save({}, buffer)
        return ext, buffer.getvalue(), "an empty state dict (the model keeps its own weights)"
    return None
