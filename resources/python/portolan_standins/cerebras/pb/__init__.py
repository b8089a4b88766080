"""cerebras.pb (stand-in): the closed Cerebras stack's protocol-buffer messages. Model Zoo R1.x
code imports a few enum values from it at import time (autogen and tri-state policies) and sets
them on the system's configuration, which a CPU dry run never compiles; the values here are
only distinct names."""
