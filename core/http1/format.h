// HTTP/1.1 with SSE, the Messages API and chat completions as the HTTP baseline speaks them: its
// registry row and its parts, registered from here (core/formats/builtin.cpp). Formats riding
// on HTTP (Profile::rides_on "http") are read and served through it.
#pragma once

namespace anthro {

void register_http1();

}  // namespace anthro
