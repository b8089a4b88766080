"""The session's changes to a project's training loop that a dry run makes on purpose."""
import unittest

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
