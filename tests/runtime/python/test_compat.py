"""The dry run's newer-library meanings (compat.py) and summaries without tensorboard
(summaries.py): each gives the newer release's result and says so once.

Run by ctest (test_dryrun_python); both modules patch process-wide names, which is what the dry
run's child does too, so they are installed once for this module's tests.
"""
import importlib.util
import unittest

import numpy as np
import torch

from portolan_dryrun import compat, summaries


class _Session:
    def __init__(self):
        self.warned = {}

    def warn_once(self, key, message, **fields):
        self.warned.setdefault(key, (message, fields))


SESSION = _Session()
TENSORBOARD = importlib.util.find_spec("tensorboard") is not None
compat.install(SESSION)
summaries.install(SESSION)


class CompatTest(unittest.TestCase):
    def test_numpy_copy_none(self):
        source = np.arange(4)
        same = np.array(source, copy=None)  # NumPy 2: no copy when none is needed
        self.assertIs(np.shares_memory(same, source), True)
        self.assertEqual(np.asarray([1, 2], copy=True).tolist(), [1, 2])
        if compat._numpy_major() < 2:
            message, fields = SESSION.warned["compat:numpy-copy-none"]
            self.assertEqual(fields["kind"], "compat")
            self.assertIn("copy=None", message)

    def test_dense_times_sparse_with_gradient(self):
        dense = torch.randn(3, 4, requires_grad=True)
        sparse_matrix = torch.randn(4, 5).relu().to_sparse()
        product = dense @ sparse_matrix
        self.assertTrue(torch.allclose(product, dense @ sparse_matrix.to_dense(), atol=1e-6))
        self.assertTrue(torch.allclose(torch.mm(dense, sparse_matrix), product))
        self.assertTrue(torch.allclose(dense.matmul(sparse_matrix), product))
        product.sum().backward()
        self.assertEqual(dense.grad.shape, (3, 4))
        # Dense products are untouched.
        self.assertEqual((dense @ torch.randn(4, 2)).shape, (3, 2))

    @unittest.skipIf(torch.cuda.is_available(), "CUDA is there: torch's own autocast")
    def test_bf16_cuda_autocast_without_cuda_is_disabled(self):
        with torch.cuda.amp.autocast(dtype=torch.bfloat16):
            self.assertFalse(torch.is_autocast_enabled())
        self.assertIn("compat:autocast-bf16", SESSION.warned)

    def test_to_sparse_of_sparse(self):
        s = torch.eye(3).to_sparse()
        self.assertIs(s.to_sparse(), s)


@unittest.skipIf(TENSORBOARD, "tensorboard is installed: torch's own writer is used")
class SummariesTest(unittest.TestCase):
    def test_writer_accepts_and_drops(self):
        from torch.utils.tensorboard import SummaryWriter
        from tensorboard.backend.event_processing.io_wrapper import IsSummaryEventsFile

        with SummaryWriter("runs/x") as writer:
            writer.add_scalar("loss", 1.0, 0)
            writer.add_histogram("w", torch.zeros(3), 0)
            self.assertEqual(writer.get_logdir(), "runs/x")
        self.assertIn("no-summaries", SESSION.warned)
        self.assertTrue(IsSummaryEventsFile("runs/events.out.tfevents.1.host"))
        self.assertFalse(IsSummaryEventsFile("runs/params.yaml"))
        self.assertIsNotNone(importlib.util.find_spec("tensorboard"))


if __name__ == "__main__":
    unittest.main()
