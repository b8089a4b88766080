"""cerebras.modelzoo.trainer.callbacks (fallback following Model Zoo R2.10): the core
callbacks the Trainer YAML configures, with the R2.10 constructor signatures (a wrong key is a
TypeError, as the real config validation rejects it). They hold settings; the stand-in
Trainer's loop reads them."""


class Callback:
    pass


class CoreCallback(Callback):
    pass


class TrainingLoop(CoreCallback):
    def __init__(self, num_steps=None, max_steps=None, num_epochs=None, steps_per_epoch=None,
                 eval_frequency=1.0, eval_steps=None, grad_accum_steps=1):
        if num_steps is not None and num_epochs is not None:
            raise ValueError("num_steps and num_epochs are mutually exclusive")
        self.num_steps, self.max_steps = num_steps, max_steps
        self.num_epochs, self.steps_per_epoch = num_epochs, steps_per_epoch
        self.eval_frequency, self.eval_steps = eval_frequency, eval_steps
        self.grad_accum_steps = grad_accum_steps


class MixedPrecision(CoreCallback):
    def __init__(self, enabled=True, fp16_type="bfloat16", precision_opt_level=None,
                 loss_scaling_factor=1.0, initial_loss_scale=None, steps_per_increase=2000,
                 min_loss_scale=None, max_loss_scale=None, max_gradient_norm=None,
                 max_gradient_value=None, log_loss_scale=None):
        if fp16_type not in ("float16", "bfloat16", "cbfloat16"):
            raise ValueError(f"fp16_type must be float16, bfloat16 or cbfloat16. Got: "
                             f"{fp16_type!r}")
        if max_gradient_norm is not None and max_gradient_value is not None:
            raise ValueError("Gradients can be clipped by norm or by value, not both")
        self.enabled, self.fp16_type = enabled, fp16_type
        self.loss_scaling_factor = loss_scaling_factor
        self.initial_loss_scale = initial_loss_scale
        self.max_gradient_norm, self.max_gradient_value = max_gradient_norm, max_gradient_value


class Checkpoint(CoreCallback):
    def __init__(self, steps=None, autoload_last_checkpoint=True,
                 disable_strict_checkpoint_loading=False, save_initial_checkpoint=False,
                 checkpoint_root=None, checkpoint_name="checkpoint_{step}.mdl",
                 strict_version=True):
        self.steps, self.autoload_last_checkpoint = steps, autoload_last_checkpoint
        self.checkpoint_name = checkpoint_name


class Logging(CoreCallback):
    def __init__(self, log_steps, log_level="INFO", wsc_log_level=None,
                 enable_act_frequency=False):
        self.log_steps, self.log_level = log_steps, log_level
