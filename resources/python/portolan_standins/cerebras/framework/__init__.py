"""cerebras.framework (stand-in for Portolan's CPU dry run, written for Portolan): the closed
Cerebras PyTorch framework of Model Zoo R1.0-R1.7, as it behaves off a Cerebras system."""
