/*
 * pjrt_abi.h — the part of the PJRT C API (OpenXLA, xla/pjrt/c/pjrt_c_api.h)
 * that vmemscope calls, declared from its published layout.
 *
 * Why declare it here rather than include the upstream header: the header
 * ships with no Debian package and no library vmemscope may build against;
 * the API is an ABI, stable within a major version, whose tables only grow
 * at their end. We declare the layout of the tables and argument structs we
 * use and check at run time, from the plugin's own `struct_size`, that each
 * function we call lies inside the table the plugin gave us (cp_api_has).
 *
 * Rules of the ABI that this file relies on:
 *  - every argument struct starts with `struct_size` and `extension_start`;
 *    the caller sets struct_size to the size it knows, and a plugin refuses
 *    one smaller than its own (so each struct here is declared whole, up to
 *    its newest field);
 *  - the function table (PJRT_Api) is append-only within major version 0;
 *    the slots before the last one we call are listed in order, unused ones
 *    as `cp_slot`.
 * Names keep upstream's spelling after the `pjrt_` prefix so that a reader
 * can find each one in the upstream header.
 */
#ifndef VMEM_PJRT_ABI_H
#define VMEM_PJRT_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PJRT_ABI_MAJOR 0

typedef struct pjrt_error pjrt_error;
typedef struct pjrt_topology pjrt_topology;
typedef struct pjrt_executable pjrt_executable;
typedef struct pjrt_client pjrt_client;

typedef struct pjrt_ext {
  size_t struct_size;
  int type;
  struct pjrt_ext *next;
} pjrt_ext;

/* The fields every argument struct opens with. */
#define PJRT_HEAD     \
  size_t struct_size; \
  pjrt_ext *extension_start

typedef struct pjrt_api_version {
  PJRT_HEAD;
  int major;
  int minor;
} pjrt_api_version;

/* ## Errors */
typedef struct pjrt_error_destroy_args {
  PJRT_HEAD;
  pjrt_error *error;
} pjrt_error_destroy_args;

typedef struct pjrt_error_message_args {
  PJRT_HEAD;
  const pjrt_error *error;
  const char *message; /* out, lives as long as `error` */
  size_t message_size; /* out */
} pjrt_error_message_args;

typedef struct pjrt_error_getcode_args {
  PJRT_HEAD;
  const pjrt_error *error;
  int code; /* out: absl status codes (8 = RESOURCE_EXHAUSTED) */
} pjrt_error_getcode_args;

/* ## Named values (plugin attributes, topology options) */
enum { PJRT_NV_STRING = 0, PJRT_NV_INT64, PJRT_NV_INT64_LIST, PJRT_NV_FLOAT, PJRT_NV_BOOL };

typedef struct pjrt_named_value {
  PJRT_HEAD;
  const char *name;
  size_t name_size;
  int type; /* PJRT_NV_* */
  union {
    const char *string_value;
    int64_t int64_value;
    const int64_t *int64_array_value;
    float float_value;
    bool bool_value;
  } u;
  size_t value_size; /* elements of a list or string; 1 for a scalar */
} pjrt_named_value;

/* ## Plugin */
typedef struct pjrt_plugin_initialize_args {
  PJRT_HEAD;
} pjrt_plugin_initialize_args;

typedef struct pjrt_plugin_attributes_args {
  PJRT_HEAD;
  const pjrt_named_value *attributes; /* out, for the process's life */
  size_t num_attributes;              /* out */
} pjrt_plugin_attributes_args;

/* ## Topology: a TPU slice described by name ("v5e:2x2"), with no device */
typedef struct pjrt_topology_create_args {
  PJRT_HEAD;
  const char *topology_name;
  size_t topology_name_size;
  const pjrt_named_value *create_options;
  size_t num_options;
  pjrt_topology *topology; /* out */
} pjrt_topology_create_args;

typedef struct pjrt_topology_destroy_args {
  PJRT_HEAD;
  pjrt_topology *topology;
} pjrt_topology_destroy_args;

/* ## Compiling for a topology (ahead of time) */
typedef struct pjrt_program {
  PJRT_HEAD;
  char *code; /* "mlir": MLIR text or bytecode; "hlo": a serialized HloModuleProto */
  size_t code_size;
  const char *format;
  size_t format_size;
} pjrt_program;

