#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Splits a perf profile of Gregor (perf record --call-graph) by the kind of
work the loop was doing: the syscall a kernel sample was serving, or the
group of Gregor's functions a user sample was in (docs/sharding.md, 1.1).

usage: perf_buckets.py PERF_DATA [loop|all]

loop (default) counts only the loop thread (the process's first thread);
all counts every thread. Prints one line per group, largest first, and the
leaf functions of what fit no group.
"""
import collections
import re
import signal
import subprocess
import sys

# The libc wrapper a kernel sample came through -> its group.
SYSCALLS = [
    (r"pwrite", "syscall: pwrite to the log (page-cache copy)"),
    (r"__libc_write$|^write$", "syscall: socket write (TLS records)"),
    (r"^read$|__libc_read|recv", "syscall: socket read"),
    (r"sendmsg|writev|^send$|__send", "syscall: socket send (sendmsg/writev)"),
    (r"sendfile", "syscall: sendfile"),
    (r"epoll", "syscall: epoll_wait"),
    (r"fsync|fdatasync|syncfs", "syscall: fsync"),
    (r"pread", "syscall: pread (batch headers; TLS staging)"),
]
# User samples: the first group whose pattern matches a frame of the chain,
# leaf first; LEAF_ONLY groups match the leaf frame only (their own time).
USER = [
    (r"crc32c", "CRC-32C"),
    (r"validate_records|gr_record_iter_next|gr_batch_timestamps|gr_batch_validate",
     "record validation"),
    (r"^(malloc|free|calloc|realloc|cfree|_int_malloc|_int_free|_int_realloc|malloc_consolidate"
     r"|__libc_malloc|__libc_free|__libc_calloc|tcache|unlink_chunk)|gr_arena_", "allocation"),
    (r"_decode$|^gr_read_|gr_reader_|gr_request_header|gr_frame_", "decoding"),
    (r"_encode$|_size$|^gr_write_|gr_writer_|gr_chain_add", "encoding"),
    (r"gr_segment_append|seg_index|gr_segment_index|log_append|gr_log_append|gr_producer_state"
     r"|epoch_cache", "log append (user side)"),
    (r"request_stats|loop_stats|gr_clock|clock_gettime|histogram|slow_log", "metrics and clocks"),
    (r"^SSL_|^ssl|^tls1|^ossl|^EVP_|^CRYPTO|^BIO", "OpenSSL (user space)"),
    (r"memmove|memcpy|memset", "memmove/memcpy"),
    (r"^read$|^epoll_wait$|__libc_write|pthread_.*asynccancel|__errno_location|^__libc_pread"
     r"|^sendfile$|__libc_sendmsg", "libc syscall wrappers (user side)"),
    (r"^ev_|^fd_reify", "libev"),
]
LEAF_ONLY = {"memmove/memcpy", "libc syscall wrappers (user side)", "libev"}


def read_samples(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "comm,tid,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    samples, cur = [], None
    for line in out.splitlines():
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = None
        elif not line.startswith(("\t", " ")):
            comm, tid = line.split()[:2]
            cur = {"comm": comm, "tid": int(tid), "frames": []}
        else:
            m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)$", line)
            if m and cur is not None:
                cur["frames"].append((m.group(1), m.group(2)))
    if cur:
        samples.append(cur)
    return samples


def is_kernel(dso):
    return "kernel" in dso


def is_openssl(dso):
    return "libssl" in dso or "libcrypto" in dso


def group(frames):
    if not frames:
        return "?"
    if is_kernel(frames[0][1]):
        for sym, dso in frames:
            if is_kernel(dso):
                continue
            for rx, name in SYSCALLS:
                if re.search(rx, sym):
                    return name
            if not is_openssl(dso):
                return "kernel: interrupt or fault in user code"
            break
        else:
            return "kernel: interrupt or fault in user code"
    if is_openssl(frames[0][1]):
        return "OpenSSL (user space)"
    for rx, name in USER:
        for sym, dso in frames[:1] if name in LEAF_ONLY else frames:
            if not is_kernel(dso) and re.search(rx, sym):
                return name
    if frames[0][1].endswith(".so.4.0.0") and "libev" in frames[0][1]:
        return "libev"
    return "other: " + frames[0][0]


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    path = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "loop"
    samples = read_samples(path)
    if not samples:
        sys.exit(f"{path}: no samples")
    loop_tid = min(s["tid"] for s in samples)
    chosen = [s for s in samples if mode == "all" or s["tid"] == loop_tid]
    threads = collections.Counter(f'{s["comm"]}:{s["tid"]}' for s in samples)
    print(f"# {path}: {len(samples)} samples; threads: "
          + ", ".join(f"{k} {v}" for k, v in threads.most_common(6)) + f"; loop tid {loop_tid}")
    counts = collections.Counter(group(s["frames"]) for s in chosen)
    others = [(k, v) for k, v in counts.most_common() if k.startswith("other: ")]
    for k, v in counts.most_common():
        if not k.startswith("other: "):
            print(f"{100 * v / len(chosen):6.1f}%  {k}")
    print(f"{100 * sum(v for _, v in others) / len(chosen):6.1f}%  other:")
    for k, v in others[:12]:
        print(f"          {100 * v / len(chosen):5.1f}%  {k[len('other: '):]}")


if __name__ == "__main__":
    main()
