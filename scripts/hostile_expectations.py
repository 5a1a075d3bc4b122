"""The expected verdict of a hostile candidate, from its first two lines:

    // expect: VERDICT[, median_ms>=X] [or VERDICT[, median_ms>=X]]...
    // class: N what the attack is

A result matches when its status is one of the alternatives and that
alternative's bounds on the timing hold (an "ok" with an honest time).
Candidates without a class line are the sandbox's (issue 3's set).
"""
import re


def read(path):
    lines = open(path).read().splitlines()
    expect = lines[0].split("expect:", 1)[1].strip() if lines and "expect:" in lines[0] else "?"
    klass = "sandbox and limits"
    if len(lines) > 1 and lines[1].startswith("// class:"):
        klass = lines[1].split("class:", 1)[1].strip()
    return expect, klass


def alternatives(expect):
    result = []
    for alternative in expect.split(" or "):
        parts = [p.strip() for p in alternative.split(",")]
        bounds = []
        for bound in parts[1:]:
            match = re.fullmatch(r"(\w+)\s*>=\s*([\d.]+)", bound)
            if match:
                bounds.append((match.group(1), float(match.group(2))))
        result.append((parts[0], bounds))
    return result


def matches(expect, result):
    """(True/False, why) for a judge or daemon answer."""
    status = result.get("status")
    timing = result.get("timing") or {}
    for verdict, bounds in alternatives(expect):
        if status != verdict:
            continue
        failed = [(key, low) for key, low in bounds if not (timing.get(key) is not None and timing[key] >= low)]
        if not failed:
            return True, ""
        return False, "%s but %s" % (status, ", ".join("%s=%s < %s" % (k, timing.get(k), low) for k, low in failed))
    return False, "got %s" % status
