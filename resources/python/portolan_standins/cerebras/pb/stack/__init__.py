"""cerebras.pb.stack (stand-in): see cerebras.pb."""
