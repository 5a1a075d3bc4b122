#!/usr/bin/env python3
"""scripts/training_log.py: a log with redone steps reads as the steps the run went on from
(what scripts/train-report and scripts/plot-training tabulate and draw).

  python3 test/integration/training_log_test.py
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "scripts"))
from training_log import step_records  # noqa: E402


def log_of(steps):
    handle, path = tempfile.mkstemp(suffix=".jsonl")
    with os.fdopen(handle, "w") as out:
        for order, step in enumerate(steps):
            out.write(json.dumps({"step": step, "written": order}) + "\n\n")
    return path


class StepRecords(unittest.TestCase):
    def test_a_run_without_a_resume_is_read_as_written(self):
        self.assertEqual([r["step"] for r in step_records(log_of([1, 2, 3]))], [1, 2, 3])

    def test_a_step_logged_again_after_a_resume_counts_once_as_its_later_record(self):
        # killed after step 11 was logged, resumed from the step-10 checkpoint
        records = step_records(log_of([9, 10, 11, 11, 12]))
        self.assertEqual([(r["step"], r["written"]) for r in records], [(9, 0), (10, 1), (11, 3), (12, 4)])

    def test_a_resume_from_further_back_drops_every_abandoned_step(self):
        records = step_records(log_of([1, 2, 3, 4, 5, 3, 4]))
        self.assertEqual([(r["step"], r["written"]) for r in records], [(1, 0), (2, 1), (3, 5), (4, 6)])


if __name__ == "__main__":
    unittest.main()
