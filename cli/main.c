/*
 * main.c — the vmemscope program: the command line of cli_main.c on the
 * process's standard output and error.
 */
#include <stdio.h>

#include "vmemscope.h"

int main(int argc, char **argv) { return vmem_cli_run(argc - 1, (const char *const *)(argv + 1), stdout, stderr); }
