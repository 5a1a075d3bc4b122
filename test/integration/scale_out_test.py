#!/usr/bin/env python3
"""Scale-out on loopback: three cudaperfd behind nginx, as docs/api.md shows.

What is pinned:
  - nginx spreads requests over the daemons (every store gets some);
  - a daemon killed with SIGKILL costs no request: nginx passes it on to the
    next daemon, and the command-line client given all three URLs too;
  - the killed daemon's store keeps every answer it gave (WAL, kill -9);
  - `cudaperfd export --db A --db B --db C` merges the stores into one
    training file: every evaluation once, each line naming its store.

usage: scale_out_test.py CUDAPERFD TASKS_DIR CUDAPERF_CLI
Exits 77 (skipped) where nginx is not installed.
"""
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

if len(sys.argv) != 4:
    sys.exit(__doc__)
cudaperfd, tasks_dir, cli = sys.argv[1:]
nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
if nginx is None:
    print("nginx is not installed (Debian nginx-light): skipped")
    sys.exit(77)

failures = []


def check(condition, what):
    print("%s: %s" % ("PASS" if condition else "FAIL", what))
    if not condition:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, timeout=300):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=json.dumps(body) if body is not None else None,
                           headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def kernel(k):
    """A small, distinct vector_add for request k (each a new evaluation)."""
    return ('__global__ void add%d(const float *a, const float *b, float *c, int n) {\n'
            '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
            '  if (i < n) c[i] = a[i] + b[i];\n}\n'
            'extern "C" void vector_add(const float *a, const float *b, float *c, int n) {\n'
            '  add%d<<<(n + 255) / 256, 256>>>(a, b, c, n);\n}\n' % (k, k))


