#!/usr/bin/env python3
"""tbtree.py: write a Terminal-Bench `tb run` output tree to measure import on
(docs/PERFORMANCE.md, issue 28): one run of TRIALS trials, each with
results.json, commands.txt, a LOG_MIB sessions/agent.log of colour prompts and
carriage-return redraws, a 200 KB sessions/tests.log and panes/post-test.txt;
every other trial also has Terminus agent-logs/episode-{0,1,2}/. The run's
results.json and run_metadata.json sit beside the task folders.

    scripts/tbtree.py /tmp/tb1g 200 5      # 1.1 GB
    scripts/tbtree.py /tmp/tb2g 1 2048     # one trial with a 2 GiB capture
                                           # (then remove its agent-logs/ so
                                           # the capture is what is read)
"""
import json, os, sys, random
root = sys.argv[1]; ntrials = int(sys.argv[2]); logmb = float(sys.argv[3])
RUN = "2025-07-01__00-00-00"
base = os.path.join(root, RUN)
os.makedirs(base, exist_ok=True)
line = "\x1b[32mroot@box:/app#\x1b[0m python run.py --step %d\r\nprogress 10%%\rprogress 100%%\r\n"
chunk = "".join(line % i for i in range(2000)).encode()
results = []
for i in range(ntrials):
    task = "task-%04d" % i
    name = f"{task}.1-of-1.{RUN}"
    d = os.path.join(base, task, name)
    os.makedirs(os.path.join(d, "sessions"), exist_ok=True)
    os.makedirs(os.path.join(d, "panes"), exist_ok=True)
    r = {"id": str(i), "trial_name": name, "task_id": task, "is_resolved": i % 3 != 0, "failure_mode": "agent_timeout" if i % 5 == 0 else "none",
         "parser_results": {"test_a": "passed", "test_b": "failed" if i % 3 == 0 else "passed"}, "total_input_tokens": 1000, "total_output_tokens": 100,
         "agent_started_at": "2025-07-01T00:00:00+00:00", "agent_ended_at": "2025-07-01T00:10:00+00:00"}
    results.append(r)
    json.dump(r, open(os.path.join(d, "results.json"), "w"))
    open(os.path.join(d, "commands.txt"), "w").write("python run.py\n" * 50)
    with open(os.path.join(d, "sessions", "agent.log"), "wb") as f:
        left = int(logmb * 1024 * 1024)
        while left > 0:
            f.write(chunk[:left]); left -= len(chunk)
    open(os.path.join(d, "sessions", "tests.log"), "wb").write(chunk[:200000])
    open(os.path.join(d, "panes", "post-test.txt"), "w").write("2 passed\n")
    if i % 2 == 0:
        for e in range(3):
            ed = os.path.join(d, "agent-logs", f"episode-{e}")
            os.makedirs(ed, exist_ok=True)
            open(os.path.join(ed, "prompt.txt"), "w").write("root@box:/app# ls\nfile\n" * 100)
            json.dump({"state_analysis": "x", "explanation": "step %d" % e, "commands": [{"keystrokes": "ls\n", "is_blocking": True, "timeout_sec": 5}], "is_task_complete": e == 2}, open(os.path.join(ed, "response.json"), "w"))
json.dump({"id": "run", "results": results, "n_resolved": sum(r["is_resolved"] for r in results), "n_unresolved": sum(not r["is_resolved"] for r in results)}, open(os.path.join(base, "results.json"), "w"))
json.dump({"run_id": RUN, "agent_name": "terminus", "model_name": "m"}, open(os.path.join(base, "run_metadata.json"), "w"))
