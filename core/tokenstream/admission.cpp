#include "tokenstream/admission.h"

#include <charconv>
#include <cstdio>

namespace anthro {
namespace {

TokenStreamAdmission refuse(TokenStreamVerdict verdict, TokenStreamField field, std::string reason) {
  TokenStreamAdmission a;
  a.verdict = verdict;
  a.refused_field = field;
  a.reason = std::move(reason);
  return a;
}

// A hostile value shown safely: printable ASCII as itself, other bytes as \xNN, at most 64.
std::string quoted(const std::optional<std::string>& v) {
  if (!v) return "absent";
  std::string out = "\"";
  for (std::size_t i = 0; i < v->size() && i < 64; ++i) {
    auto b = static_cast<unsigned char>((*v)[i]);
    if (b >= 0x20 && b < 0x7F && b != '"' && b != '\\') {
      out += static_cast<char>(b);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", b);
      out += hex;
    }
  }
  return out + (v->size() > 64 ? "\"…" : "\"");
}

// A decimal u32 with nothing around it, as the tenant header is written.
std::optional<std::uint32_t> parse_u32(const std::string& text) {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The request's fields: lowercased, then as the spec writes them.
const std::pair<const char*, const char*> kFieldNames[] = {{"content-type", "Content-Type"},
                                                           {"x-claude-token-alignment", "X-Claude-Token-Alignment"},
                                                           {"x-claude-context-id", "X-Claude-Context-ID"},
                                                           {"x-claude-tenant-id", "X-Claude-Tenant-ID"},
                                                           {"x-claude-streaming", "X-Claude-Streaming"}};

TokenStreamField field_named(const std::string& name) {
  for (auto f : {TokenStreamField::Alignment, TokenStreamField::ContextId, TokenStreamField::TenantId, TokenStreamField::Streaming})
    if (name == to_string(f)) return f;
  return TokenStreamField::None;
}

}  // namespace

TokenStreamRequestHeaders read_token_stream_headers(const std::map<std::string, std::string>& headers,
                                                    const std::set<std::string>& repeated) {
  auto field = [&headers](const char* name) -> std::optional<std::string> {
    auto it = headers.find(name);
    return it == headers.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  TokenStreamRequestHeaders h{field("content-type"), field("x-claude-token-alignment"), field("x-claude-context-id"),
                              field("x-claude-tenant-id"), field("x-claude-streaming"), std::nullopt};
  for (const auto& [lower, name] : kFieldNames)
    if (repeated.count(lower)) {
      h.repeated = name;
      break;
    }
  return h;
}

std::vector<std::pair<std::string, std::string>> token_stream_header_fields(const TokenStreamRequestHeaders& h) {
  std::vector<std::pair<std::string, std::string>> out;
  auto field = [&out](const char* name, const std::optional<std::string>& value) {
    if (value) out.emplace_back(name, *value);
  };
  field("content-type", h.content_type);
  field("x-claude-token-alignment", h.alignment);
  field("x-claude-context-id", h.context_id);
  field("x-claude-tenant-id", h.tenant_id);
  field("x-claude-streaming", h.streaming);
  return out;
}

bool selects_token_stream(const std::optional<std::string>& content_type) {
  if (!content_type) return false;
  std::string media = content_type->substr(0, content_type->find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
  if (media.size() != std::string_view(kTokenStreamMediaType).size()) return false;
  for (std::size_t i = 0; i < media.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(media[i])) != kTokenStreamMediaType[i]) return false;
  return true;
}

const char* to_string(TokenStreamField field) {
  switch (field) {
    case TokenStreamField::None: return "none";
    case TokenStreamField::Alignment: return "X-Claude-Token-Alignment";
    case TokenStreamField::ContextId: return "X-Claude-Context-ID";
    case TokenStreamField::TenantId: return "X-Claude-Tenant-ID";
    case TokenStreamField::Streaming: return "X-Claude-Streaming";
  }
  return "none";
}

int TokenStreamAdmission::status() const {
  switch (verdict) {
    case TokenStreamVerdict::Accept: return 200;
    case TokenStreamVerdict::BadRequest: return 400;
    case TokenStreamVerdict::Unauthorized: return 401;
  }
  return 400;
}

TokenStreamAdmission admit_token_stream_request(const TokenStreamRequestHeaders& h,
                                                std::optional<std::uint32_t> key_tenant) {
  if (h.repeated)
    return refuse(TokenStreamVerdict::BadRequest, field_named(*h.repeated), *h.repeated + " was sent more than once; send it once");
  if (h.alignment != std::optional<std::string>("4"))
    return refuse(TokenStreamVerdict::BadRequest, TokenStreamField::Alignment, "X-Claude-Token-Alignment must be 4, is " + quoted(h.alignment));
  if (!h.context_id) return refuse(TokenStreamVerdict::BadRequest, TokenStreamField::ContextId, "X-Claude-Context-ID is required");
  auto context = parse_context_id(*h.context_id);
  if (!context)
    return refuse(TokenStreamVerdict::BadRequest, TokenStreamField::ContextId, context.error().detail);
  if (h.tenant_id) {
    auto tenant = parse_u32(*h.tenant_id);
    if (!tenant)
      return refuse(TokenStreamVerdict::Unauthorized, TokenStreamField::TenantId, "X-Claude-Tenant-ID " + quoted(h.tenant_id) + " is not a decimal u32");
    if (*tenant != context->tenant)
      return refuse(TokenStreamVerdict::Unauthorized, TokenStreamField::TenantId, "X-Claude-Tenant-ID " + std::to_string(*tenant) +
                                                          " is not the context id's tenant " +
                                                          std::to_string(context->tenant));
  }
  if (key_tenant && *key_tenant != context->tenant)
    return refuse(TokenStreamVerdict::Unauthorized, TokenStreamField::ContextId, "the context id's tenant " + std::to_string(context->tenant) +
                                                        " is not the API key's tenant");
  TokenStreamAdmission a;
  a.context = *context;
  if (h.streaming && *h.streaming != "true" && *h.streaming != "false")
    return refuse(TokenStreamVerdict::BadRequest, TokenStreamField::Streaming, "X-Claude-Streaming must be true or false, is " + quoted(h.streaming));
  a.streaming = h.streaming != std::optional<std::string>("false");
  return a;
}

}  // namespace anthro
