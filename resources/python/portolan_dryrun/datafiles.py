"""Synthetic stand-ins for data files that are not there, at the data-loading boundary.

A dry run has no network and the user's data is often not in place. Projects that read their
data from files (a tokenizer reading train.txt, an image folder listed with os.listdir) or that
download an archive first would stop before their first step. This layer lets them reach it,
announcing every fake with a warning event (kind "synthetic-data") that names what was faked:

- a refused download (urllib, or requests through remote.py) of a format payloads.py knows is
  answered with a stand-in of that format; an archive (.zip, .tar, .tgz, .tar.gz, .tar.bz2,
  .tar.xz) is *empty*: the project's own extraction code runs and finds nothing, and the files
  it then reads are the stand-ins below (and tables.py's, for NumPy text tables);
- a missing text file (.txt, .tokens, .raw) that the project's own code opens for reading or
  checks for is made as a tiny synthetic text corpus (one shared vocabulary, so that a
  tokenizer reading train/valid/test builds one dictionary);
- a missing image file (.jpg, .jpeg, .png, .bmp) is made as a random image, also when the
  project opens it through PIL (readers.py);
- a missing folder that the project's own code lists is made as a folder of random images
  (the common file-folder data set).

Nothing is written where the project looks. The stand-ins live in a mirror folder
(PROJECT/.portolan/dryrun/synthetic-data/<absolute path>), and a file-system call on a path that
does not exist is retried on its mirror: a real file always wins, so real data is never hidden,
and a fake never lands in the user's data folder. Only calls from the project's own code (the
first frame outside the standard library and Portolan) make a stand-in; library code (PIL,
torch) then finds it through the mirror. A write whose folder exists only in the mirror goes
to the mirror too, so the project can cache what it derived from the fake.
"""
import builtins
import gzip
import io
import os
import random
import shutil
import sys
import sysconfig
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile

TEXT = (".txt", ".tokens", ".raw")
IMAGES = (".jpg", ".jpeg", ".png", ".bmp")
ARCHIVES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar", ".zip")
TEXT_LINES = 600
VOCABULARY = 400
FOLDER_IMAGES = 16
IMAGE_SIZE = 256


def _archive_kind(url):
    name = os.path.basename(urllib.parse.urlparse(url).path).lower()
    return next((ext for ext in ARCHIVES if name.endswith(ext)), None)


def empty_archive(kind):
    """The bytes of a valid archive with no members, in the format of the extension."""
    buffer = io.BytesIO()
    if kind == ".zip":
        with zipfile.ZipFile(buffer, "w"):
            pass
        return buffer.getvalue()
    mode = {".tar.gz": "w:gz", ".tgz": "w:gz", ".tar.bz2": "w:bz2", ".tbz2": "w:bz2",
            ".tar.xz": "w:xz", ".txz": "w:xz"}.get(kind, "w")
    with tarfile.open(fileobj=buffer, mode=mode):
        pass
    return buffer.getvalue()


class _Response(io.BytesIO):
    """What urlopen returns, for an empty archive."""

    def __init__(self, url, data):
        super().__init__(data)
        self.url = url
        self.status = 200
        self.code = 200
        self.headers = {"Content-Length": str(len(data))}

    def getcode(self):
        return self.status

    def geturl(self):
        return self.url

    def info(self):
        return self.headers


def _words(rng):
    # Word frequencies fall off like a natural text's (a Zipf-like law), so that a tokenizer's
    # dictionary and an embedding see the skew they see on real text.
    vocabulary = [f"w{i}" for i in range(VOCABULARY)]
    weights = [1.0 / (i + 1) for i in range(VOCABULARY)]
    return vocabulary, weights


