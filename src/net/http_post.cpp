#include "net/http_post.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>

#include "base/ascii.h"

namespace ouro::net {

namespace {

struct Sink {
  const PostOptions* options;
  std::string body;
  bool too_long = false;
};

size_t keep(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<Sink*>(user);
  size_t bytes = size * n;
  size_t room = s->options->max_answer_bytes - std::min(s->options->max_answer_bytes, s->body.size());
  if (bytes > room && !s->options->truncate) {
    s->too_long = true;
    return 0;  // aborts the transfer
  }
  s->body.append(data, std::min(bytes, room));
  return bytes;
}

int progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* o = static_cast<const PostOptions*>(user);
  return o->abort && o->abort() ? 1 : 0;
}

}  // namespace

Result<PostAnswer> post(const std::string& url, const std::string& body, const PostOptions& options) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (!curl) return make_error(Code::Internal, "libcurl could not start a request");
  // JSON unless the caller names its own type (one Content-Type, not two joined).
  bool typed = std::any_of(options.headers.begin(), options.headers.end(), [](const std::string& h) { return starts_with_nocase(h, "content-type:"); });
  curl_slist* headers = typed ? nullptr : curl_slist_append(nullptr, "Content-Type: application/json");
  for (const auto& h : options.headers) headers = curl_slist_append(headers, h.c_str());
  Sink sink{&options, {}, false};
  char errbuf[CURL_ERROR_SIZE] = {0};
  const long timeout = static_cast<long>(std::max<int64_t>(1, options.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, options.user_agent);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout, 3000L));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
  if (options.abort) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &options);
  }
  CURLcode rc = curl_easy_perform(curl);
  PostAnswer answer;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (sink.too_long) return errorf(Code::ResourceExhausted, "the answer is over {} bytes", options.max_answer_bytes);
  if (rc == CURLE_OPERATION_TIMEDOUT) return errorf(Code::DeadlineExceeded, "no answer within {} ms", timeout);
  if (rc == CURLE_ABORTED_BY_CALLBACK) return make_error(Code::DeadlineExceeded, "given up before the answer came: the caller stopped waiting");
  if (rc != CURLE_OK) return make_error(Code::Unavailable, *errbuf ? errbuf : curl_easy_strerror(rc));
  answer.body = std::move(sink.body);
  return answer;
}

}  // namespace ouro::net
