"""modelzoo.common.pytorch.model_utils.RotaryPositionEmbeddingHelper (stand-in, Model Zoo
R1.6-R1.8): rotary position embeddings (RoFormer), GPT-J style: the first `rotary_dim`
features of each head are rotated pairwise (features 2i and 2i+1 together)."""
import torch


class RotaryPositionEmbeddingHelper:
    def __init__(self, max_position_embeddings, rotary_dim):
        if rotary_dim % 2:
            raise ValueError(f"rotary_dim must be even, got {rotary_dim}")
        self.max_position_embeddings = max_position_embeddings
        self.rotary_dim = rotary_dim
        self.sin_cos = None

    def create_fixed_pos_emb(self, device, dtype):
        """(sin, cos), each [max_position_embeddings, rotary_dim / 2]."""
        if self.sin_cos is None or self.sin_cos[0].device != torch.device(device) or \
                self.sin_cos[0].dtype != dtype:
            inv_freq = 1.0 / (10000 ** (torch.arange(0, self.rotary_dim, 2, device=device,
                                                     dtype=torch.float32) / self.rotary_dim))
            positions = torch.arange(self.max_position_embeddings, device=device,
                                     dtype=torch.float32)
            angles = torch.outer(positions, inv_freq)
            self.sin_cos = (torch.sin(angles).to(dtype), torch.cos(angles).to(dtype))
        return self.sin_cos

    def rotate_tensor(self, x, real_seq_length, offset=0):
        """x: [batch_size, seq_length, num_heads, head_dim]; positions offset..offset+seq."""
        if x.dim() != 4:
            raise ValueError("Tensor should be of shape [batch_size, seq_length, num_heads, "
                             "head_dim]")
        sin, cos = self.create_fixed_pos_emb(x.device, x.dtype)
        seq = x.shape[1]
        # [1, seq, 1, rotary_dim]: each frequency serves a pair of features.
        sin = sin[offset:offset + seq].repeat_interleave(2, dim=-1)[None, :, None, :]
        cos = cos[offset:offset + seq].repeat_interleave(2, dim=-1)[None, :, None, :]
        rot, rest = x[..., :self.rotary_dim], x[..., self.rotary_dim:]
        even, odd = rot[..., ::2], rot[..., 1::2]
        turned = torch.stack((-odd, even), dim=-1).flatten(-2)
        return torch.cat([rot * cos + turned * sin, rest], dim=-1)
