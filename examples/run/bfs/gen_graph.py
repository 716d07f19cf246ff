#!/usr/bin/env python3
"""Writes an undirected small-world graph in Rodinia's BFS text format:

    <number of nodes>
    <first edge> <edge count>        one line per node
    <source node>
    <number of edge entries>
    <destination> <cost>             one line per entry, grouped by node

Usage: gen_graph.py NODES [SEED] > graph.txt   (graph2k.txt: gen_graph.py 2048 7)
Each node links to 2 nodes at most 24 places away on a ring and, one time in 25, to a
random node anywhere; every link is listed under both of its ends.
"""
import random
import sys


def main():
    n = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 7)
    adj = [set() for _ in range(n)]
    for u in range(n):
        for _ in range(2):
            v = (u + rng.randint(1, 24)) % n
            adj[u].add(v)
            adj[v].add(u)
        if rng.randrange(25) == 0:
            v = rng.randrange(n)
            if v != u:
                adj[u].add(v)
                adj[v].add(u)
    out = [str(n)]
    start = 0
    for u in range(n):
        out.append(f"{start} {len(adj[u])}")
        start += len(adj[u])
    out.append("0")
    out.append(str(start))
    for u in range(n):
        for v in sorted(adj[u]):
            out.append(f"{v} {rng.randint(1, 9)}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
