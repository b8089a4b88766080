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


if __name__ == "__main__":
    unittest.main()


class SeveralOptimizersTest(unittest.TestCase):
    """Several models trained in turn: every optimizer's model is recorded, one group per
    optimizer in the order they are built, and the port's optimizers take them in that order."""

    def setUp(self):
        self.original_init = torch.optim.Optimizer.__init__

    def tearDown(self):
        torch.optim.Optimizer.__init__ = self.original_init

    def replay(self, loaded=None):
        session = types.SimpleNamespace(steps_done=0)
        r = replay.Replay(session, types.SimpleNamespace(emit=lambda *a, **k: None), 3)
        r.record_dir = None if loaded else "unused"
        r.loaded = loaded
        r._patch_optimizer()
        return r

    def test_each_optimizer_is_a_group(self):
        recorder = self.replay()
        critic, maker = torch.nn.Linear(4, 1), torch.nn.Linear(2, 4)
        torch.optim.SGD(critic.parameters(), lr=0.1)
        torch.optim.SGD(maker.parameters(), lr=0.1)
        self.assertEqual(recorder.groups, [2, 2])
        torch.optim.Optimizer.__init__ = self.original_init

        port = self.replay({"initial": recorder.initial, "groups": recorder.groups})
        critic2, maker2 = torch.nn.Linear(4, 1), torch.nn.Linear(2, 4)
        torch.optim.Adam(critic2.parameters(), lr=0.1)
        torch.optim.Adam(maker2.parameters(), lr=0.1)
        self.assertTrue(port.weights_loaded)
        self.assertTrue(torch.equal(maker2.weight, maker.weight))
        self.assertTrue(torch.equal(critic2.weight, critic.weight))

    def test_an_optimizer_in_another_order_is_not_loaded(self):
        recorder = self.replay()
        torch.optim.SGD(torch.nn.Linear(4, 1).parameters(), lr=0.1)
        torch.optim.SGD(torch.nn.Linear(2, 4).parameters(), lr=0.1)
        torch.optim.Optimizer.__init__ = self.original_init
        port = self.replay({"initial": recorder.initial, "groups": recorder.groups})
        torch.optim.SGD(torch.nn.Linear(2, 4).parameters(), lr=0.1)
        self.assertFalse(port.weights_loaded)
