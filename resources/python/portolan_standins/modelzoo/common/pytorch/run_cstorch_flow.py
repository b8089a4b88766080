"""The R2.1 Model Zoo's cstorch training flow (stand-in following Model Zoo R1.9-R2.2's
modelzoo.common.pytorch.run_cstorch_flow) on the CPU.

main(params, model_fn, train_data_fn, eval_data_fn) gets the model class (a torch.nn.Module
whose forward(batch) returns the loss) and data functions taking params. As the real flow:
cstorch.backend from runconfig.target_device, the model built under backend.device, compiled,
the optimizer and schedule from params["optimizer"] (configure_optimizer /
configure_lr_scheduler), the data through cstorch.utils.data.DataLoader(input_fn, params), a
cstorch.trace'd step with the grad scaler when loss scaling is asked for, max_steps from
runconfig capped at the dry run's.
"""
import torch

import _portolan_hooks as hooks

SCALER_KEYS = ("loss_scaling_factor", "initial_loss_scale", "steps_per_increase",
               "min_loss_scale", "max_loss_scale", "max_gradient_norm", "max_gradient_value")


def run_cstorch_flow(params, model_fn, train_data_fn, eval_data_fn):
    import cerebras.pytorch as cstorch

    runconfig = params["runconfig"]
    if runconfig.get("mode", "train") != "train":
        raise ValueError(f"the dry run trains (mode train); got {runconfig.get('mode')!r}")
    if not isinstance(params.get("optimizer"), dict):
        raise ValueError("An `optimizer` configuration is required for training")
    if "seed" in runconfig:
        torch.manual_seed(runconfig["seed"])
    hooks.runner_controls_steps = True
    hooks.modelzoo_params = params
    inputs = params.get("train_input", {})
    if isinstance(inputs.get("batch_size"), int):
        inputs["batch_size"] = hooks.clamp_batch(inputs["batch_size"], "train_input.batch_size")
    optimizer_params = dict(params["optimizer"])
    scaler = {k: optimizer_params.pop(k) for k in SCALER_KEYS if k in optimizer_params}
    grad_accum_steps = optimizer_params.pop("grad_accum_steps", 1)
    optimizer_params.pop("log_summaries", None)

    backend = cstorch.backend(runconfig.get("target_device", "CPU"),
                              artifact_dir=runconfig.get("model_dir"))
    with backend.device:
        model = model_fn(params)
    compiled_model = cstorch.compile(model, backend)
    compiled_model.train()
    groups = cstorch.optim.configure_param_groups(model, optimizer_params)
    optimizer = cstorch.optim.configure_optimizer(
        optimizer_type=optimizer_params.pop("optimizer_type"), params=groups,
        **{k: v for k, v in optimizer_params.items() if k != "adjust_learning_rate"})
    lr_scheduler = cstorch.optim.configure_lr_scheduler(
        optimizer, optimizer_params.get("learning_rate"),
        optimizer_params.get("adjust_learning_rate"))
    dataloader = cstorch.utils.data.DataLoader(train_data_fn, params)
    grad_scaler = None
    if scaler.get("loss_scaling_factor") not in (None, 1.0):
        grad_scaler = cstorch.amp.GradScaler(loss_scale=scaler["loss_scaling_factor"],
                                             init_scale=scaler.get("initial_loss_scale"))

    @cstorch.trace
    def training_step(batch):
        loss = compiled_model(batch)
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            raise TypeError("the model's forward(batch) must return the loss (a scalar tensor) "
                            "in the cstorch flow")
        if grad_scaler is not None:
            cstorch.amp.optimizer_step(loss, optimizer, grad_scaler,
                                       max_gradient_norm=scaler.get("max_gradient_norm"),
                                       max_gradient_value=scaler.get("max_gradient_value"))
        else:
            loss.backward()
            if scaler.get("max_gradient_norm"):
                torch.nn.utils.clip_grad_norm_(model.parameters(), scaler["max_gradient_norm"])
            optimizer.step()
            optimizer.zero_grad()
        if lr_scheduler is not None:
            lr_scheduler.step()
        return loss

    num_steps = cstorch.utils.data.compute_num_steps(
        dataloader, num_steps=runconfig.get("num_steps"), max_steps=runconfig.get("max_steps"),
        num_epochs=runconfig.get("num_epochs"), steps_per_epoch=runconfig.get("steps_per_epoch"),
        grad_accum_steps=grad_accum_steps)
    if hooks.dry_run_steps is not None:
        num_steps = min(num_steps, hooks.dry_run_steps)
    for batch in cstorch.utils.data.DataExecutor(dataloader, num_steps=num_steps,
                                                 checkpoint_steps=runconfig.get(
                                                     "checkpoint_steps")):
        training_step(batch)
