/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Keeps the generator's output read: tests/golden/gen/ holds a reviewed copy
 * of what tools/gen_codec.py writes for proto/api_versions.gp, and this test
 * fails when the build's gen/ differs from it, so every change to the
 * generated code is looked at once and committed as a diff.
 *
 * The generated directory is found next to the test binary (build/tests/ →
 * build/gen/) through /proc/self/exe, since the build passes only
 * GR_TEST_DATA_DIR. The comparison ignores whitespace, so a different
 * clang-format version (or none) does not fail the test; any other change
 * does, with the first differing line of each file.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define GOLDEN_DIR     GR_TEST_DATA_DIR "/golden/gen/"
#define GEN_FROM_EXE   "/../gen/"
#define MAX_FILE_BYTES (8 * 1024 * 1024)

/* Reads a whole file into a NUL-terminated malloc'd buffer, or NULL. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(MAX_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MAX_FILE_BYTES, f) : 0;
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    return buf;
}

/* Writes the directory holding build/gen/ files into out (with a trailing /). */
static void gen_dir(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    assert_non_null(slash);
    *slash = '\0';
    int len = snprintf(out, cap, "%s%s", exe, GEN_FROM_EXE);
    assert_true(len > 0 && (size_t)len < cap);
}

static size_t line_of(const char *text, const char *at)
{
    size_t line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* Prints the line of text holding position at. */
static void print_line(const char *label, const char *path, const char *text, const char *at)
{
    const char *start = at, *end = at;
    while (start > text && start[-1] != '\n')
        start--;
    while (*end && *end != '\n')
        end++;
    fprintf(stderr, "  %s %s:%zu: %.*s\n", label, path, line_of(text, at), (int)(end - start),
            start);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Compares two texts ignoring whitespace; returns 0 or prints and returns -1. */
static int compare(const char *golden_path, const char *golden, const char *gen_path,
                   const char *gen)
{
    const char *a = golden, *b = gen;
    for (;;) {
        while (is_space(*a))
            a++;
        while (is_space(*b))
            b++;
        if (*a != *b)
            break;
        if (!*a)
            return 0;
        a++;
        b++;
    }
    fprintf(stderr, "generated code differs from its reviewed copy:\n");
    print_line("reviewed ", golden_path, golden, a);
    print_line("generated", gen_path, gen, b);
    return -1;
}

static void check_file(const char *name)
{
    char golden_path[PATH_MAX], gen_path[PATH_MAX], dir[PATH_MAX];
    gen_dir(dir, sizeof dir);
    snprintf(golden_path, sizeof golden_path, "%s%s", GOLDEN_DIR, name);
    snprintf(gen_path, sizeof gen_path, "%s%s", dir, name);

    char *golden = read_file(golden_path);
    char *gen = read_file(gen_path);
    if (!golden)
        fprintf(stderr, "cannot read the reviewed copy %s: %s\n", golden_path, strerror(errno));
    if (!gen)
        fprintf(stderr, "cannot read the generated %s: %s\n", gen_path, strerror(errno));
    int rc = golden && gen ? compare(golden_path, golden, gen_path, gen) : -1;
    if (rc != 0)
        fprintf(stderr,
                "\nThe output of tools/gen_codec.py for proto/api_versions.gp changed.\n"
                "Review the change (diff -u %s %s);\n"
                "when it is intended, refresh the reviewed copy and commit it with the "
                "generator change:\n"
                "    cp build/gen/api_versions.c build/gen/api_versions.h tests/golden/gen/\n",
                golden_path, gen_path);
    free(golden);
    free(gen);
    assert_int_equal(rc, 0);
}

static void test_api_versions_header(void **state)
{
    (void)state;
    check_file("api_versions.h");
}

static void test_api_versions_source(void **state)
{
    (void)state;
    check_file("api_versions.c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_versions_header),
        cmocka_unit_test(test_api_versions_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
