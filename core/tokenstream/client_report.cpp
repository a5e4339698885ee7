#include "tokenstream/client_report.h"

#include "tokenstream/admission.h"
#include "util/json.h"

namespace anthro {

namespace {
constexpr const char* kParseErrorType = "json_parse_error";
}

std::string text_decoding_error(ByteView body) {
  // TextDecoder replaces what is not UTF-8; the JSON parser then sees that text.
  std::string text = dump_json(nlohmann::json(std::string(as_text(body))));
  auto decoded = parse_json(text);
  auto parsed = parse_json(decoded ? decoded->get<std::string>() : std::string());
  if (parsed) return "the body parsed as JSON";
  return "JSON.parse after TextDecoder: " + parsed.error().detail;
}

std::string text_decoding_report(std::string_view error, std::string_view context_id) {
  nlohmann::json doc = {{"error", {{"type", kParseErrorType}, {"message", std::string(error)}}},
                        {"content_type", kTokenStreamMediaType},
                        {"context_id", std::string(context_id)}};
  return dump_json(doc);
}

bool is_text_decoding_report(std::string_view body) {
  nlohmann::json doc = parse_or_null(body);
  if (!doc.is_object()) return false;
  auto error = doc.find("error");
  auto type = doc.find("content_type");
  if (error == doc.end() || !error->is_object() || type == doc.end() || !type->is_string()) return false;
  auto error_type = error->find("type");
  return error_type != error->end() && error_type->is_string() && *error_type == kParseErrorType &&
         selects_token_stream(type->get<std::string>());
}

}  // namespace anthro
