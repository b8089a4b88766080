"""cerebras.pb.stack.autogen_pb2 (stand-in): the autogen policy enum that Model Zoo R1.x sets
on `state.full_config.matching.autogen_policy`; off the system nothing reads it."""
AP_DISABLED = 0
AP_ENABLED = 1
