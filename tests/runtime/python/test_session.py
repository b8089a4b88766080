"""The session's changes to a project's training loop that a dry run makes on purpose."""
import unittest
import weakref

import torch

from portolan_dryrun.session import Session


class CollectedEvents:
    def __init__(self):
        self.emitted = []

    def emit(self, event, **fields):
        self.emitted.append((event, fields))


class InnerIterationsTest(unittest.TestCase):
    def evaluations_per_step(self, optimizer_of):
        events = CollectedEvents()
        session = Session(events, steps=3, batch=2)
        weight = torch.nn.Parameter(torch.tensor([3.0, -2.0]))
        opt = optimizer_of([weight])
        session._shorten_inner_iterations(opt)
        calls = []

        def closure():
            calls.append(1)
            opt.zero_grad()
            loss = (weight ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        return len(calls), [f for e, f in events.emitted if e == "info"]

    def test_lbfgs_evaluates_its_closure_once(self):
        # Left alone, this LBFGS step evaluates the closure many times (up to max_iter=20).
        evaluations, infos = self.evaluations_per_step(
            lambda p: torch.optim.LBFGS(p, lr=0.8))
        self.assertEqual(evaluations, 1)
        self.assertEqual(len(infos), 1)
        self.assertIn("up to 20", infos[0]["message"])

    def test_lbfgs_left_alone_is_not_shortened_here(self):
        opt = torch.optim.LBFGS([torch.nn.Parameter(torch.tensor([3.0, -2.0]))], lr=0.8)
        calls = []
        weight = opt.param_groups[0]["params"][0]

        def closure():
            calls.append(1)
            opt.zero_grad()
            loss = (weight ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        self.assertGreater(len(calls), 1)  # what the shortening saves

    def test_other_optimizers_and_one_iteration_are_untouched(self):
        evaluations, infos = self.evaluations_per_step(lambda p: torch.optim.SGD(p, lr=0.1))
        self.assertEqual((evaluations, infos), (1, []))
        evaluations, infos = self.evaluations_per_step(
            lambda p: torch.optim.LBFGS(p, lr=0.8, max_iter=1))
        self.assertEqual((evaluations, infos), (1, []))


if __name__ == "__main__":
    unittest.main()


class BatchArgumentsTest(unittest.TestCase):
    def test_batch_size_arguments_shrink_with_the_loaders(self):
        import argparse

        import _portolan_hooks as hooks
        from portolan_dryrun import batchargs

        events = CollectedEvents()
        saved = (hooks.dry_run_batch, list(hooks.requested_batches))
        hooks.dry_run_batch = 2
        hooks.requested_batches.clear()
        try:
            args = argparse.Namespace(batch_size=64, test_batch_size=1000, bs=1, batch=True,
                                      max_batches=50, epochs=3, eval_batch_size=6)
            changed = batchargs.shrink(type("S", (), {"events": events})(), args)
            self.assertEqual(changed, [("batch_size", 64, 2), ("test_batch_size", 1000, 2)])
            # Flags, sizes already small and other counts stay as the project gave them.
            self.assertEqual((args.bs, args.batch, args.max_batches, args.epochs,
                              args.eval_batch_size), (1, True, 50, 3, 6))
            # The project's value stays on record as the full batch (for the capture).
            self.assertEqual(hooks.requested_batches[0]["requested"], 64)
            warnings = [f for e, f in events.emitted if e == "warning"]
            self.assertEqual(len(warnings), 1)
            self.assertEqual(warnings[0]["kind"], "batch-shrunk")
        finally:
            hooks.dry_run_batch = saved[0]
            hooks.requested_batches[:] = saved[1]


class SeveralOptimizersTest(unittest.TestCase):
    """Several models trained in turn: the optimizer steps of one batch are one step, with each
    backward() loss of the batch; one optimizer stepped again and again keeps a step each."""

    def steps(self, batches, schedule, boundary=False):
        events = CollectedEvents()
        session = Session(events, steps=100, batch=2)
        a = torch.nn.Parameter(torch.tensor([1.0]))
        b = torch.nn.Parameter(torch.tensor([2.0]))
        opts = {"a": torch.optim.SGD([a], lr=0.1), "b": torch.optim.SGD([b], lr=0.1)}
        session.optimizers = [weakref.ref(o) for o in opts.values()]
        for _ in range(batches):
            if boundary:
                session.batch_boundary()
            for name in schedule:
                loss = (a * b).sum() if name == "a" else (b * b).sum()
                session.note_backward_loss(loss)
                session.after_optimizer_step(opts[name])
        return [f for e, f in events.emitted if e == "step"]

    def test_one_step_per_batch(self):
        steps = self.steps(3, "ab")
        # The first batch ends when the next one steps `a` again; later ones at their 2nd step.
        self.assertEqual(len(steps), 3)
        self.assertEqual(len(steps[0]["backward_losses"]), 2)
        self.assertEqual(steps[0]["loss"], steps[0]["backward_losses"][-1])

    def test_batch_boundary_ends_the_first_batch(self):
        self.assertEqual(len(self.steps(3, "ab", boundary=True)), 3)

    def test_one_optimizer_stepped_again_and_again(self):
        steps = self.steps(4, "a")
        self.assertEqual(len(steps), 4)
        self.assertNotIn("backward_losses", steps[0])
