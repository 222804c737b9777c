"""Helpers shared by the peer-comparison summaries (compare_summary.py, bfv_bgv_summary.py)."""
import json
import os


def load_jsonl(path):
    """The JSON records of a harness's output file, one per line ([] if it is missing)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
