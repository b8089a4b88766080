"""JSON-lines run events (core/runtime/EVENTS.md), one per line, flushed at once.

They go to their own file descriptor, given by the parent, so that whatever the project prints
on stdout can never be mistaken for an event.
"""
import json
import math
import os
import sys
import threading
import time


def _plain(value):
    """JSON-safe copy: non-finite floats become null, unknown objects their text."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    try:
        import torch

        if isinstance(value, torch.Tensor) and value.numel() == 1:
            return _plain(value.item())
    except ImportError:
        pass
    return str(value)


class Events:
    def __init__(self, fd=None):
        if fd is None:
            self._out = sys.stdout
        else:
            self._out = os.fdopen(fd, "w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()
        self.sent = []  # kinds sent, for the driver's own checks

    def emit(self, event, **fields):
        record = {"event": event, "time": round(time.time(), 3)}
        record.update(_plain(fields))
        line = json.dumps(record, ensure_ascii=False, allow_nan=False)
        with self._lock:
            self._out.write(line + "\n")
            self._out.flush()
            self.sent.append(event)
        return record
