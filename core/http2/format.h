// HTTP/2 (TLS with ALPN h2, or h2c with prior knowledge): the same requests as HTTP/1.1's on
// concurrent streams. Its registry row and its parts, registered from here
// (core/formats/builtin.cpp).
#pragma once

namespace anthro {

void register_http2();

}  // namespace anthro
