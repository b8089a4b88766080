"""cerebras.modelzoo.common.registry: where R2.3-R2.4 kept the registry (fallback)."""
from cerebras.modelzoo.registry import registry  # noqa: F401