typedef struct pjrt_compile_args {
  PJRT_HEAD;
  const pjrt_topology *topology;
  const pjrt_program *program;
  const char *compile_options; /* a serialized xla.CompileOptionsProto */
  size_t compile_options_size;
  pjrt_client *client;         /* optional; NULL compiles for the topology alone */
  pjrt_executable *executable; /* out */
} pjrt_compile_args;

typedef struct pjrt_executable_destroy_args {
  PJRT_HEAD;
  pjrt_executable *executable;
} pjrt_executable_destroy_args;

/* Called twice: with program->code NULL to learn code_size, then with a
 * buffer of that size. */
typedef struct pjrt_optimized_program_args {
  PJRT_HEAD;
  pjrt_executable *executable;
  pjrt_program *program;
} pjrt_optimized_program_args;

typedef struct pjrt_memory_stats_args {
  PJRT_HEAD;
  pjrt_executable *executable;
  int64_t generated_code_size_in_bytes; /* out, device memory (HBM) */
  int64_t argument_size_in_bytes;
  int64_t output_size_in_bytes;
  int64_t alias_size_in_bytes;
  int64_t temp_size_in_bytes;
  int64_t host_generated_code_size_in_bytes; /* out, host memory */
  int64_t host_argument_size_in_bytes;
  int64_t host_output_size_in_bytes;
  int64_t host_alias_size_in_bytes;
  int64_t host_temp_size_in_bytes;
  int64_t peak_memory_in_bytes;
} pjrt_memory_stats_args;

/* ## The function table */
#define PJRT_FN(name, args) pjrt_error *(*name)(args *)
typedef void (*cp_slot)(void); /* a function vmemscope does not call */

typedef struct pjrt_api {
  PJRT_HEAD;
  pjrt_api_version version;

  void (*Error_Destroy)(pjrt_error_destroy_args *);
  void (*Error_Message)(pjrt_error_message_args *);
  PJRT_FN(Error_GetCode, pjrt_error_getcode_args);

  PJRT_FN(Plugin_Initialize, pjrt_plugin_initialize_args);
  PJRT_FN(Plugin_Attributes, pjrt_plugin_attributes_args);

  cp_slot event[5];       /* Event_Destroy .. Event_OnReady */
  cp_slot client[13];     /* Client_Create .. Client_BufferFromHostBuffer */
  cp_slot device_desc[6]; /* DeviceDescription_Id .. _ToString */
  cp_slot device[6];      /* Device_GetDescription .. Device_MemoryStats */
  cp_slot memory[5];      /* Memory_Id .. Memory_AddressableByDevices */

  PJRT_FN(Executable_Destroy, pjrt_executable_destroy_args);
  cp_slot executable[7]; /* Executable_Name .. Executable_OutputMemoryKinds */
  PJRT_FN(Executable_OptimizedProgram, pjrt_optimized_program_args);
  cp_slot serialize; /* Executable_Serialize */

  cp_slot loaded[8];  /* LoadedExecutable_Destroy .. _Fingerprint */
  cp_slot buffer[19]; /* Buffer_Destroy .. Buffer_OpaqueDeviceMemoryDataPointer */
  cp_slot stream[5];  /* CopyToDeviceStream_Destroy .. _CurrentBytes */

  PJRT_FN(TopologyDescription_Create, pjrt_topology_create_args);
  PJRT_FN(TopologyDescription_Destroy, pjrt_topology_destroy_args);
  cp_slot topology[5]; /* TopologyDescription_PlatformName .. _Attributes */

  PJRT_FN(Compile, pjrt_compile_args);

  cp_slot later[6]; /* Executable_OutputElementTypes .. Client_TopologyDescription */
  PJRT_FN(Executable_GetCompiledMemoryStats, pjrt_memory_stats_args);
} pjrt_api;

/* Whether the plugin's table (of `struct_size` bytes) reaches the slot
 * that ends at `end` bytes from its start. */
#define cp_api_has(api, field) ((api)->struct_size >= offsetof(pjrt_api, field) + sizeof((api)->field))

typedef const pjrt_api *(*pjrt_get_api_fn)(void);

#endif
