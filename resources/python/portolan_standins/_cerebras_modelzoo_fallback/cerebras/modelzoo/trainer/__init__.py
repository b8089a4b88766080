"""cerebras.modelzoo.trainer (fallback following Model Zoo R2.10): the Trainer on the CPU.

Trainer(...) takes the R2.10 constructor arguments; fit(train_dataloader, val_dataloader,
ckpt_path) runs the training steps of the R2.10 training_step -- forward (the model returns
its loss, or a dict with "loss"), backward, clipping from the precision callback, optimizer
step, zero_grad, scheduler steps -- for the loop's steps, capped at the dry run's. Callbacks,
loggers, sparsity and checkpoints are accepted and not run (said once).
"""
import torch

import _portolan_hooks as hooks

from .callbacks import Checkpoint, Logging, MixedPrecision, TrainingLoop  # noqa: F401


def summarize_scalar(name, value):
    """Logs a scalar to the summaries; kept in memory by the dry run."""


class Trainer:
    def __init__(self, device=None, backend=None, model_dir=..., model=..., optimizer=None,
                 schedulers=None, precision=None, sparsity=None, loop=None, checkpoint=None,
                 logging=None, callbacks=None, loggers=None, seed=None, autorestart=None):
        import cerebras.pytorch as cstorch

        if model is ...:
            raise TypeError("Trainer needs a model")
        if device is not None and backend is not None:
            raise ValueError("device and backend are mutually exclusive")
        self.backend = backend if backend is not None else \
            cstorch.backend(device or "CPU")
        if seed is not None:
            torch.manual_seed(seed)
        self.model_dir = model_dir
        self.model = model() if callable(model) and not isinstance(model, torch.nn.Module) \
            else model
        if not isinstance(self.model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module or a function returning one. "
                            f"Got: {type(self.model).__name__}")
        self.compiled_model = cstorch.compile(self.model, self.backend)
        if optimizer is not None and not isinstance(optimizer, torch.optim.Optimizer):
            optimizer = optimizer(self.model)
        if optimizer is not None and not isinstance(optimizer, cstorch.optim.Optimizer):
            raise TypeError(f"optimizer must be a cstorch.optim.Optimizer. Got: "
                            f"{type(optimizer).__name__}")
        self.optimizer = optimizer
        self.schedulers = []
        for s in schedulers or []:
            self.schedulers.append(s if isinstance(s, cstorch.optim.lr_scheduler.LRScheduler)
                                   else s(self.optimizer))
        self.precision = precision
        self.loop = loop if loop is not None else TrainingLoop()
        self.checkpoint = checkpoint if checkpoint is not None else Checkpoint()
        self.logging = logging
        self.global_step = 0
        unused = [n for n, v in (("sparsity", sparsity), ("callbacks", callbacks),
                                 ("loggers", loggers), ("autorestart", autorestart)) if v]
        if unused:
            hooks.notify("info", f"the dry run's Trainer does not run {', '.join(unused)}")

    def _num_steps(self, dataloader):
        from cerebras.pytorch.utils.data import compute_num_steps

        loop = self.loop
        try:
            steps = compute_num_steps(dataloader, self.global_step, loop.num_steps,
                                      loop.max_steps, loop.num_epochs, loop.steps_per_epoch)
        except ValueError:
            steps = None
        if hooks.dry_run_steps is not None:
            steps = hooks.dry_run_steps if steps is None else min(steps, hooks.dry_run_steps)
        if steps is None:
            raise ValueError("The training loop needs num_steps, max_steps or num_epochs")
        return steps

    def forward(self, batch):
        return self.compiled_model(batch)

    @staticmethod
    def _loss(outputs):
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise TypeError("The model must return the loss (a scalar tensor), or a dict "
                            f"with a \"loss\" entry. Got: {type(outputs).__name__}")
        return loss

    def training_step(self, batch):
        loss = self._loss(self.forward(batch))
        loss.backward()
        if self.optimizer is not None:
            params = [p for g in self.optimizer.param_groups for p in g["params"]
                      if p.grad is not None]
            if self.precision is not None and self.precision.max_gradient_norm:
                torch.nn.utils.clip_grad_norm_(params, self.precision.max_gradient_norm)
            elif self.precision is not None and self.precision.max_gradient_value:
                torch.nn.utils.clip_grad_value_(params, self.precision.max_gradient_value)
            self.optimizer.step()
            self.optimizer.zero_grad()
            for s in self.schedulers:
                s.step()
        return {"loss": loss}

    def fit(self, train_dataloader, val_dataloader=None, ckpt_path=...):
        import cerebras.pytorch as cstorch

        if not isinstance(train_dataloader, cstorch.utils.data.DataLoader):
            raise TypeError(f"train_dataloader must be a cstorch.utils.data.DataLoader. Got "
                            f"{type(train_dataloader)}")
        hooks.runner_controls_steps = True
        steps = self._num_steps(train_dataloader)
        executor = cstorch.utils.data.DataExecutor(train_dataloader, num_steps=steps)
        self.model.train()
        for batch in executor:
            self.training_step(batch)
            self.global_step += 1
        if val_dataloader is not None and self.loop.eval_frequency:
            for loader in val_dataloader if isinstance(val_dataloader, list) else \
                    [val_dataloader]:
                self.validate(loader)

    def validate(self, val_dataloader=None, ckpt_path=..., loop=None):
        import cerebras.pytorch as cstorch

        if not isinstance(val_dataloader, cstorch.utils.data.DataLoader):
            raise TypeError(f"val_dataloader must be a cstorch.utils.data.DataLoader. Got "
                            f"{type(val_dataloader)}")
        self.model.eval()
        losses = []
        with torch.no_grad():
            for batch in cstorch.utils.data.DataExecutor(val_dataloader, num_steps=1):
                losses.append(float(self._loss(self.forward(batch))))
        self.model.train()
        if losses:
            loss = sum(losses) / len(losses)
            hooks.notify("eval", f"eval loss {loss:.4f} over {len(losses)} batch(es)",
                         loss=loss, batches=len(losses),
                         metrics=cstorch.metrics.compute_all_metrics())
