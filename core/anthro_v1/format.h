// anthro-v1, the framed AEAD transport the workbench is built around: its registry row and
// its parts, registered from here (core/formats/builtin.cpp).
#pragma once

namespace anthro {

void register_anthro_v1();

}  // namespace anthro