work = tempfile.mkdtemp(prefix="cudaperf-scale-out-")
daemons, nginx_process = [], None
try:
    # Three daemons, each with its own store and cache (one per GPU host in production).
    for d in range(3):
        folder = os.path.join(work, "daemon%d" % d)
        os.makedirs(folder)
        process = subprocess.Popen(
            [cudaperfd, "--listen", "127.0.0.1:0", "--tasks", tasks_dir, "--db", os.path.join(folder, "store.sqlite"),
             "--cache", os.path.join(folder, "cache"), "--gpus", "", "--precompiled-headers", "false",
             "--log-level", "warn"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = process.stdout.readline()
        if "listening on" not in line:
            sys.exit("cudaperfd %d did not start" % d)
        daemons.append({"process": process, "port": int(line.rsplit(":", 1)[1]),
                        "db": os.path.join(folder, "store.sqlite")})

    # nginx in front, a config generated the way docs/api.md writes it.
    prefix = os.path.join(work, "nginx")
    os.makedirs(os.path.join(prefix, "logs"))
    os.makedirs(os.path.join(prefix, "temp"))
    os.chmod(os.path.join(prefix, "temp"), 0o777)  # worker processes may run as nobody
    port = free_port()
    servers = "\n".join("    server 127.0.0.1:%d max_fails=1 fail_timeout=30s;" % d["port"] for d in daemons)
    config = """
worker_processes 1;
pid %(prefix)s/nginx.pid;
error_log %(prefix)s/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %(prefix)s/temp/body;
  proxy_temp_path %(prefix)s/temp/proxy;
  fastcgi_temp_path %(prefix)s/temp/fastcgi;
  uwsgi_temp_path %(prefix)s/temp/uwsgi;
  scgi_temp_path %(prefix)s/temp/scgi;
  upstream cudaperfd {
%(servers)s
    keepalive 16;
  }
  server {
    listen 127.0.0.1:%(port)d;
    client_max_body_size 2m;
    client_body_buffer_size 2m;
    location / {
      proxy_pass http://cudaperfd;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_read_timeout 900s;
      # An evaluation is idempotent (same request, same stored answer): a
      # POST may go on to the next daemon when one is down or busy.
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 3;
    }
  }
}
""" % {"prefix": prefix, "servers": servers, "port": port}
    config_file = os.path.join(prefix, "nginx.conf")
    open(config_file, "w").write(config)
    nginx_process = subprocess.Popen([nginx, "-p", prefix, "-e", os.path.join(prefix, "logs", "error.log"),
                                      "-c", config_file, "-g", "daemon off;"], stderr=subprocess.PIPE, text=True)
    for _ in range(100):
        try:
            if call(port, "GET", "/healthz", timeout=5)[0] == 200:
                break
        except OSError:
            pass
        if nginx_process.poll() is not None:
            sys.exit("nginx did not start: " + nginx_process.stderr.read())
        time.sleep(0.1)

    # 1. Spread: nine evaluations through nginx.
    answered = 0
    for k in range(9):
        status, body = call(port, "POST", "/v1/evaluate", {"task": "vector_add", "source": kernel(k)})
        answered += status == 200 and json.loads(body)["status"] in ("ok", "no_gpu")
    check(answered == 9, "9 of 9 evaluations through nginx answered (%d)" % answered)

    def stored(db):
        out = subprocess.run([cudaperfd, "export", "--db", db, "--format", "jsonl"], capture_output=True, text=True)
        return [json.loads(line) for line in out.stdout.splitlines()]

    counts = [len(stored(d["db"])) for d in daemons]
    check(sum(counts) == 9 and all(c > 0 for c in counts), "every daemon served some: %s" % counts)

    # 2. One daemon killed: nothing is lost, nginx and the client go on.
    victim = daemons[1]
    victim["process"].send_signal(signal.SIGKILL)
    victim["process"].wait()
    answered = 0
    for k in range(9, 15):
        status, body = call(port, "POST", "/v1/evaluate", {"task": "vector_add", "source": kernel(k)})
        answered += status == 200
    check(answered == 6, "6 of 6 evaluations answered with one daemon killed (%d)" % answered)
    check(len(stored(victim["db"])) == counts[1], "the killed daemon's store kept its %d answers" % counts[1])
    source_file = os.path.join(work, "candidate.cu")
    open(source_file, "w").write(kernel(99))
    urls = ",".join("http://127.0.0.1:%d" % d["port"] for d in daemons)
    served = 0
    for _ in range(4):  # the client starts at a random URL: the dead one among them
        run = subprocess.run([cli, "--url", urls, "eval", "--task", "vector_add", source_file],
                             capture_output=True, text=True, timeout=300)
        served += run.returncode == 0 and json.loads(run.stdout)["task"] == "vector_add"
    check(served == 4, "the client given all three URLs (one dead) was answered 4 of 4 times (%d)" % served)

    # 3. The stores merged into one training file.
    merged = subprocess.run([cudaperfd, "export"] + sum((["--db", d["db"]] for d in daemons), []) +
                            ["--format", "jsonl"], capture_output=True, text=True)
    lines = [json.loads(line) for line in merged.stdout.splitlines()]
    totals = [len(stored(d["db"])) for d in daemons]
    keys = [line["key"] for line in lines]
    unique = len(set(keys))
    check(merged.returncode == 0 and len(lines) == unique,
          "the merged export has each evaluation once (%d lines, %d keys)" % (len(lines), unique))
    # 16 distinct requests; kernel(99) may sit in both live stores (the same key), kept once.
    check(unique == 16 and sum(totals) >= 16,
          "the merged export covers the 16 distinct evaluations (%d; stores %s)" % (unique, totals))
    check(all(line["store"] in [d["db"] for d in daemons] for line in lines), "each merged line names its store")
finally:
    if nginx_process and nginx_process.poll() is None:
        nginx_process.send_signal(signal.SIGQUIT)
        try:
            nginx_process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            nginx_process.kill()
    for d in daemons:
        if d["process"].poll() is None:
            d["process"].terminate()
            d["process"].wait(timeout=120)
    shutil.rmtree(work, ignore_errors=True)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
