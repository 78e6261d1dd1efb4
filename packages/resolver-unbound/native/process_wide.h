#ifndef DNSCORE_PROCESS_WIDE_H
#define DNSCORE_PROCESS_WIDE_H
#include <node_api.h>

/* Adds claimProcessWide() and settingsInForce() to the addon's exports (process_wide.c). */
napi_status process_wide_init(napi_env env, napi_value exports);

#endif
