"""modelzoo.common.model_utils (stand-in, Model Zoo R1.6-R1.8): framework-free helpers."""
