"""modelzoo.common.pytorch.model_utils (stand-in, Model Zoo R1.6-R1.8): losses, activations,
initializers and position-embedding helpers that models import, written to their public
signatures on torch.nn."""