class DataFiles:
    def __init__(self, session, root, in_project):
        self.session = session
        self.root = root
        self.in_project = in_project
        self.mirror_root = os.path.join(root, ".portolan", "dryrun", "synthetic-data")
        self.faked = []
        skip = {os.path.realpath(sysconfig.get_paths()["stdlib"]),
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
        self._skip = tuple(p + os.sep for p in skip)
        self._busy = 0

    # ------------------------------------------------------------------ paths
    def mirror(self, path):
        absolute = os.path.abspath(path)
        return os.path.join(self.mirror_root, absolute.lstrip(os.sep))

    def _from_project(self):
        """True when the innermost frame outside the standard library and Portolan is the
        project's own code."""
        return self._from_project_at(4)

    def _from_project_at(self, depth):
        """_from_project, looking from `depth` frames above the caller of this method."""
        frame = sys._getframe(depth)
        while frame is not None:
            name = os.path.realpath(frame.f_code.co_filename)
            if not name.startswith(self._skip) and not name.startswith("<"):
                return self.in_project(name)
            frame = frame.f_back
        return False

    def _plain(self, path):
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if not isinstance(path, str) or not path:
            return None
        absolute = os.path.abspath(path)
        if absolute.startswith(self.mirror_root + os.sep) or absolute == self.mirror_root:
            return None
        return absolute

    def alternative(self, path, create=None):
        """The mirror of a path that does not exist, or None. `create`: "file" to make a
        stand-in of a missing data file, "folder" for a listed folder, "write" for a file or
        folder being made whose parent exists only in the mirror."""
        if self._busy:
            return None
        # Calls made while deciding (isdir, makedirs, PIL) see the real file system only.
        self._busy += 1
        try:
            return self._alternative(path, create)
        finally:
            self._busy -= 1

    def _alternative(self, path, create):
        absolute = self._plain(path)
        if absolute is None:
            return None
        target = self.mirror(absolute)
        if os.path.lexists(target):
            return target
        if create == "write":
            return target if os.path.isdir(os.path.dirname(target)) and \
                not os.path.isdir(os.path.dirname(absolute)) else None
        if create is None or not self._from_project():
            return None
        ext = os.path.splitext(absolute)[1].lower()
        if create == "file" and ext in TEXT:
            self._make_text(absolute, target)
        elif create == "file" and ext in IMAGES:
            self._make_image(target, random.Random(self.seed_key(path, absolute)))
            self._announce(absolute, "a random image", "image")
        elif create == "folder" and not ext:
            self._make_folder(absolute, target, self.seed_key(path, absolute))
        else:
            return None
        return target

    def seed_key(self, given, absolute):
        """The seed of a made-up file: the path as the project's code names it (a relative path
        as written, normalised; an absolute one relative to the project when inside it). The
        original and its port run the same code from other folders (the port moves the script,
        the verification runs copies), so they then read the same made-up data."""
        given = os.fspath(given) if isinstance(given, os.PathLike) else given
        if isinstance(given, bytes):
            given = os.fsdecode(given)
        if isinstance(given, str) and given and not os.path.isabs(given):
            return os.path.normpath(given)
        return self.shown(absolute)

    def shown(self, path):
        """The path as the user knows it: relative to the project when inside it."""
        rel = os.path.relpath(path, self.root)
        return path if rel.startswith("..") else rel

    # ------------------------------------------------------------------ stand-ins
    def _announce(self, path, what, kind, caveat="figures that depend on the data are not the "
                  "real data's", **fields):
        self.faked.append(path)
        self.session.synthetic = True
        self.session.events.emit(
            "warning", kind="synthetic-data",
            message=f"data is synthetic: {self.shown(path)} is not there; the dry run uses {what} "
            f"({caveat})", path=path, format=kind, mirror=self.mirror(path), **fields)

    def _make_text(self, path, target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        # One seed per folder: train/valid/test of one corpus share the vocabulary. The seed is
        # the path as the project names it (relative to its root), not where the project is:
        # the original and its port, dry-run from other folders, then read the same text.
        shown = self.shown(path)
        rng = random.Random(os.path.dirname(shown) + os.path.basename(shown))
        vocabulary, weights = _words(rng)
        lines = []
        for _ in range(TEXT_LINES):
            n = rng.randint(4, 20)
            lines.append(" ".join(rng.choices(vocabulary, weights, k=n)))
        with builtins_open(target + ".tmp", "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(target + ".tmp", target)
        self._announce(path, f"a synthetic text of {TEXT_LINES} lines over a vocabulary of "
                       f"{VOCABULARY} words", "text",
                       caveat="a vocabulary read from it, and the embedding and output layers "
                       "sized by it, are smaller than the real data's", lines=TEXT_LINES, vocabulary=VOCABULARY)

    @staticmethod
    def _make_image(target, rng):
        DataFiles._make_image_sized(target, rng, IMAGE_SIZE)

    @staticmethod
    def _make_image_sized(target, rng, size):
        import numpy as np
        from PIL import Image

        os.makedirs(os.path.dirname(target), exist_ok=True)
        pixels = np.random.default_rng(rng.randrange(1 << 30)).integers(
            0, 256, (size, size, 3), dtype=np.uint8)
        ext = os.path.splitext(target)[1].lower()
        fmt = {".jpg": "JPEG", ".jpeg": "JPEG", ".png": "PNG", ".bmp": "BMP"}[ext]
        Image.fromarray(pixels, "RGB").save(target, fmt)

    def _make_folder(self, path, target, key):
        os.makedirs(target, exist_ok=True)
        rng = random.Random(key)
        for i in range(FOLDER_IMAGES):
            self._make_image(os.path.join(target, f"synthetic-{i:03d}.jpg"), rng)
        self._announce(path, f"a folder of {FOLDER_IMAGES} random {IMAGE_SIZE}x{IMAGE_SIZE} "
                       "RGB JPEG images", "image-folder",
                       caveat="the project's own transforms crop and scale them; the image "
                       "size of the real data is not known", images=FOLDER_IMAGES,
                       shape=[3, IMAGE_SIZE, IMAGE_SIZE])

    # ------------------------------------------------------------------ downloads
    def _refused(self, url, found):
        """Announces the stand-in payload of a refused download and returns its bytes."""
        kind, data, what = found
        self.session.synthetic = True
        if kind in (".pt", ".pth", ".ckpt", ".bin"):
            self.session.events.emit(
                "warning", kind="synthetic-weights",
                message=f"pretrained weights are not loaded: {url} would be downloaded, and a "
                f"dry run has no network; the project gets {what}", asked=url, url=url)
            return data
        self.session.events.emit(
            "warning", kind="synthetic-data",
            message=f"download refused (a dry run has no network): {url}; the project gets "
            f"{what}, and the data files it then reads are synthetic", url=url, format=kind)
        return data

    def _download_kind(self, url):
        """(payload or None, url text) of a download the dry run answers itself."""
        from . import payloads

        if isinstance(url, urllib.request.Request):
            url = url.full_url
        if not isinstance(url, str) or not url.lower().startswith(("http:", "https:", "ftp:")):
            return None, url
        return payloads.payload(url), url

    # ------------------------------------------------------------------ install
    def install(self):
        # Each dry run makes its own stand-ins: one left by an earlier run is never reused.
        shutil.rmtree(self.mirror_root, ignore_errors=True)
        layer = self
        os_stat, os_listdir, os_scandir = os.stat, os.listdir, os.scandir
        os_mkdir, os_rename, os_replace = os.mkdir, os.rename, os.replace
        b_open = builtins.open

        def retry(original, create):
            def call(path, *args, **kwargs):
                try:
                    return original(path, *args, **kwargs)
                except FileNotFoundError:
                    alt = layer.alternative(path, create)
                    if alt is None:
                        raise
                    return original(alt, *args, **kwargs)

            call.__name__ = original.__name__
            call.__doc__ = original.__doc__
            return call

        def stat(path, *args, **kwargs):
            try:
                return os_stat(path, *args, **kwargs)
            except FileNotFoundError:
                alt = layer.alternative(path, "file")
                if alt is None:
                    raise
                return os_stat(alt, *args, **kwargs)

        def listdir(path="."):
            try:
                return os_listdir(path)
            except FileNotFoundError:
                alt = layer.alternative(path, "folder")
                if alt is None:
                    raise
                return os_listdir(alt)

        def scandir(path="."):
            try:
                return os_scandir(path)
            except FileNotFoundError:
                alt = layer.alternative(path, "folder")
                if alt is None:
                    raise
                return os_scandir(alt)

        def open_(file, mode="r", *args, **kwargs):
            try:
                return b_open(file, mode, *args, **kwargs)
            except FileNotFoundError:
                if isinstance(file, int):
                    raise
                writing = any(c in mode for c in "wax+")
                alt = layer.alternative(file, "write" if writing else "file")
                if alt is None:
                    raise
                return b_open(alt, mode, *args, **kwargs)

        def moved(original):
            def call(src, dst, *args, **kwargs):
                try:
                    return original(src, dst, *args, **kwargs)
                except FileNotFoundError:
                    alt = layer.alternative(src)
                    if alt is None:
                        raise
                    dst_alt = layer.alternative(dst, "write") or dst
                    return original(alt, dst_alt, *args, **kwargs)

            call.__name__ = original.__name__
            return call

        def urlopen(url, *args, **kwargs):
            found, text = layer._download_kind(url)
            if found is None:
                return original_urlopen(url, *args, **kwargs)
            return _Response(text, layer._refused(text, found))

        def urlretrieve(url, filename=None, reporthook=None, data=None):
            found, text = layer._download_kind(url)
            if found is None:
                return original_urlretrieve(url, filename, reporthook, data)
            payload = layer._refused(text, found)
            if filename is None:
                os.makedirs(layer.mirror_root, exist_ok=True)
                fd, filename = tempfile.mkstemp(suffix=found[0], dir=layer.mirror_root)
                os.close(fd)
            with b_open(filename, "wb") as f:
                f.write(payload)
            return filename, {"Content-Length": str(len(payload))}

        def save(obj, f, *args, **kwargs):
            # torch.save writes through its own C++ writer, which checks the folder itself.
            if isinstance(f, (str, os.PathLike)):
                parent = os.path.dirname(os.path.abspath(os.fspath(f)))
                if not os.path.lexists(parent):
                    f = layer.alternative(f, "write") or f
            return torch_save(obj, f, *args, **kwargs)

        import torch

        torch_save = torch.save
        torch.save = save
        original_urlopen = urllib.request.urlopen
        original_urlretrieve = urllib.request.urlretrieve
        os.stat = stat
        os.listdir = listdir
        os.scandir = scandir
        os.mkdir = retry(os_mkdir, "write")
        os.rename = moved(os_rename)
        os.replace = moved(os_replace)
        builtins.open = open_
        io.open = open_
        urllib.request.urlopen = urlopen
        urllib.request.urlretrieve = urlretrieve
        gzip.builtins = builtins  # gzip.open looks open up through builtins at call time
        from . import readers, remote, tables

        remote.install(self)
        tables.install(self)
        readers.install(self)
        return self


builtins_open = builtins.open
