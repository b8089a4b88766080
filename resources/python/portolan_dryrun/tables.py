"""Text tables read with NumPy (np.loadtxt, np.genfromtxt) whose file is not there.

Graph and tabular projects read their data as whitespace- or comma-separated tables of numbers
(a node table, an edge list) from files whose extensions say nothing (`cora.content`,
`cora.cites`). When such a file is missing, the project's own code gets a synthetic table of
integers (payloads.table_text: the row number first, then 0/1 columns, so that an edge list read
the same way refers to rows that exist), written to the synthetic-data mirror and announced.
"""
import os
import zlib

from . import payloads


def install(layer):
    import numpy as np

    def make(fname, delimiter):
        if not isinstance(fname, (str, os.PathLike)):
            return None
        path = os.fspath(fname)
        if os.path.exists(path) or not layer._from_project_at(3):
            return None
        target = layer.mirror(os.path.abspath(path))
        if not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            sep = delimiter if isinstance(delimiter, str) and delimiter else " "
            with open(target, "w", encoding="utf-8") as f:
                f.write(payloads.table_text(sep, seed=zlib.crc32(os.path.basename(path).encode())))
            layer._announce(os.path.abspath(path),
                            f"a table of {payloads.TABLE_ROWS} rows x {payloads.TABLE_COLUMNS} "
                            "integer columns (the row number, then 0/1 values)", "table",
                            caveat="the real table's columns and meaning are not known",
                            rows=payloads.TABLE_ROWS, columns=payloads.TABLE_COLUMNS)
        return target

    def wrap(original):
        def load(fname, *args, **kwargs):
            alt = make(fname, kwargs.get("delimiter"))
            return original(alt if alt is not None else fname, *args, **kwargs)

        load.__name__ = original.__name__
        load.__doc__ = original.__doc__
        return load

    np.loadtxt = wrap(np.loadtxt)
    np.genfromtxt = wrap(np.genfromtxt)
    return True
