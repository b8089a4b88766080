"""cerebras_pytorch.experimental (R1.9-R2.0, where the cstorch API began as
`import cerebras_pytorch.experimental as cstorch`): the same names as cerebras.pytorch."""


def __getattr__(name):
    import cerebras.pytorch as cstorch

    return getattr(cstorch, name)
