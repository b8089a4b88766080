"""cerebras.pb.common (stand-in): see cerebras.pb."""
