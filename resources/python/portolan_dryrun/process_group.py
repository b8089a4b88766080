"""Distributed data-parallel code in a dry run: one process, a one-rank group.

A data-parallel script starts a process group (`torch.distributed.init_process_group`, often
with the GPU-only `nccl` backend, a world size of one rank per GPU, and a rendezvous address),
then wraps its model in `DistributedDataParallel(model, device_ids=[rank])`. A dry run is one
CPU process: the workers a launcher would start run inline (workers.py runs rank 0), there is
no GPU, and the network is off. So:

- `init_process_group` makes a one-rank group of the CPU backend (gloo) over an in-memory store,
  whatever backend, world size, rank and address the project asked for: collectives then work
  and return the one rank's values, and `get_rank()`/`get_world_size()` say 0 and 1;
- `DistributedDataParallel` of a module on the CPU drops the GPU `device_ids`/`output_device`
  it was given (DDP refuses them for a CPU module).

Said once, in a `warning` event of kind `process-group` naming what the project asked for.
"""


def install(session):
    try:
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel
    except ImportError:
        return
    if not dist.is_available() or not dist.is_gloo_available():
        return
    original_init = dist.init_process_group
    original_ddp_init = DistributedDataParallel.__init__

    def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1,
                           rank=-1, store=None, group_name="", pg_options=None, **kwargs):
        if dist.is_initialized():
            return original_init(backend, init_method=init_method, world_size=world_size,
                                 rank=rank, store=store)  # the project's own error, unchanged
        asked = f"backend {backend or 'default'}"
        if world_size not in (-1, None):
            asked += f", world size {world_size}"
        if init_method:
            asked += f", {init_method}"
        session.warn_once(
            "process-group",
            f"the project starts a process group ({asked}); a dry run is one CPU process "
            "without network, so a one-rank gloo group over an in-memory store stands in "
            "(rank 0 of 1: collectives return this rank's values)",
            kind="process-group", backend=str(backend) if backend else None,
            world_size=world_size, init_method=init_method)
        extra = {"timeout": timeout} if timeout is not None else {}
        return original_init("gloo", store=dist.HashStore(), rank=0, world_size=1, **extra)

    def ddp_init(self, module, device_ids=None, output_device=None, *args, **kwargs):
        on_cpu = all(p.device.type == "cpu" for p in module.parameters())
        if on_cpu and (device_ids or output_device is not None):
            session.warn_once(
                "process-group-devices",
                f"DistributedDataParallel is given GPU devices (device_ids={device_ids}); the "
                "dry run's model is on the CPU, so they are dropped",
                kind="process-group", device_ids=str(device_ids))
            device_ids, output_device = None, None
        return original_ddp_init(self, module, device_ids, output_device, *args, **kwargs)

    dist.init_process_group = init_process_group
    DistributedDataParallel.__init__ = ddp_init
    # Code that imported it from the submodule (from torch.distributed.distributed_c10d import).
    import torch.distributed.distributed_c10d as c10d

    c10d.init_process_group = init_process_group
