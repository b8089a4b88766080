"""cerebras.pb.common.tri_state_pb2 (stand-in): the tri-state enum of the stack's options."""
TS_UNSPECIFIED = 0
TS_DISABLED = 1
TS_ENABLED = 2
