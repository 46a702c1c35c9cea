/* test.h — cmocka with the includes it needs first. */
#ifndef VMEM_TEST_H
#define VMEM_TEST_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmemscope.h"

#define RUN(tests) cmocka_run_group_tests(tests, NULL, NULL)
#endif
