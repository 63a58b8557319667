#!/usr/bin/env python3
"""check_observe.py: checks a run report (--report=json) and a trace
(--trace) that bdmpiexec wrote, against what the job must have done.

  check_observe.py [--report FILE] [--trace FILE] --nranks N --nnodes M
                   [--partial] [--missing-nodes none|N,N...]
                   [--collective MPI_Bcast ...] [--sent-min N]
                   [--path-min PATH[+PATH...]:N ...]
                   [--written-back-min BYTES] [--read-back-min BYTES]
                   [--disk-read-min BYTES]
                   [--running-auto RANKS_PER_NODE]
                   [--held-for-memory-min N] [--held-for-memory-max N]

Report: the schema, one entry per rank and node, times that add up to at
most the wall time, messages counted, the named collectives present;
partial only when --partial; with --missing-nodes, the report names
exactly those nodes as missing and has every other node's figures and
ranks. Trace: valid JSON in the trace-event format;
every rank's track has events, balanced B/E (nested properly), times in
order; async master events paired. Prints what it checked; exit 1 on the
first failed check.
"""
import argparse
import collections
import json
import os
import sys


def scratch_on_tmpfs():
    """Whether the jobs' scratch dirs (under $TMPDIR, as run_job.sh makes
    them) are on a tmpfs: the longest mount point that holds it decides."""
    path = os.path.realpath(os.environ.get("TMPDIR", "/tmp"))
    best, fstype = "", ""
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            point = fields[1]
            inside = path == point or path.startswith(point.rstrip("/") + "/")
            if inside and len(point) >= len(best):
                best, fstype = point, fields[2]
    return fstype == "tmpfs"


def fail(message):
    print("check_observe: FAIL: " + message)
    sys.exit(1)


def check_report(path, args):
    with open(path) as f:
        report = json.load(f)
    if report.get("schema") != "bdmpi-run-report/8":
        fail("report schema is %r" % report.get("schema"))
    if report["nranks"] != args.nranks or report["nnodes"] != args.nnodes:
        fail("report says %d ranks on %d nodes" % (report["nranks"], report["nnodes"]))
    if report["partial"] != args.partial:
        fail("report partial=%s (%s), expected %s"
             % (report["partial"], report["partial_reason"], args.partial))
    expected_ranks = args.nranks if not args.partial else None
    ranks = sorted(r["rank"] for r in report["ranks"])
    if expected_ranks is not None and ranks != list(range(args.nranks)):
        fail("report ranks %s" % ranks)
    nodes = sorted(n["node"] for n in report["nodes"])
    if not args.partial and nodes != list(range(args.nnodes)):
        fail("report nodes %s" % nodes)
    if args.missing_nodes is not None:
        check_missing_nodes(report, nodes, args)
    wall = report["wall_s"]
    sent = 0
    for rank in report["ranks"]:
        seconds = rank["seconds"]
        total = sum(seconds.values())
        if total > wall * 1.05 + 0.05:
            fail("rank %d spent %.3f s in all, more than the wall time %.3f s"
                 % (rank["rank"], total, wall))
        if not args.partial and seconds["running"] <= 0:
            fail("rank %d never ran" % rank["rank"])
        sent += sum(path["messages"] for key, path in rank["sent"].items() if key != "cross_node")
    written = sum(rank["written_back_bytes"] for rank in report["ranks"])
    if written < args.written_back_min:
        fail("%d bytes written back in all, expected at least %d" % (written, args.written_back_min))
    read = sum(rank["read_back_bytes"] for rank in report["ranks"])
    if read < args.read_back_min:
        fail("%d bytes read back in all, expected at least %d" % (read, args.read_back_min))
    disk_read = sum(rank["disk_read_bytes"] for rank in report["ranks"])
    if args.disk_read_min > 0 and scratch_on_tmpfs():
        print("check_observe: the scratch dir is on a tmpfs, whose reads are no disk's: "
              "disk reads not checked")
    elif disk_read < args.disk_read_min:
        fail("the ranks read %d bytes from disk in all, expected at least %d"
             % (disk_read, args.disk_read_min))
    if any(rank["major_faults"] < 0 for rank in report["ranks"]):
        fail("negative major faults")
    if sent < args.sent_min:
        fail("%d messages sent in all, expected at least %d" % (sent, args.sent_min))
    for path_min in args.path_min:
        path, minimum = path_min.split(":")
        # "direct+placed": the messages of either path.
        count = sum(rank["sent"][one]["messages"] for rank in report["ranks"]
                    for one in path.split("+"))
        if count < int(minimum):
            fail("%d messages went the %s way, expected at least %s" % (count, path, minimum))
    for node in report["nodes"]:
        if node["master_peak_rss_bytes"] <= 0:
            fail("node %d has no master peak RSS" % node["node"])
        budget = node["budget"]
        if not 0 < budget["least_bytes"] <= budget["mean_bytes"] <= budget["most_bytes"]:
            fail("node %d budget %s" % (node["node"], budget))
        check_running(node, wall, args)
    cross_node = sum(rank["sent"]["cross_node"]["messages"] for rank in report["ranks"])
    net_sent = sum(n["network"]["sent"]["messages"] for n in report["nodes"])
    net_received = sum(n["network"]["received"]["messages"] for n in report["nodes"])
    if not args.partial and not (cross_node == net_sent == net_received):
        fail("%d messages to other nodes, the networks sent %d and received %d"
             % (cross_node, net_sent, net_received))
    operations = {c["operation"]: c for c in report["collectives"]}
    for coll in report["collectives"]:
        if sum(coll["algorithms"].values()) != coll["inter_node_steps"]:
            fail("collective %s: algorithms %s for %d inter-node steps"
                 % (coll["operation"], coll["algorithms"], coll["inter_node_steps"]))
    for name in args.collective:
        if name not in operations or operations[name]["count"] < 1:
            fail("collective %s missing from %s" % (name, sorted(operations)))
        if args.nnodes > 1 and operations[name]["inter_node_steps"] < 1:
            fail("collective %s has no inter-node step on %d nodes" % (name, args.nnodes))
    print("check_observe: report OK: %d ranks, %d nodes, %d messages (%d between nodes), "
          "%d bytes written back, %d read back, collectives %s, %.3f s"
          % (len(ranks), len(nodes), sent, net_sent, written, read,
             {c["operation"]: c["algorithms"] for c in report["collectives"]}, wall))


