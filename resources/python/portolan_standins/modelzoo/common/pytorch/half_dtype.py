"""The half type of a run (Model Zoo R1.8): float16 unless a config asks for bfloat16."""
import torch


class _HalfDType:
    def __init__(self):
        self.use_bfloat16 = False

    @property
    def half_dtype(self):
        return torch.bfloat16 if self.use_bfloat16 else torch.float16


half_dtype_instance = _HalfDType()
