"""cudaperfd as a TRL GRPO reward function.

    from trl import GRPOConfig, GRPOTrainer
    from trl_reward import cudaperf_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[cudaperf_reward], train_dataset=dataset, args=GRPOConfig(...))

The dataset needs a `task` column (a bundled task name); TRL passes dataset columns to reward functions
as keyword arguments. The completions of one step are evaluated concurrently (bounded), so a group of G
candidates of one task shares a warm harness on the daemon's GPU.
"""
import os

from cudaperf_client import CudaperfClient, extract_code

_client = CudaperfClient(os.environ.get("CUDAPERF_URLS", "http://127.0.0.1:8742").split(","),
                         max_concurrency=int(os.environ.get("CUDAPERF_CONCURRENCY", "32")))


def cudaperf_reward(prompts, completions, task, **kwargs):
    turns = kwargs.get("turn") or [1] * len(completions)
    results = _client.evaluate_many([(t, extract_code(c), turn) for t, c, turn in zip(task, completions, turns)])
    return [result.get("reward", {}).get("total", 0.0) for result in results]
