"""modelzoo.common.pytorch.input_utils (stand-in, Model Zoo R1.6-R1.8)."""
import bisect
import random

from torch.utils.data._utils.collate import default_collate


def bucketed_batch(data_iterator, batch_size, buckets=None, element_length_fn=None,
                   collate_fn=None, drop_last=False, seed=None):
    """Batches samples from an iterator, grouping samples of similar length when `buckets`
    (sorted, positive integer boundaries) is given; leftovers are shuffled (with `seed`) and
    batched at the end unless drop_last."""
    if batch_size < 1:
        raise ValueError(f"Batch size must be at least 1. Got {batch_size}.")
    collate = collate_fn or default_collate
    if buckets is None:
        pending = []
        for element in data_iterator:
            pending.append(element)
            if len(pending) == batch_size:
                yield collate(pending)
                pending = []
        if pending and not drop_last:
            yield collate(pending)
        return
    if not isinstance(buckets, list):
        raise ValueError(f"buckets must be None or a list of boundaries. Got {buckets}.")
    if sorted(buckets) != buckets:
        raise ValueError(f"Bucket boundaries must be sorted. Got {buckets}.")
    if buckets and buckets[0] <= 0:
        raise ValueError(f"Bucket boundaries must be greater than zero. Got {buckets}.")
    if buckets and not isinstance(buckets[0], int):
        raise ValueError(f"Elements of `buckets` must be integers. Got {type(buckets[0])}.")
    if element_length_fn is None:
        raise ValueError("You must supply a length function when using bucketing.")
    groups = [[] for _ in range(len(buckets) + 1)]
    for element in data_iterator:
        group = groups[bisect.bisect_right(buckets, element_length_fn(element))]
        group.append(element)
        if len(group) == batch_size:
            yield collate(list(group))
            group.clear()
    if drop_last:
        return
    rest = [e for group in groups for e in group]
    random.Random(seed).shuffle(rest)
    for i in range(0, len(rest), batch_size):
        yield collate(rest[i:i + batch_size])
