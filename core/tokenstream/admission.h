// The endpoint's and a capture's reading of a token-stream request's headers
// (../shared/spec/profiles/token-stream.md, "Request" and "Errors"): which answer it gets.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "tokenstream/context_id.h"

namespace anthro {

inline constexpr const char* kTokenStreamMediaType = "application/vnd.claude.token-stream";
inline constexpr std::string_view kTokenStreamVocabPath = "/v1/vocab";

// The request's fields, each as it came (nullopt when absent).
struct TokenStreamRequestHeaders {
  std::optional<std::string> content_type;
  std::optional<std::string> alignment;   // X-Claude-Token-Alignment
  std::optional<std::string> context_id;  // X-Claude-Context-ID
  std::optional<std::string> tenant_id;   // X-Claude-Tenant-ID
  std::optional<std::string> streaming;   // X-Claude-Streaming
  // One of these fields sent more than once (its name as the spec writes it): which value
  // counts is unknowable, so the request is refused, never the last one taken.
  std::optional<std::string> repeated;
};

// The fields of a request's headers (names lowercased), as the endpoint and a capture read them.
// `repeated`: the names (lowercased) that came more than once.
TokenStreamRequestHeaders read_token_stream_headers(const std::map<std::string, std::string>& headers,
                                                    const std::set<std::string>& repeated = {});
// The header fields a client sends for them, in order (absent ones left out).
std::vector<std::pair<std::string, std::string>> token_stream_header_fields(const TokenStreamRequestHeaders& headers);

// Does Content-Type select the passthrough (the media type, any parameters after `;`)?
bool selects_token_stream(const std::optional<std::string>& content_type);

enum class TokenStreamVerdict {
  Accept,
  BadRequest,    // 400: the alignment header, a malformed context id, X-Claude-Streaming, or one sent twice
  Unauthorized,  // 401: tenant header, context id and key disagree
};

// The request header an admission refused.
enum class TokenStreamField { None, Alignment, ContextId, TenantId, Streaming };
const char* to_string(TokenStreamField field);  // "X-Claude-Token-Alignment", ...

struct TokenStreamAdmission {
  TokenStreamVerdict verdict = TokenStreamVerdict::Accept;
  TokenStreamField refused_field = TokenStreamField::None;
  TokenStreamContextId context;  // when accepted
  bool streaming = true;
  std::string reason;  // for a person: the header and what is wrong with it
  int status() const;  // 200, 400 or 401
};

// A field sent twice first, then in the table's order: alignment, context id, tenant, streaming. `key_tenant` is the
// tenant the API key belongs to, when the server knows one.
TokenStreamAdmission admit_token_stream_request(const TokenStreamRequestHeaders& headers,
                                                std::optional<std::uint32_t> key_tenant);

}  // namespace anthro
