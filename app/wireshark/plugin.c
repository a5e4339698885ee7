/* Wireshark's epan plugin entry points (plugin ABI of 4.0). */
#include <epan/packet.h>
#include <epan/proto.h>
#include <ws_symbol_export.h>

#ifndef ANTHRO_PLUGIN_VERSION
#define ANTHRO_PLUGIN_VERSION "0.0.0"
#endif

void proto_register_anthro(void);
void proto_reg_handoff_anthro(void);

WS_DLL_PUBLIC_DEF const gchar plugin_version[] = ANTHRO_PLUGIN_VERSION;
WS_DLL_PUBLIC_DEF const int plugin_want_major = 4;
WS_DLL_PUBLIC_DEF const int plugin_want_minor = 0;

WS_DLL_PUBLIC void plugin_register(void);

void plugin_register(void) {
    static proto_plugin plug;
    plug.register_protoinfo = proto_register_anthro;
    plug.register_handoff = proto_reg_handoff_anthro;
    proto_register_plugin(&plug);
}
