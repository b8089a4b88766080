"""The project's own batch-size arguments, shrunk together with its loaders.

The dry run trains at a small batch (--batch), which the DataLoader hook applies where loaders
are built. A program that also sizes other things from its batch-size argument (a parameter of
shape [batch, 1, d], an initial hidden state, a reshape to [batch, ...]) would then see two
batches, the argument's and the loaders', and fail on a shape mismatch that the real run never
has. So an integer batch-size argument of the command line that is larger than the dry run's
batch is shrunk to it before the program reads it: what the program derives from it agrees with
its loaders, and a loader built from a multiple of it (a PopTorch combined batch) is refitted as
before. A batch the dry run keeps whole (at most `hooks.KEPT_BATCH`) is left as it is, as its
loaders are. Announced once, in a `batch-shrunk` warning naming each argument; the capture keeps the
argument's value as the project's full batch (through the hooks' record of requested batches).
"""
import _portolan_hooks as hooks


def shrink(session, namespace):
    """Shrinks the batch-size arguments of a parsed command line in place; returns
    [(name, asked, used)]."""
    batch = hooks.dry_run_batch
    if batch is None or namespace is None:
        return []
    changed = []
    for key, value in list(vars(namespace).items()):
        if not hooks.BATCH_NAME.search(key) or isinstance(value, bool) or not isinstance(value, int) or \
                hooks.dry_batch(value) == value:
            continue
        used = hooks.clamp_batch(value, f"argparse --{key}")
        setattr(namespace, key, used)
        changed.append((key, value, used))
    if changed:
        shown = ", ".join(f"{key} {asked} -> {used}" for key, asked, used in changed)
        session.events.emit(
            "warning", kind="batch-shrunk",
            message=f"the project's batch-size argument{'s' if len(changed) > 1 else ''} "
            f"({shown}) {'are' if len(changed) > 1 else 'is'} shrunk to the dry run's batch "
            f"{batch}, so that what the program sizes from {'them' if len(changed) > 1 else 'it'}"
            " agrees with its data loaders (--batch changes it; the capture keeps the "
            "project's value as the full batch)",
            arguments=[{"name": k, "asked": a, "used": u} for k, a, u in changed])
    return changed


def shrink_hparams(session, hparams):
    """A Determined trial's batch-size hyperparameters other than Determined's own
    (`global_batch_size`, which the loader hook sizes): a port whose step builds its batches
    keeps the original's flag (`batch_size`) as a hyperparameter, shrunk here as the original's
    argument is, so that both dry runs build the same batches. Returns the hyperparameters."""
    import types

    own = {k: v for k, v in hparams.items() if k != "global_batch_size"}
    namespace = types.SimpleNamespace(**own)
    if not shrink(session, namespace):
        return hparams
    return {**hparams, **vars(namespace)}
