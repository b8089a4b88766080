"""Which weights the replay takes as the model's (replay.py): without an optimizer yet, the
first module called with trainable parameters; a frozen one (a feature extractor for a
perceptual loss, run once before the optimizer is built) is not the model.

Run by ctest (test_dryrun_python).
"""
import types
import unittest

import torch

from portolan_dryrun import replay


class AdoptTest(unittest.TestCase):
    def setUp(self):
        self.original_call = torch.nn.Module.__call__
        self.original_optimizer_init = torch.optim.Optimizer.__init__
        session = types.SimpleNamespace(steps_done=0)
        self.replay = replay.Replay(session, types.SimpleNamespace(emit=lambda *a, **k: None), 3)
        self.replay._patch_module_call()

    def tearDown(self):
        torch.nn.Module.__call__ = self.original_call

    def test_frozen_module_is_not_the_model(self):
        frozen = torch.nn.Linear(4, 4)
        for p in frozen.parameters():
            p.requires_grad = False
        trained = torch.nn.Linear(4, 2)
        frozen(torch.randn(1, 4))
        self.assertIsNone(self.replay.params)
        trained(torch.randn(1, 4))
        self.assertEqual([tuple(p.shape) for p in self.replay.params], [(2, 4), (2,)])
        self.assertEqual(self.replay.adopted_by, "module")

    def test_optimizer_built_later_takes_its_parameters(self):
        # A module shown before the training (called, then never trained) is adopted first; the
        # optimizer built before the first step names the parameters that train.
        self.replay._patch_optimizer()
        try:
            shown = torch.nn.Embedding(2, 5)
            shown(torch.tensor([0]))
            self.assertEqual(self.replay.adopted_by, "module")
            trained = torch.nn.Linear(4, 2)
            torch.optim.SGD(trained.parameters(), lr=0.1)
            self.assertEqual(self.replay.adopted_by, "optimizer")
            self.assertEqual([tuple(p.shape) for p in self.replay.params], [(2, 4), (2,)])
        finally:
            torch.optim.Optimizer.__init__ = self.original_optimizer_init

    def test_optimizer_of_the_called_module_keeps_it(self):
        self.replay._patch_optimizer()
        try:
            model = torch.nn.Linear(4, 2)
            model(torch.randn(1, 4))
            torch.optim.SGD(model.parameters(), lr=0.1)
            self.assertEqual(self.replay.adopted_by, "module")
        finally:
            torch.optim.Optimizer.__init__ = self.original_optimizer_init


if __name__ == "__main__":
    unittest.main()