def check_running(node, wall, args):
    """How many ranks ran at once: a limit, seconds per count adding up to
    the node's time at most; with --running-auto NS, -nr auto chose the
    cores (at most NS); --held-for-memory-min/max bound how often -nr auto
    ran fewer for memory."""
    running = node["running"]
    limit, seconds = running["limit"], running["seconds"]
    if limit < 1 or len(seconds) < 1 or len(seconds) > limit + 1:
        fail("node %d: running limit %d with seconds %s" % (node["node"], limit, seconds))
    if any(s < 0 for s in seconds) or sum(seconds) > wall * 1.05 + 0.05:
        fail("node %d: %s s with k ranks running, wall %.3f s" % (node["node"], seconds, wall))
    if args.running_auto is not None:
        if not running["auto"] or running["cores"] < 1:
            fail("node %d: -nr auto not recorded: %s" % (node["node"], running))
        if limit != max(1, min(running["cores"], args.running_auto)):
            fail("node %d: -nr auto ran %d at once with %d cores and %d ranks"
                 % (node["node"], limit, running["cores"], args.running_auto))
    if args.held_for_memory_min > 0 and limit > 1:
        if running["held_for_memory"] < args.held_for_memory_min:
            fail("node %d: -nr auto never ran fewer for memory: %s" % (node["node"], running))
    if args.held_for_memory_max is not None and running["held_for_memory"] > args.held_for_memory_max:
        fail("node %d: -nr auto ran fewer for memory %d times: %s"
             % (node["node"], running["held_for_memory"], running))
    print("check_observe: node %d ran %s at once (limit %d%s), seconds by count %s, "
          "fewer for memory %d times" % (node["node"], "ranks", limit,
                                         ", auto of %d cores" % running["cores"]
                                         if running["auto"] else "",
                                         seconds, running["held_for_memory"]))


