"""modelzoo.common.model_utils.count_lines (stand-in, Model Zoo R1.6-R1.8)."""
import glob


def count_lines(filename_pattern):
    """The number of lines over every file the glob pattern matches (data scripts size their
    epochs with it)."""
    total = 0
    for path in sorted(glob.glob(filename_pattern)):
        with open(path, "rb") as f:
            total += sum(1 for _ in f)
    return total
