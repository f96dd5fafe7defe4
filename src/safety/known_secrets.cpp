#include "safety/known_secrets.h"

#include "base/random.h"
#include "safety/redact.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <sstream>

namespace ouro::safety {

namespace {

constexpr std::string_view kHeader = "ouro secret digests v1 ";
constexpr uint64_t kPrime = (uint64_t{1} << 61) - 1;  // a Mersenne prime: reduction is two shifts
constexpr size_t kMaxDigestedBytes = 4096;            // longer values (a key file) are not recorded

__extension__ typedef unsigned __int128 Wide;

uint64_t mul_mod(uint64_t a, uint64_t b) {
  Wide p = static_cast<Wide>(a) * b;
  uint64_t r = static_cast<uint64_t>(p & kPrime) + static_cast<uint64_t>(p >> 61);
  return r >= kPrime ? r - kPrime : r;
}
uint64_t add_mod(uint64_t a, uint64_t b) { return a + b >= kPrime ? a + b - kPrime : a + b; }
uint64_t sub_mod(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kPrime - b; }

size_t lane_index(char lane) { return lane == 'e' ? 0 : 1; }
uint64_t packed(char lane, uint32_t length, uint32_t prefilter) {
  return (static_cast<uint64_t>(lane_index(lane)) << 63) | (static_cast<uint64_t>(length) << 32) | prefilter;
}

// Lower- or upper-case hex digits to their value; nullopt for any other text (a damaged file).
std::optional<uint64_t> hex_value(std::string_view text) {
  if (text.empty() || text.size() > 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return v;
}

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

Result<std::string> read_whole(int fd, const std::string& path) {
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errorf(Code::Unavailable, "cannot read {}: {}", path, std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

Result<void> write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errorf(Code::Unavailable, "cannot write {}: {}", path, std::strerror(errno));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The Exact and Skeleton lanes of one text, each with a rolling hash per known length.
class Rolling : public spellings::LaneSink {
 public:
  struct Lane {
    std::vector<uint32_t> lengths;
    std::vector<uint64_t> hashes, powers;  // per length: the window's hash, base^(length-1)
    std::vector<size_t> next_check;        // per length: no digest before this count (a hit covers it)
    std::string bytes;                     // the last bytes, a ring
    std::vector<size_t> begins;
    size_t count = 0, mask = 0;
  };
  std::array<Lane, 2> lanes;
  // (lane, length, count at the window's end) where the prefilter agreed.
  std::function<void(size_t lane, size_t length_index)> candidate;
  std::function<bool(size_t lane, uint32_t length, uint32_t prefilter)> known;
  uint64_t base = 0;

  void start(size_t lane, const std::vector<uint32_t>& lengths) {
    Lane& l = lanes[lane];
    l.lengths = lengths;
    l.hashes.assign(lengths.size(), 0);
    l.next_check.assign(lengths.size(), 0);
    l.powers.clear();
    for (uint32_t len : lengths) {
      uint64_t p = 1;
      for (uint32_t k = 1; k < len; ++k) p = mul_mod(p, base);
      l.powers.push_back(p);
    }
    size_t size = 1;
    uint32_t longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
    while (size < longest + 1) size <<= 1;
    l.bytes.assign(size, '\0');
    l.begins.assign(size, 0);
    l.mask = size - 1;
  }
  void byte(spellings::Lane which, unsigned char c, size_t begin, size_t end) override {
    size_t index = which == spellings::Lane::Exact ? 0 : which == spellings::Lane::Skeleton ? 1 : 2;
    if (index > 1 || lanes[index].lengths.empty()) return;
    Lane& l = lanes[index];
    const size_t at = l.count;
    l.bytes[at & l.mask] = static_cast<char>(c);
    l.begins[at & l.mask] = begin;
    last_end = end;
    for (size_t k = 0; k < l.lengths.size(); ++k) {
      const uint32_t len = l.lengths[k];
      uint64_t h = l.hashes[k];
      if (at >= len) h = sub_mod(h, mul_mod(static_cast<unsigned char>(l.bytes[(at - len) & l.mask]) + 1u, l.powers[k]));
      h = add_mod(mul_mod(h, base), c + 1u);
      l.hashes[k] = h;
      if (at + 1 >= len && at >= l.next_check[k] && known(index, len, static_cast<uint32_t>(h))) candidate(index, k);
    }
    ++l.count;
  }
  // The window of `length` bytes that ends at the byte being read (count is not advanced yet).
  std::string window(size_t lane, uint32_t length) const {
    const Lane& l = lanes[lane];
    std::string out(length, '\0');
    for (uint32_t k = 0; k < length; ++k) out[k] = l.bytes[(l.count + 1 - length + k) & l.mask];
    return out;
  }
  size_t last_end = 0;
};

}  // namespace

Result<std::shared_ptr<KnownSecrets>> KnownSecrets::open(const std::string& path) {
  std::shared_ptr<KnownSecrets> k(new KnownSecrets());
  k->m_path = path;
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (f.fd < 0 && errno == ENOENT) {
    // Made whole, then put in place: the file appears with its salt or not at all, so sessions
    // starting together (ouro eval's task runs, a pool's places) never read it half-written. On a
    // file system without hard links, made in place (a reader that comes while its header is being
    // written is told to try again, below).
    const std::string fresh = path + ".new-" + random_hex(6);
    Fd n;
    n.fd = ::open(fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (n.fd < 0) return errorf(Code::Unavailable, "cannot create {}: {} (it holds the digests of secrets; check the data directory)", path, std::strerror(errno));
    const std::string salt = random_bytes(32);
    auto written = write_all(n.fd, std::string(kHeader) + hex(salt) + "\n", fresh);
    const bool placed = written && ::link(fresh.c_str(), path.c_str()) == 0;
    const int link_errno = errno;
    ::unlink(fresh.c_str());
    if (!written) return tl::make_unexpected(written.error());
    bool made = placed;
    if (!placed && link_errno != EEXIST) {
      Fd direct;
      direct.fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
      if (direct.fd < 0 && errno != EEXIST)
        return errorf(Code::Unavailable, "cannot create {}: {} (it holds the digests of secrets; check the data directory)", path, std::strerror(errno));
      if (direct.fd >= 0) {
        TRY(write_all(direct.fd, std::string(kHeader) + hex(salt) + "\n", path));
        made = true;
      }
    }
    if (made) {
      k->m_salt = salt;
      TRY(k->load(std::string(kHeader) + hex(salt) + "\n"));
      return k;
    }
    f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  }
  if (f.fd < 0) return errorf(Code::Unavailable, "cannot open {}: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode))
    return errorf(Code::FailedPrecondition, "{} is not a regular file; remove it (it holds the digests of secrets and is made again)", path);
  if (st.st_mode & 077)
    return errorf(Code::PermissionDenied, "{} can be read by others than its owner: chmod 600 it (it holds the salted digests of secrets)", path);
  std::string text = TRY(read_whole(f.fd, path));
  // A header being written by another process right now: its whole line is there or none of it.
  if (text.size() < kHeader.size() + 65) return errorf(Code::Unavailable, "{} is being created by another ouro; try again", path);
  TRY(k->load(text));
  return k;
}

Result<void> KnownSecrets::load(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  if (line.rfind(kHeader, 0) != 0 || line.size() != kHeader.size() + 64)
    return errorf(Code::FailedPrecondition, "{} does not start with its salt; remove it (later runs then recognise only the secrets they are given)", m_path);
  std::string salt_hex = line.substr(kHeader.size());
  m_salt.clear();
  for (size_t i = 0; i < 64; i += 2) {
    auto byte = hex_value(std::string_view(salt_hex).substr(i, 2));
    if (!byte)
      return errorf(Code::FailedPrecondition, "{}: its salt is not hex; remove it (later runs then recognise only the secrets they are given)", m_path);
    m_salt.push_back(static_cast<char>(*byte));
  }
  m_base = 256;
  for (size_t i = 0; i < 8; ++i) m_base = (m_base << 7 ^ static_cast<unsigned char>(m_salt[i])) % kPrime;
  m_base = std::max<uint64_t>(m_base, 257);
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    Entry e;
    std::string prefilter;
    std::optional<uint64_t> filter;
    if (!(fields >> e.lane >> e.length >> prefilter >> e.digest >> e.name) || (e.lane != 'e' && e.lane != 's') || e.digest.size() != 64 ||
        !(filter = prefilter.size() == 8 ? hex_value(prefilter) : std::nullopt) || e.length < kMinScrubbedBytes || e.length > kMaxDigestedBytes)
      continue;  // a line cut short by a crash, or damaged: the rest still count
    e.prefilter = static_cast<uint32_t>(*filter);
    add_locked(std::move(e));
  }
  return {};
}

void KnownSecrets::add_locked(Entry e) {
  if (m_by_digest.count(e.digest)) return;
  m_names.push_back(e.name);
  m_by_digest[e.digest] = m_names.size() - 1;
  m_prefilters.insert(packed(e.lane, e.length, e.prefilter));
  auto& lengths = m_lengths[lane_index(e.lane)];
  if (std::find(lengths.begin(), lengths.end(), e.length) == lengths.end()) lengths.push_back(e.length);
  ++m_entries;
}

std::string KnownSecrets::digest(char lane, std::string_view form) const {
  std::string input = m_salt;
  input += lane;
  input += form;
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), md, &len, EVP_sha256(), nullptr);
  return hex(std::string_view(reinterpret_cast<const char*>(md), len));
}

uint32_t KnownSecrets::prefilter(std::string_view form) const {
  uint64_t h = 0;
  for (unsigned char c : form) h = add_mod(mul_mod(h, m_base), c + 1u);
  return static_cast<uint32_t>(h);
}

Result<void> KnownSecrets::record(const std::string& name, std::string_view value) {
  if (value.size() < kMinScrubbedBytes || value.size() > kMaxDigestedBytes) return {};
  std::vector<Entry> fresh;
  auto form = [&](char lane, const std::string& f) {
    if (f.empty()) return;
    fresh.push_back({lane, static_cast<uint32_t>(f.size()), prefilter(f), digest(lane, f), name});
  };
  form('e', spellings::exact(value));
  if (std::string s = spellings::skeleton(value); s.size() >= kMinFuzzyBytes) form('s', s);
  std::unique_lock lock(m_mutex);
  std::string lines;
  for (auto& e : fresh) {
    if (m_by_digest.count(e.digest)) continue;
    lines += fmt::format("{} {} {:08x} {} {}\n", e.lane, e.length, e.prefilter, e.digest, e.name);
    add_locked(std::move(e));
  }
  if (lines.empty()) return {};
  Fd f;
  f.fd = ::open(m_path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (f.fd < 0) return errorf(Code::Unavailable, "cannot add to {}: {}", m_path, std::strerror(errno));
  return write_all(f.fd, lines, m_path);  // one write under O_APPEND: lines of other processes do not interleave
}

size_t KnownSecrets::size() const {
  std::shared_lock lock(m_mutex);
  return m_entries;
}

std::vector<spellings::Span> KnownSecrets::find_locked(std::string_view text) const {
  std::vector<spellings::Span> found;
  Rolling r;
  r.base = m_base;
  r.start(0, m_lengths[0]);
  r.start(1, m_lengths[1]);
  r.known = [this](size_t lane, uint32_t length, uint32_t p) { return m_prefilters.count(packed(lane == 0 ? 'e' : 's', length, p)) > 0; };
  r.candidate = [&](size_t lane, size_t k) {
    Rolling::Lane& l = r.lanes[lane];
    const uint32_t length = l.lengths[k];
    auto it = m_by_digest.find(digest(lane == 0 ? 'e' : 's', r.window(lane, length)));
    if (it == m_by_digest.end()) return;
    found.push_back({l.begins[(l.count + 1 - length) & l.mask], r.last_end, it->second});
    l.next_check[k] = l.count + length;  // the next window that does not overlap this one
  };
  spellings::stream(text, r);
  return found;
}

std::string KnownSecrets::scrub_text(std::string text, spellings::Work* work) const {
  std::shared_lock lock(m_mutex);
  if (!m_entries) return text;
  spellings::Work local;
  auto found = spellings::find_decoding(text, [this](std::string_view t) { return find_locked(t); }, work ? *work : local);
  if (found.empty()) return text;
  std::string out;
  size_t at = 0;
  for (const auto& f : found) {
    out.append(text, at, f.begin - at);
    out += "[SECRET:" + m_names[f.secret] + "]";
    at = f.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

void KnownSecrets::scrub(json& v) const {
  if (v.is_string()) {
    v = scrub_text(v.get<std::string>());
  } else if (v.is_object()) {
    json out = json::object();
    for (auto& [k, x] : v.items()) {
      scrub(x);
      out[scrub_text(k)] = std::move(x);
    }
    v = std::move(out);
  } else if (v.is_array()) {
    for (auto& x : v) scrub(x);
  }
}

}  // namespace ouro::safety