def check_missing_nodes(report, nodes, args):
    """A failed job's report: the nodes it names as missing, and every
    other node's figures (its master sent them to node 0)."""
    missing = [] if args.missing_nodes == "none" else \
        sorted(int(n) for n in args.missing_nodes.split(","))
    if report["missing_nodes"] != missing:
        fail("report names nodes %s as missing, expected %s (%s)"
             % (report["missing_nodes"], missing, report["partial_reason"]))
    present = [n for n in range(args.nnodes) if n not in missing]
    if nodes != present:
        fail("report has the figures of nodes %s, expected %s (%s)"
             % (nodes, present, report["partial_reason"]))
    per_node = args.nranks // args.nnodes
    rank_nodes = sorted({r["node"] for r in report["ranks"]})
    if rank_nodes != present or len(report["ranks"]) != per_node * len(present):
        fail("report has %d ranks of nodes %s, expected %d of nodes %s"
             % (len(report["ranks"]), rank_nodes, per_node * len(present), present))
    for name in missing:
        if ("node %d" % name) not in report["partial_reason"]:
            fail("the partial reason does not name node %d: %s" % (name, report["partial_reason"]))


def check_trace(path, args):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    other = trace["otherData"]
    if other.get("dropped_events", -1) != 0:
        fail("trace dropped %s events" % other.get("dropped_events"))
    stacks = collections.defaultdict(list)
    last_ts = {}
    rank_events = collections.Counter()
    async_open = {}
    for event in events:
        phase = event["ph"]
        if phase == "M":
            continue
        key = (event["pid"], event["tid"])
        ts = float(event["ts"])
        if phase in "BE":
            if ts < last_ts.get(key, float("-inf")):
                fail("track %s goes back in time at %s" % (key, event))
            last_ts[key] = ts
            rank_events[event["tid"]] += 1
            if phase == "B":
                stacks[key].append(event["name"])
            else:
                if not stacks[key] or stacks[key][-1] != event["name"]:
                    fail("track %s ends %r, which is not open (%s)"
                         % (key, event["name"], stacks[key]))
                stacks[key].pop()
        elif phase in "be":
            akey = (event["pid"], event["id"], event["name"])
            if phase == "b":
                async_open[akey] = ts
            else:
                if akey not in async_open or async_open.pop(akey) > ts:
                    fail("async event %s ends before it began" % (akey,))
        else:
            fail("unexpected phase in %s" % event)
    unbalanced = {k: v for k, v in stacks.items() if v}
    if unbalanced:
        fail("tracks left open: %s" % unbalanced)
    if async_open:
        fail("async events never ended: %s" % list(async_open)[:5])
    transfers = sum(1 for e in events if e["ph"] == "b" and e["name"].startswith("send to node"))
    if args.nnodes > 1 and not args.partial and transfers == 0:
        fail("no network transfer in the trace of a job on %d nodes" % args.nnodes)
    steps = [e for e in events if e["ph"] == "b" and e["name"].endswith("inter-node step")]
    if any("algorithm" not in e["args"] for e in steps):
        fail("an inter-node step without its algorithm")
    write_backs = sum(1 for e in events if e["ph"] == "b" and e["name"].startswith("write-back"))
    if args.written_back_min > 0 and write_backs == 0:
        fail("no write-back event in the trace")
    missing = [r for r in range(args.nranks) if rank_events[r] == 0]
    if missing and not args.partial:
        fail("ranks without events: %s" % missing)
    pids = {e["pid"] for e in events}
    if not args.partial and pids != set(range(args.nnodes)):
        fail("trace has nodes %s" % sorted(pids))
    print("check_observe: trace OK: %d events, %d rank tracks, nodes %s, %d transfers, "
          "%d inter-node steps" % (len(events), len(rank_events), sorted(pids), transfers,
                                   len(steps)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--report")
    parser.add_argument("--trace")
    parser.add_argument("--nranks", type=int, required=True)
    parser.add_argument("--nnodes", type=int, required=True)
    parser.add_argument("--partial", action="store_true")
    parser.add_argument("--missing-nodes")
    parser.add_argument("--collective", action="append", default=[])
    parser.add_argument("--sent-min", type=int, default=0)
    parser.add_argument("--path-min", action="append", default=[])
    parser.add_argument("--written-back-min", type=int, default=0)
    parser.add_argument("--read-back-min", type=int, default=0)
    parser.add_argument("--disk-read-min", type=int, default=0)
    parser.add_argument("--running-auto", type=int)
    parser.add_argument("--held-for-memory-min", type=int, default=0)
    parser.add_argument("--held-for-memory-max", type=int)
    args = parser.parse_args()
    if args.report:
        check_report(args.report, args)
    if args.trace:
        check_trace(args.trace, args)


if __name__ == "__main__":
    main()
