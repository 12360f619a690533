/* SPDX-License-Identifier: Apache-2.0 */
/* broker/sd_notify: the datagram systemd reads, to a path and to an abstract name. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "broker/sd_notify.h"

/* Binds a datagram socket where systemd would, at addr ("@name": abstract). */
static int bind_receiver(const char *addr)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t len = strlen(addr);
    memcpy(sa.sun_path, addr, len);
    if (addr[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(
        bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)),
        0);
    return fd;
}

static void expect_datagram(int fd, const char *want)
{
    char buf[256];
    ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

static void test_path_socket(void **state)
{
    (void)state;
    char dir[] = "/tmp/gr-sd-notify-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/notify", dir);
    int fd = bind_receiver(path);
    assert_int_equal(gr_sd_notify_send(path, "READY=1\nSTATUS=accepting clients"), 0);
    expect_datagram(fd, "READY=1\nSTATUS=accepting clients");
    assert_int_equal(gr_sd_notify_send(path, "STOPPING=1"), 0);
    expect_datagram(fd, "STOPPING=1");
    close(fd);
    unlink(path);
    rmdir(dir);
}

static void test_abstract_socket(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "@gr-sd-notify-test-%d", (int)getpid());
    int fd = bind_receiver(name);
    assert_int_equal(gr_sd_notify_send(name, "READY=1"), 0);
    expect_datagram(fd, "READY=1");
    close(fd);
}

/* Not run by systemd: nothing to do, and not an error. */
static void test_no_socket(void **state)
{
    (void)state;
    assert_int_equal(gr_sd_notify_send(NULL, "READY=1"), 0);
    assert_int_equal(gr_sd_notify_send("", "READY=1"), 0);
}

static void test_bad_names(void **state)
{
    (void)state;
    assert_int_equal(gr_sd_notify_send("relative/notify", "READY=1"), -EINVAL);
    char long_name[200];
    memset(long_name, 'a', sizeof long_name - 1);
    long_name[0] = '/';
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(gr_sd_notify_send(long_name, "READY=1"), -EINVAL);
    /* Nobody listening: the error is returned (and logged by the broker), not ignored. */
    assert_int_equal(gr_sd_notify_send("/nonexistent-gr-sd-notify/notify", "READY=1"), -ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_socket),
        cmocka_unit_test(test_abstract_socket),
        cmocka_unit_test(test_no_socket),
        cmocka_unit_test(test_bad_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
