"""Class-folder data sets whose folder is not there: a small tree of random images stands in.

The file-folder layout (root/<class>/<image>) is the common way to ship an image data set:
torchvision's ImageFolder/DatasetFolder read it, and scripts list it with glob patterns such
as `data/train/*/*.jpg`. When the root does not exist in a dry run, a tree of a few classes of
small random images is made in the synthetic-data mirror (datafiles.py: never where the project
looks, and a real folder always wins), and the project's own loader and transforms read it.
Each tree is announced by a `synthetic-data` warning that names the folder and its shape.
"""
import fnmatch
import glob
import os
import random

from .datafiles import IMAGES

CLASSES = 4
PER_CLASS = 8
SIZE = 64
MAGIC = ("*", "?", "[")


def _magic(part):
    return any(c in part for c in MAGIC)


class ClassFolders:
    def __init__(self, files):
        self.files = files  # the DataFiles layer: its mirror, its announcements
        self.made = set()

    # ------------------------------------------------------------------ making
    def _image(self, path, rng):
        self.files._make_image_sized(path, rng, SIZE)

    def make_tree(self, root, ext=".png"):
        """The mirror of `root`, filled with CLASSES class folders of PER_CLASS images."""
        target = self.files.mirror(root)
        if target in self.made:
            return target
        # Seeded by the path as the project names it: an original and its port, dry-run from
        # other folders, read the same tree.
        rng = random.Random(self.files.seed_key(root, os.path.abspath(root)))
        for c in range(CLASSES):
            for i in range(PER_CLASS):
                self._image(os.path.join(target, f"class{c}", f"synthetic-{i:03d}{ext}"), rng)
        self.made.add(target)
        self.files._announce(
            os.path.abspath(root),
            f"a class-folder tree of {CLASSES} classes x {PER_CLASS} random {SIZE}x{SIZE} RGB "
            f"{ext} images", "class-folders",
            caveat="the project's own transforms crop and scale them; the real data's classes "
            "and image size are not known", classes=CLASSES, images=CLASSES * PER_CLASS,
            shape=[3, SIZE, SIZE])
        return target

    def make_for_pattern(self, pattern):
        """Files in the mirror that a glob pattern over a missing folder matches, or None."""
        parts = os.path.abspath(os.path.expanduser(pattern)).split(os.sep)
        literal = []
        for part in parts:
            if _magic(part):
                break
            literal.append(part)
        rest = parts[len(literal):]
        if not rest:
            return None
        prefix = os.sep.join(literal) or os.sep
        if os.path.isdir(prefix):
            return None  # the data folder is there: an empty match is the project's own
        last = rest[-1]
        ext = os.path.splitext(last)[1].lower()
        if ext not in IMAGES or ext.startswith("*"):
            return None  # only image trees are made: other formats are not guessed
        rng = random.Random(pattern)
        made = []

        def fill(folder, remaining, depth):
            part = remaining[0]
            if len(remaining) == 1:
                names = [part.replace("*", f"synthetic-{i:03d}", 1).replace("*", "")
                         for i in range(PER_CLASS)] if _magic(part) else [part]
                for name in names:
                    if fnmatch.fnmatch(name, part):
                        path = os.path.join(folder, name)
                        self._image(self.files.mirror(path), rng)
                        made.append(path)
                return
            if part == "**":
                fill(folder, remaining[1:], depth)
                return
            names = [part.replace("*", f"class{c}", 1).replace("*", "")
                     for c in range(CLASSES)] if _magic(part) else [part]
            for name in names:
                if fnmatch.fnmatch(name, part):
                    fill(os.path.join(folder, name), remaining[1:], depth + 1)

        fill(prefix, rest, 0)
        if not made:
            return None
        self.files._announce(
            prefix, f"{len(made)} random {SIZE}x{SIZE} RGB {ext} images matching {pattern}",
            "class-folders", caveat="the real data's classes and image size are not known",
            images=len(made), pattern=pattern, shape=[3, SIZE, SIZE])
        return made

    # ------------------------------------------------------------------ install
    def install(self):
        layer = self
        try:
            from torchvision.datasets import folder as tv_folder
        except ImportError:
            tv_folder = None
        if tv_folder is not None:
            original = tv_folder.DatasetFolder.__init__

            def __init__(self, root, *args, **kwargs):
                path = os.path.expanduser(os.fspath(root)) if isinstance(root, (str, os.PathLike)) \
                    else root
                if isinstance(path, str) and not os.path.exists(path):
                    extensions = kwargs.get("extensions", args[1] if len(args) > 1 else None)
                    if extensions is None and isinstance(self, tv_folder.ImageFolder):
                        extensions = tv_folder.IMG_EXTENSIONS
                    if isinstance(extensions, str):
                        extensions = (extensions,)
                    ext = next((e for e in (extensions or ()) if e.lower() in IMAGES), None)
                    if ext is not None:
                        root = layer.make_tree(path, ext.lower())
                return original(self, root, *args, **kwargs)

            __init__.__doc__ = original.__doc__
            tv_folder.DatasetFolder.__init__ = __init__

        original_iglob = glob.iglob  # glob.glob lists glob.iglob: the original, not ours

        def glob_(pathname, *args, **kwargs):
            # Before listing: listing a missing folder would make datafiles' flat stand-in.
            if isinstance(pathname, str) and not kwargs.get("root_dir") and \
                    layer.files._from_project_at(2):
                made = layer.make_for_pattern(pathname)
                if made:
                    if os.path.isabs(pathname):
                        return sorted(made)
                    return sorted(os.path.relpath(p) for p in made)
            return list(original_iglob(pathname, *args, **kwargs))

        glob_.__doc__ = glob.glob.__doc__
        glob.glob = glob_
        glob.iglob = lambda pathname, *a, **k: iter(glob_(pathname, *a, **k))
        return self
