"""cudaperfd as a verl reward: point `custom_reward_function.path` at this file.

    custom_reward_function:
      path: docs/examples/verl_compute_score.py
      name: compute_score            # per sample (NaiveRewardManager)
      # name: compute_score_batch    # the whole batch at once (BatchRewardManager)

The dataset's `extra_info` carries the task name ({"task": "gemm"}); `data_source` may be anything.
Set CUDAPERF_URLS=http://host1:8742,http://host2:8742 to spread over several daemons.
"""
import os

from cudaperf_client import CudaperfClient, extract_code

_client = CudaperfClient(os.environ.get("CUDAPERF_URLS", "http://127.0.0.1:8742").split(","),
                         max_concurrency=int(os.environ.get("CUDAPERF_CONCURRENCY", "32")))


def _score(result):
    # verl logs every key of a returned dict; "score" is the reward.
    reward = result.get("reward", {})
    r_ver = reward.get("r_ver") or {}
    return {"score": reward.get("total", 0.0), "r_ver": r_ver.get("total", 0.0), "r_str": reward.get("r_str") or 0.0,
            "passed": float(result.get("status") == "ok"),
            "speedup": (result.get("timing") or {}).get("speedup", 0.0)}


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    task = (extra_info or {}).get("task") or ground_truth
    return _score(_client.evaluate(task, extract_code(solution_str), (extra_info or {}).get("turn", 1)))


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos):
    requests = [((info or {}).get("task") or truth, extract_code(solution), (info or {}).get("turn", 1))
                for solution, truth, info in zip(solution_strs, ground_truths, extra_infos)]
    return [_score(result) for result in _client.evaluate_many(requests)]
