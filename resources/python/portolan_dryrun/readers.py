"""Missing data files that the project opens through a library's reader.

datafiles.py makes a stand-in for a missing data file only when the project's own code asks for
it (the innermost frame outside the standard library and Portolan is the project's): files
that a library looks for on its own (a cache, a config) are not data. A reader such as
`PIL.Image.open(path)`, called by the project with a path of its own (a style image, a sample
picture, an image list's entries), opens the file from inside the library, so that rule alone
would not see the project behind it. The readers below ask at their entry instead, where the
caller is the project: a missing path of a format datafiles.py knows (an image) gets its
announced stand-in (a `synthetic-data` warning), and an existing file is read as it is.
"""
import os


def _path(value):
    if isinstance(value, bytes):
        return os.fsdecode(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value if isinstance(value, str) else None


def install(layer):
    try:
        from PIL import Image
    except ImportError:
        return
    original_open = Image.open

    def image_open(fp, mode="r", formats=None):
        path = _path(fp)
        if path and not os.path.lexists(path):
            # The caller of Image.open decides (datafiles: only the project's own calls).
            fp = layer.alternative(path, "file") or fp
        return original_open(fp, mode, formats)

    image_open.__doc__ = original_open.__doc__
    Image.open = image_open
