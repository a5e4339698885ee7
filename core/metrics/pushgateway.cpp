#include "metrics/pushgateway.h"

#include <curl/curl.h>

#include <mutex>

namespace anthro {
namespace {

// RFC 4648 §5 with padding; the Pushgateway takes an empty value as "=".
std::string base64url(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  if (in.empty()) return "=";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 | static_cast<unsigned char>(in[i + 1]) << 8 |
                 static_cast<unsigned char>(in[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (std::size_t rest = in.size() - i) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16 | (rest == 2 ? static_cast<unsigned char>(in[i + 1]) << 8 : 0);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::size_t keep_body(char* data, std::size_t size, std::size_t n, void* out) {
  auto* body = static_cast<std::string*>(out);
  if (body->size() < 4096) body->append(data, std::min<std::size_t>(size * n, 4096 - body->size()));
  return size * n;
}

struct Curl {
  CURL* handle;
  curl_slist* headers = nullptr;
  Curl() : handle(curl_easy_init()) {}
  ~Curl() {
    curl_slist_free_all(headers);
    if (handle) curl_easy_cleanup(handle);
  }
};

}  // namespace

Result<std::string> pushgateway_group_url(const std::string& base_url, std::string_view job,
                                          const PrometheusLabels& grouping) {
  if (base_url.rfind("http://", 0) != 0 && base_url.rfind("https://", 0) != 0)
    return make_error(ErrorClass::Usage, "--pushgateway \"" + base_url + "\": expected an http:// or https:// URL");
  std::string url = base_url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/metrics/job@base64/" + base64url(job);
  for (const auto& [name, value] : grouping) {
    if (!valid_label_name(name)) return make_error(ErrorClass::Usage, "grouping label \"" + name + "\" is not a label name");
    url += "/" + name + "@base64/" + base64url(value);
  }
  return url;
}

Result<bool> push_to_gateway(const std::string& base_url, std::string_view job, const PrometheusLabels& grouping,
                             std::string_view text, double timeout_s) {
  auto url = pushgateway_group_url(base_url, job, grouping);
  if (!url) return url.error();
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  Curl curl;
  if (!curl.handle) return make_error(ErrorClass::Network, "Pushgateway: libcurl could not start");
  std::string body;
  char error[CURL_ERROR_SIZE] = {};
  curl.headers = curl_slist_append(curl.headers, "Content-Type: text/plain; version=0.0.4");
  curl_easy_setopt(curl.handle, CURLOPT_URL, url->c_str());
  curl_easy_setopt(curl.handle, CURLOPT_CUSTOMREQUEST, "PUT");
  curl_easy_setopt(curl.handle, CURLOPT_POSTFIELDS, text.data());
  curl_easy_setopt(curl.handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(text.size()));
  curl_easy_setopt(curl.handle, CURLOPT_HTTPHEADER, curl.headers);
  curl_easy_setopt(curl.handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  curl_easy_setopt(curl.handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.handle, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl.handle, CURLOPT_WRITEFUNCTION, keep_body);
  curl_easy_setopt(curl.handle, CURLOPT_WRITEDATA, &body);
  if (CURLcode rc = curl_easy_perform(curl.handle); rc != CURLE_OK)
    return make_error(ErrorClass::Network, "Pushgateway " + base_url + ": " + (error[0] ? error : curl_easy_strerror(rc)));
  long status = 0;
  curl_easy_getinfo(curl.handle, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200 && status != 202)
    return make_error(ErrorClass::Network, "Pushgateway " + base_url + " answered HTTP " + std::to_string(status) +
                                               (body.empty() ? std::string() : ": " + body));
  return true;
}

}  // namespace anthro
