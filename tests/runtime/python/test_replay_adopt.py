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


class TrainSamplesTest(unittest.TestCase):
    """The samples of the first step's data set, which the port's epoch in records comes from
    (Determined's records_per_epoch, a Cerebras schedule in steps); a data set without a length
    (an iterable) is unknown, and made-up data is said to be."""

    def setUp(self):
        self.original_iter = torch.utils.data.DataLoader.__iter__

    def tearDown(self):
        torch.utils.data.DataLoader.__iter__ = self.original_iter

    class Stream(torch.utils.data.IterableDataset):
        def __iter__(self):
            return iter([torch.zeros(2)] * 6)

    def test_samples(self):
        real_folder = torch.utils.data.TensorDataset(torch.zeros(5, 2))
        real_folder.root = "/data/photos"  # a real folder, while something else was made up
        made_folder = torch.utils.data.TensorDataset(torch.zeros(6, 2))
        made_folder.root = "/p/.portolan/dryrun/synthetic-data/data/photos"
        filled = torch.utils.data.TensorDataset(torch.zeros(8, 2))
        filled._portolan_synthetic = True
        # name, data set, anything made up in the run, samples, the data set made up
        rows = [("sized", torch.utils.data.TensorDataset(torch.zeros(10, 2)), False, 10, False),
                ("own-class-in-made-up-run", torch.utils.data.TensorDataset(torch.zeros(7, 2)),
                 True, 7, True),
                ("real-folder", real_folder, True, 5, False),
                ("mirror-folder", made_folder, False, 6, True),
                ("filled-torchvision", filled, False, 8, True),
                ("iterable", self.Stream(), False, None, False)]
        for name, dataset, synthetic, expected, made_up in rows:
            with self.subTest(name):
                session = types.SimpleNamespace(steps_done=0, synthetic=synthetic)
                r = replay.Replay(session, types.SimpleNamespace(emit=lambda *a, **k: None), 3)
                r._patch_loader()
                next(iter(torch.utils.data.DataLoader(dataset, batch_size=2)))
                torch.utils.data.DataLoader.__iter__ = self.original_iter
                self.assertEqual(r.train_samples, expected)
                self.assertEqual(r.train_samples_synthetic, made_up)


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
