"""Reading a training run's log.jsonl (cudaperf-train grpo or sft), one record per step."""
import json


def step_records(path):
    """The records of the steps the run went on from, in step order. A run killed after logging a step but
    before its checkpoint is resumed from an earlier checkpoint and logs those steps again: when a step
    number does not rise, the records from that step on belong to the abandoned attempt and are dropped."""
    records = []
    for line in open(path):
        if not line.strip():
            continue
        record = json.loads(line)
        step = record.get("step")
        if step is not None:
            records = [kept for kept in records if kept.get("step") is None or kept["step"] < step]
        records.append(record)
    return records
