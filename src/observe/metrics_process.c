/* SPDX-License-Identifier: Apache-2.0 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "observe/metrics_collectors.h"
#include "observe/prom_text.h"

/* The process' virtual and resident sizes in bytes from /proc/self/statm. */
static int read_statm(double *vsize, double *rss)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return -1;
    unsigned long pages_total = 0, pages_resident = 0;
    int n = fscanf(f, "%lu %lu", &pages_total, &pages_resident);
    fclose(f);
    if (n != 2)
        return -1;
    double page = (double)sysconf(_SC_PAGESIZE);
    *vsize = (double)pages_total * page;
    *rss = (double)pages_resident * page;
    return 0;
}

/* Entries of /proc/self/fd, less the one the listing itself holds open. */
static int count_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

/* Seconds since the epoch when the process started (boot time + start ticks). */
static double process_start_time(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    char buf[1024];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* Field 22 (starttime) counts from after the command's closing parenthesis. */
    char *p = strrchr(buf, ')');
    unsigned long long start_ticks = 0;
    if (!p || sscanf(p + 2,
                     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                     "%*d %*d %llu",
                     &start_ticks) != 1)
        return -1;
    struct timespec since_boot, now;
    clock_gettime(CLOCK_BOOTTIME, &since_boot);
    clock_gettime(CLOCK_REALTIME, &now);
    double boot =
        (double)now.tv_sec + now.tv_nsec / 1e9 - since_boot.tv_sec - since_boot.tv_nsec / 1e9;
    return boot + (double)start_ticks / (double)sysconf(_SC_CLK_TCK);
}

void gr_metrics_collect_process(gr_broker_t *b, gr_writer_t *out)
{
    (void)b;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
        gr_prom_family(out, "process_cpu_seconds_total", GR_PROM_COUNTER,
                       "Total user and system CPU time spent in seconds.");
        gr_prom_sample(out, "process_cpu_seconds_total", NULL, NULL, 0, cpu);
    }
    double vsize, rss;
    if (read_statm(&vsize, &rss) == 0) {
        gr_prom_family(out, "process_virtual_memory_bytes", GR_PROM_GAUGE,
                       "Virtual memory size in bytes.");
        gr_prom_sample(out, "process_virtual_memory_bytes", NULL, NULL, 0, vsize);
        gr_prom_family(out, "process_resident_memory_bytes", GR_PROM_GAUGE,
                       "Resident memory size in bytes.");
        gr_prom_sample(out, "process_resident_memory_bytes", NULL, NULL, 0, rss);
    }
    int fds = count_open_fds();
    if (fds >= 0) {
        gr_prom_family(out, "process_open_fds", GR_PROM_GAUGE, "Number of open file descriptors.");
        gr_prom_sample(out, "process_open_fds", NULL, NULL, 0, fds);
    }
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0) {
        gr_prom_family(out, "process_max_fds", GR_PROM_GAUGE,
                       "Maximum number of open file descriptors.");
        gr_prom_sample(out, "process_max_fds", NULL, NULL, 0, (double)lim.rlim_cur);
    }
    double start = process_start_time();
    if (start > 0) {
        gr_prom_family(out, "process_start_time_seconds", GR_PROM_GAUGE,
                       "Start time of the process since unix epoch in seconds.");
        gr_prom_sample(out, "process_start_time_seconds", NULL, NULL, 0, start);
    }
}
